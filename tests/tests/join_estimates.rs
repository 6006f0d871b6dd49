//! Join orders chosen by row estimates over the wire: tables count their rows as they are
//! written, and a chain of joins whose written order joins two large tables before a
//! selective one is reordered to join the selective one first (EXPLAIN PHYSICAL shows which
//! inputs the first join reads) — only once the tables hold enough rows for the estimates to
//! say so. The answers, ad hoc and of a view maintained through writes, equal PostgreSQL's.

use kpg_tests::*;

/// Written order: fact with other (every fact row meets two), then the one selected dim row.
const QUERY: &str = "SELECT d.name, count(*), sum(f.v * o.w) FROM fact f, other o, dim d \
                     WHERE f.dim_id = d.id AND o.fact_id = f.id AND d.name = 'd7' \
                     GROUP BY d.name";

/// The physical plan's text.
async fn physical(p: &Pair, sql: &str) -> String {
    query(&p.kpg, &format!("EXPLAIN PHYSICAL PLAN FOR {sql}"))
        .await
        .iter()
        .map(|r| r[0].clone().unwrap_or_default() + "\n")
        .collect()
}

/// The tables read by the innermost join, in the order the plan names them.
fn first_join_reads(plan: &str) -> Vec<String> {
    let lines: Vec<&str> = plan.lines().collect();
    let (at, depth) = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("Join "))
        .map(|(i, l)| (i, l.len() - l.trim_start().len()))
        .max_by_key(|(_, depth)| *depth)
        .unwrap_or_else(|| panic!("no join in\n{plan}"));
    lines[at + 1..]
        .iter()
        .take_while(|l| l.len() - l.trim_start().len() > depth)
        .filter_map(|l| l.trim_start().strip_prefix("Get "))
        .map(|rest| {
            rest.split_whitespace()
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn join_order_follows_table_sizes() {
    let kpg = KpgServer::start().await;
    let pg = Postgres::start().await;
    let p = Pair::new(&kpg, &pg).await;
    p.exec("CREATE TABLE dim (id int4, name text)").await;
    p.exec("CREATE TABLE fact (id int4, dim_id int4, v int4)")
        .await;
    p.exec("CREATE TABLE other (id int4, fact_id int4, w int4)")
        .await;

    // Empty tables: nothing to go by, the written order stays.
    let plan = physical(&p, QUERY).await;
    assert_eq!(first_join_reads(&plan), ["fact", "other"], "{plan}");

    p.exec("INSERT INTO dim SELECT g, 'd' || g FROM generate_series(1, 100) g")
        .await;
    p.exec("INSERT INTO fact SELECT g, g % 100 + 1, g % 7 FROM generate_series(1, 30000) g")
        .await;
    p.exec("INSERT INTO other SELECT g, g % 30000 + 1, g % 5 + 1 FROM generate_series(1, 60000) g")
        .await;
    // Now fact meets the one selected dim row first, and other meets what is left.
    let plan = physical(&p, QUERY).await;
    assert_eq!(first_join_reads(&plan), ["fact", "dim"], "{plan}");
    p.check(QUERY).await;

    // A view planned in this order stays right as the tables change, including the dim row
    // it selects.
    p.create_view("v", QUERY).await;
    p.check_view("v").await;
    p.exec("INSERT INTO fact VALUES (30001, 7, 3), (30002, 8, 4)")
        .await;
    p.exec("INSERT INTO other VALUES (60001, 30001, 9), (60002, 7, 2)")
        .await;
    p.exec("UPDATE dim SET name = 'd7' WHERE id = 8").await;
    p.exec("DELETE FROM other WHERE id % 3 = 0").await;
    p.check_view("v").await;
    p.exec("UPDATE dim SET name = 'gone' WHERE name = 'd7'")
        .await;
    p.check_view("v").await;

    // Emptied again, the tables estimate no saving: the written order is back.
    for table in ["other", "fact", "dim"] {
        p.exec(&format!("DELETE FROM {table}")).await;
    }
    let plan = physical(&p, QUERY).await;
    assert_eq!(first_join_reads(&plan), ["fact", "other"], "{plan}");
}
