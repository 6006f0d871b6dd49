//! Issue 2: CREATE MATERIALIZED VIEW with WHERE + projection + expressions, an inner equi-join
//! of two tables, GROUP BY with count/sum/min/max, and ad hoc SELECTs over views. After every
//! batch of INSERT/UPDATE/DELETE, `SELECT * FROM v` on kpg must equal the view's defining
//! query on PostgreSQL (there a plain VIEW, i.e. always recomputed).

use kpg_tests::*;

const CUSTOMERS: &str = "CREATE TABLE customers (id int4, name text, region text, vip boolean)";
const ORDERS: &str = "CREATE TABLE orders (id int4, customer_id int4, amount numeric(10,2), \
                      qty int4, status text, placed date, weight double precision)";

async fn setup(workers: usize) -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start_with_workers(workers), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec(CUSTOMERS).await;
    s.exec(ORDERS).await;
    s.exec(
        "INSERT INTO customers VALUES (1, 'Ada', 'EU', true), (2, 'Grace', 'US', false), \
         (3, 'Edsger', 'EU', false), (4, 'Barbara', 'US', true)",
    )
    .await;
    s.exec(
        "INSERT INTO orders VALUES \
         (10, 1, 12.50, 3, 'open', '2024-01-05', 1.5), \
         (11, 1, 100.00, 1, 'shipped', '2024-01-20', 0.25), \
         (12, 2, 7.25, 10, 'open', '2024-02-01', 12), \
         (13, 3, 0.99, 2, 'cancelled', '2024-02-10', 0.1), \
         (14, 4, 55.10, 6, 'open', '2024-03-01', 3.75), \
         (15, 9, 5.00, 1, 'open', '2024-03-02', 1)",
    )
    .await;
    (kpg, pg, s)
}

/// Writes in batches; after each, every view is compared with PostgreSQL.
async fn apply_and_check(s: &Pair, views: &[&str], batches: &[&[&str]]) {
    for v in views {
        s.check_view(v).await;
    }
    for batch in batches {
        for stmt in *batch {
            s.exec(stmt).await;
        }
        for v in views {
            s.check_view(v).await;
        }
    }
}

/// Write batches touching both tables: inserts, updates of join keys and grouped columns,
/// deletes that empty groups and remove join partners, re-inserts.
const BATCHES: &[&[&str]] = &[
    &["INSERT INTO orders VALUES (16, 2, 19.99, 4, 'open', '2024-03-05', 2.5), (17, 3, 250.00, 1, 'open', '2024-03-06', 40)"],
    &["INSERT INTO customers VALUES (9, 'Alan', 'UK', false)"],
    &["UPDATE orders SET status = 'shipped', qty = qty + 1 WHERE id = 12"],
    &["UPDATE orders SET amount = amount * 2 WHERE customer_id = 1"],
    &["UPDATE customers SET region = 'US' WHERE id = 3"],
    &["UPDATE orders SET customer_id = 4 WHERE id = 10"],
    &["DELETE FROM orders WHERE id = 11"],
    &["DELETE FROM customers WHERE id = 2"],
    &["DELETE FROM orders WHERE status = 'cancelled'"],
    &[
        "INSERT INTO orders VALUES (18, 1, 1.00, 1, 'open', '2024-04-01', 0.5)",
        "INSERT INTO customers VALUES (2, 'Grace', 'US', true)",
        "DELETE FROM orders WHERE customer_id = 9",
    ],
    &["DELETE FROM orders"],
    &["INSERT INTO orders VALUES (20, 1, 3.00, 2, 'open', '2024-05-01', 1), (21, 2, 4.00, 3, 'open', '2024-05-02', 2)"],
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn view_with_filter_projection_and_expressions() {
    let (_kpg, _pg, s) = setup(2).await;
    s.create_view(
        "open_orders",
        "SELECT id, customer_id, amount * qty AS total, qty * 2 + 1 AS q2, qty / 2 AS half, \
         amount + 1 AS bumped, weight * 2 AS w2, qty > 2 AS big, placed \
         FROM orders WHERE status <> 'cancelled' AND qty >= 2",
    )
    .await;
    s.create_view(
        "recent",
        "SELECT id, status FROM orders WHERE placed >= '2024-02-01' OR amount > 50",
    )
    .await;
    apply_and_check(&s, &["open_orders", "recent"], BATCHES).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn view_with_equi_join() {
    let (_kpg, _pg, s) = setup(2).await;
    s.create_view(
        "order_customers",
        "SELECT o.id, c.name, c.region, o.amount, o.qty FROM orders o JOIN customers c ON o.customer_id = c.id",
    )
    .await;
    // The same join written with a WHERE clause, plus a filter on each side.
    s.create_view(
        "vip_orders",
        "SELECT orders.id, customers.name, orders.amount * orders.qty AS total FROM orders, customers \
         WHERE orders.customer_id = customers.id AND customers.vip AND orders.status = 'open'",
    )
    .await;
    apply_and_check(&s, &["order_customers", "vip_orders"], BATCHES).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn view_with_group_by() {
    let (_kpg, _pg, s) = setup(2).await;
    s.create_view(
        "per_customer",
        "SELECT customer_id, count(*) AS n, sum(qty) AS total_qty, sum(amount) AS total_amount, \
         min(amount) AS smallest, max(placed) AS last_placed, min(status) AS first_status \
         FROM orders GROUP BY customer_id",
    )
    .await;
    s.create_view(
        "per_status",
        "SELECT status, count(*) AS n, max(amount) AS biggest, min(qty) AS min_qty FROM orders \
         WHERE qty > 0 GROUP BY status",
    )
    .await;
    apply_and_check(&s, &["per_customer", "per_status"], BATCHES).await;
    // Retracting the current minimum/maximum must expose the next one.
    s.exec("INSERT INTO orders VALUES (30, 7, 1.00, 1, 'x', '2024-01-01', 1), (31, 7, 2.00, 2, 'x', '2024-01-02', 1), (32, 7, 3.00, 3, 'x', '2024-01-03', 1)").await;
    s.check_view("per_customer").await;
    s.exec("DELETE FROM orders WHERE id = 30").await;
    s.check_view("per_customer").await;
    s.exec("DELETE FROM orders WHERE id = 32").await;
    s.check_view("per_customer").await;
    s.check_view("per_status").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn view_with_nulls_in_groups() {
    // count(*) counts rows, count(col)/sum/min/max skip NULLs, a group of only NULLs sums to NULL.
    let (_kpg, _pg, s) = setup(2).await;
    s.create_view(
        "nullish",
        "SELECT customer_id, count(*) AS n, count(amount) AS n_amount, sum(amount) AS s, \
         min(amount) AS lo, max(amount) AS hi FROM orders GROUP BY customer_id",
    )
    .await;
    s.check_view("nullish").await;
    s.exec("INSERT INTO orders VALUES (40, 8, NULL, 1, 'open', NULL, NULL), (41, 8, NULL, 2, 'open', NULL, NULL), (42, NULL, 5.00, 1, 'open', NULL, NULL)").await;
    s.check_view("nullish").await;
    s.exec("UPDATE orders SET amount = 4.50 WHERE id = 40")
        .await;
    s.check_view("nullish").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn view_with_join_and_group_by() {
    // The README walkthrough's view.
    let (_kpg, _pg, s) = setup(2).await;
    s.create_view(
        "revenue_by_region",
        "SELECT c.region, count(*) AS orders, sum(o.amount * o.qty) AS revenue, \
         min(o.amount) AS smallest, max(o.amount) AS largest \
         FROM orders o JOIN customers c ON o.customer_id = c.id GROUP BY c.region",
    )
    .await;
    apply_and_check(&s, &["revenue_by_region"], BATCHES).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_created_before_any_data_and_several_on_one_table() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE t (k int4, v int8)").await;
    s.create_view("t_all", "SELECT k, v FROM t").await;
    s.create_view(
        "t_sum",
        "SELECT k, sum(v) AS s, count(*) AS c FROM t GROUP BY k",
    )
    .await;
    s.create_view("t_big", "SELECT k, v * 10 AS v10 FROM t WHERE v > 5")
        .await;
    let views = ["t_all", "t_sum", "t_big"];
    apply_and_check(
        &s,
        &views,
        &[
            &["INSERT INTO t VALUES (1, 1), (1, 10), (2, 7), (3, 3)"],
            &["INSERT INTO t VALUES (1, 1)"],
            &["UPDATE t SET v = v + 5 WHERE k = 3"],
            &["DELETE FROM t WHERE v = 1"],
            &["DELETE FROM t"],
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adhoc_select_over_views() {
    let (_kpg, _pg, s) = setup(2).await;
    s.create_view(
        "per_customer",
        "SELECT customer_id, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer_id",
    )
    .await;
    for q in [
        "SELECT * FROM per_customer WHERE n > 1",
        "SELECT customer_id, total * 2 AS doubled FROM per_customer",
        "SELECT * FROM per_customer ORDER BY total DESC, customer_id LIMIT 2",
        // A view joined with a table, ad hoc.
        "SELECT c.name, p.total FROM per_customer p JOIN customers c ON p.customer_id = c.id",
        "SELECT c.region, sum(p.n) AS n FROM per_customer p JOIN customers c ON p.customer_id = c.id GROUP BY c.region",
    ] {
        s.check(q).await;
    }
    // INSERT ... SELECT from a view.
    s.exec("CREATE TABLE snapshot (customer_id int4, n int8, total numeric(12,2))")
        .await;
    s.exec("INSERT INTO snapshot SELECT * FROM per_customer")
        .await;
    s.check("SELECT * FROM snapshot").await;
    s.exec("INSERT INTO orders VALUES (50, 2, 1.00, 1, 'open', '2024-06-01', 1)")
        .await;
    s.check("SELECT * FROM per_customer ORDER BY customer_id")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_with_four_workers_and_more_data() {
    // Data is exchanged between workers by key; the answer must not depend on the worker count.
    let (_kpg, _pg, s) = setup(4).await;
    s.create_view(
        "revenue_by_region",
        "SELECT c.region, count(*) AS orders, sum(o.amount * o.qty) AS revenue, min(o.id) AS first_id, \
         max(o.id) AS last_id FROM orders o JOIN customers c ON o.customer_id = c.id GROUP BY c.region",
    )
    .await;
    s.create_view(
        "per_customer",
        "SELECT customer_id, count(*) AS n, sum(qty) AS q FROM orders GROUP BY customer_id",
    )
    .await;
    let customers: Vec<String> = (100..160)
        .map(|i| {
            format!(
                "({i}, 'c{i}', '{}', {})",
                ["EU", "US", "APAC", "LATAM"][i % 4],
                i % 3 == 0
            )
        })
        .collect();
    s.exec(&format!(
        "INSERT INTO customers VALUES {}",
        customers.join(", ")
    ))
    .await;
    for chunk in 0..4 {
        let orders: Vec<String> = (0..250)
            .map(|j| {
                let id = 1000 + chunk * 250 + j;
                format!(
                    "({id}, {}, {}.{:02}, {}, '{}', '2024-{:02}-{:02}', {}.5)",
                    100 + (id * 7) % 70,
                    id % 500,
                    id % 100,
                    1 + id % 9,
                    ["open", "shipped", "cancelled"][id % 3],
                    1 + id % 12,
                    1 + id % 28,
                    id % 13
                )
            })
            .collect();
        s.exec(&format!("INSERT INTO orders VALUES {}", orders.join(", ")))
            .await;
        s.check_view("revenue_by_region").await;
        s.check_view("per_customer").await;
    }
    s.exec("UPDATE orders SET qty = qty + 1 WHERE id >= 1500 AND id < 1700")
        .await;
    s.exec("DELETE FROM customers WHERE region = 'US' OR id < 110")
        .await;
    s.exec("DELETE FROM orders WHERE status = 'cancelled'")
        .await;
    s.check_view("revenue_by_region").await;
    s.check_view("per_customer").await;
}

/// A grouping whose sums share subexpressions (`amount * qty` alone and inside a larger sum,
/// twice whole) and whose argument can fail: while a row makes `100 / qty` divide by zero the
/// view is an error (22012, as PostgreSQL's query); once the row is gone, every group's
/// aggregates are exactly PostgreSQL's again — the failing row added nothing to any of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aggregate_arguments_shared_and_failing() {
    let (_kpg, _pg, s) = setup(2).await;
    let query = "SELECT status, count(*) AS n, sum(amount) AS a, sum(amount * qty) AS aq, \
                 sum(amount * qty * (1 + qty)) AS aq1, avg(amount * qty) AS avg_aq, \
                 sum(100 / qty) AS inv, count(weight) AS w FROM orders GROUP BY status";
    s.create_view("shared_args", query).await;
    s.check_view("shared_args").await;
    for status in ["open", "shipped"] {
        s.exec(&format!(
            "INSERT INTO orders VALUES (30, 1, 3.00, 0, '{status}', '2024-04-01', 2)"
        ))
        .await;
        let (code, _) = s.check_error("SELECT * FROM shared_args").await;
        assert_eq!(code, "22012", "{status}");
        s.exec("UPDATE orders SET qty = qty + 1 WHERE id <> 30")
            .await;
        s.check_error("SELECT * FROM shared_args").await;
        s.exec("DELETE FROM orders WHERE id = 30").await;
        s.check_view("shared_args").await;
        s.exec("UPDATE orders SET qty = qty * 2, amount = amount + 0.5 WHERE status = 'open'")
            .await;
        s.check_view("shared_args").await;
    }
}
