//! Values SQL calls equal but prints differently — `3` and `3.00`, `'1 day'` and `'24 hours'`,
//! `0` and `-0` — as PostgreSQL treats them: every row keeps the text it was given (in tables,
//! UNION ALL, joins, views kept through writes), while equality decides joins, index lookups,
//! unique keys, GROUP BY, DISTINCT, set operations, count(DISTINCT) and top-k partitions.
//!
//! Where SQL equality merges rows, PostgreSQL shows whichever member of the class it met first,
//! which depends on its plan; those queries compare a normalized form of the merged column
//! (rounded to a fixed scale, an interval's epoch, a float plus zero) and the test checks
//! separately that kpg shows one of the class's own texts. Everything else is compared with a
//! real PostgreSQL text for text.

use kpg_tests::*;

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE t (id int, x numeric, i interval, f float8)")
        .await;
    s.exec(
        "INSERT INTO t VALUES (1, 1.5, '1 day', 0), (2, 1.50, '24 hours', '-0'), \
         (3, 1.500, '1 day', 1), (4, 2, '1 mon', 2), (5, 2.0, '30 days', 2), \
         (6, 3.00, '720:00:00', '-0'), (7, NULL, NULL, NULL), (8, 1.5, '1 day', 0)",
    )
    .await;
    s.exec("CREATE TABLE u (x numeric, i interval, f float8)")
        .await;
    s.exec(
        "INSERT INTO u VALUES (1.50, '1 day', '-0'), (2.000, '2 days', 5), (3, '30 days', 0), \
         (3.0, '30 days', 0), (9, '1 mon', 1)",
    )
    .await;
    (kpg, pg, s)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_keep_the_text_they_were_given() {
    let (_kpg, _pg, s) = setup().await;
    for q in [
        "SELECT 3.00 UNION ALL SELECT 3",
        "SELECT '-0'::float8 UNION ALL SELECT 0::float8",
        "SELECT interval '1 day' UNION ALL SELECT interval '24 hours'",
        "VALUES (1.5), (1.50), (1.500), (1.5)",
        "SELECT * FROM t",
        "SELECT x FROM t",
        "SELECT i, f FROM t",
        "SELECT x FROM t UNION ALL SELECT x FROM u",
        "SELECT x, x = 1.5, x::text FROM t",
        // Joins match SQL-equal keys and output each side's own text.
        "SELECT a.id, a.x, b.x FROM t a JOIN u b ON a.x = b.x",
        "SELECT a.id, a.x, b.x FROM t a LEFT JOIN u b ON a.x = b.x",
        "SELECT a.id, b.x FROM t a FULL JOIN u b ON a.x = b.x",
        "SELECT a.id, a.i, b.i FROM t a JOIN u b ON a.i = b.i",
        "SELECT a.id, a.f, b.f FROM t a JOIN u b ON a.f = b.f",
        "SELECT a.id, b.id FROM t a JOIN t b ON a.x = b.x AND a.i = b.i",
        // An outer join's ON that reads the text: a row is matched only by its own text.
        "SELECT a.id, a.x, b.x FROM t a LEFT JOIN u b ON a.x::text = b.x::text",
        "SELECT a.id, b.x FROM t a FULL JOIN u b ON a.x::text = b.x::text",
        "SELECT a.x, b.x FROM u a RIGHT JOIN (SELECT x FROM t) b ON a.x::text = b.x::text",
        "SELECT a.x, b.x FROM (SELECT x FROM t) a LEFT JOIN u b ON a.x::text = b.x::text",
        "SELECT a.i, b.i FROM (SELECT i FROM t) a LEFT JOIN u b ON a.i = b.i AND a.i::text = '1 day'",
        "SELECT a.f, b.f FROM (SELECT f FROM t) a FULL JOIN u b ON a.f::text = b.f::text",
        "SELECT id, x FROM t WHERE x IN (SELECT x FROM u)",
        "SELECT id, x FROM t WHERE x NOT IN (SELECT x FROM u WHERE x IS NOT NULL)",
        "SELECT id, x FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.x = t.x)",
        "SELECT id, (SELECT count(*) FROM u WHERE u.i = t.i) FROM t",
        // A correlated subquery sees the outer row's own text, as if run per row.
        "SELECT id, (SELECT t.x * 2), (SELECT t.i * 2), (SELECT t.f::text) FROM t",
        "SELECT id, (SELECT max(b.id) FROM t b WHERE b.x::text = t.x::text) FROM t",
        "SELECT id, (SELECT t.x + u.x FROM u WHERE u.x = 9) FROM t",
        "SELECT id, EXISTS (SELECT 1 FROM u WHERE u.x::text = t.x::text) FROM t",
        "SELECT id FROM t WHERE (SELECT t.i::text) LIKE '%day%'",
        // ORDER BY ties SQL-equal values, for the next item to decide.
        "SELECT id, i FROM t ORDER BY i, id",
        "SELECT id, x FROM t ORDER BY x DESC, id",
        "SELECT id, f FROM t ORDER BY f NULLS FIRST, id DESC",
        "SELECT id, x FROM t ORDER BY x, id LIMIT 4",
        "SELECT id, x FROM t ORDER BY x DESC, id OFFSET 2 LIMIT 3",
        // Counting SQL-distinct values.
        "SELECT count(*), count(DISTINCT x), count(DISTINCT i), count(DISTINCT f) FROM t",
        "SELECT id, count(DISTINCT x) FROM (SELECT id % 2 AS id, x FROM t) s GROUP BY id",
        // Grouping by a column whose classes are mixed, showing other columns' own texts.
        "SELECT id, x FROM t WHERE x IN (SELECT x FROM t GROUP BY x HAVING count(*) > 1)",
    ] {
        s.check(q).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn equality_decides_groups_and_set_operations() {
    let (_kpg, _pg, s) = setup().await;
    for q in [
        "SELECT round(x, 4), n FROM (SELECT x, count(*) AS n FROM t GROUP BY x) g",
        "SELECT round(x, 4), n, s FROM (SELECT x, count(*) AS n, sum(id) AS s FROM t GROUP BY x) g",
        "SELECT round(x, 4), lo, hi FROM (SELECT x, min(id) AS lo, max(id) AS hi FROM t GROUP BY x) g",
        "SELECT extract(epoch FROM i), n FROM (SELECT i, count(*) AS n FROM t GROUP BY i) g",
        "SELECT f + 0, n FROM (SELECT f, count(*) AS n FROM t GROUP BY f) g",
        "SELECT round(x, 4), extract(epoch FROM i), n \
         FROM (SELECT x, i, count(*) AS n FROM t GROUP BY x, i) g",
        "SELECT round(x, 4) FROM (SELECT DISTINCT x FROM t) d",
        "SELECT extract(epoch FROM i), f + 0 FROM (SELECT DISTINCT i, f FROM t) d",
        "SELECT round(x, 4) FROM (SELECT x FROM t UNION SELECT x FROM u) s",
        "SELECT round(x, 4) FROM (SELECT x FROM t EXCEPT SELECT x FROM u) s",
        "SELECT round(x, 4) FROM (SELECT x FROM t EXCEPT ALL SELECT x FROM u) s",
        "SELECT round(x, 4) FROM (SELECT x FROM t INTERSECT SELECT x FROM u) s",
        "SELECT round(x, 4) FROM (SELECT x FROM t INTERSECT ALL SELECT x FROM u) s",
        "SELECT round(x, 4) FROM (SELECT x FROM u INTERSECT ALL SELECT x FROM t) s",
        "SELECT extract(epoch FROM i) FROM (SELECT i FROM t INTERSECT ALL SELECT i FROM u) s",
        "SELECT f + 0 FROM (SELECT f FROM t EXCEPT ALL SELECT f FROM u) s",
        // Top-k per SQL-equal class (a correlated ORDER BY ... LIMIT).
        "SELECT round(x, 4), (SELECT id FROM t b WHERE b.x = a.x ORDER BY id LIMIT 1), \
         (SELECT id FROM t b WHERE b.x = a.x ORDER BY id DESC LIMIT 1 OFFSET 1) \
         FROM (SELECT DISTINCT x FROM t) a ORDER BY 1",
        // A recursive UNION stops at SQL-equal rows.
        "WITH RECURSIVE r(x) AS (VALUES (1.0), (1.00) UNION SELECT x * 1 FROM r) \
         SELECT count(*) FROM r",
    ] {
        s.check(q).await;
    }
}

/// What kpg shows for a merged class is one of the class's own texts, and it follows the class's
/// membership as rows come and go.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_merged_class_shows_one_of_its_members() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE m (id int, x numeric)").await;
    s.exec("INSERT INTO m VALUES (1, 3.00), (2, 3.0), (3, 4.10)")
        .await;
    let shown = |rows: Vec<Vec<Option<String>>>| -> Vec<String> {
        rows.into_iter()
            .map(|r| r[0].clone().expect("not null"))
            .collect()
    };
    s.create_view("mg", "SELECT x, count(*) AS n FROM m GROUP BY x")
        .await;
    s.create_view("md", "SELECT DISTINCT x FROM m").await;
    for (step, write, class) in [
        ("start", None, vec![1, 2]),
        ("add 3", Some("INSERT INTO m VALUES (4, 3)"), vec![1, 2, 4]),
        (
            "remove 3.00",
            Some("DELETE FROM m WHERE id = 1"),
            vec![2, 4],
        ),
        ("remove 3", Some("DELETE FROM m WHERE id = 4"), vec![2]),
        (
            "3.0 to 3.000",
            Some("UPDATE m SET x = 3.000 WHERE id = 2"),
            vec![2],
        ),
    ] {
        if let Some(w) = write {
            s.exec(w).await;
        }
        let list: Vec<String> = class.iter().map(i32::to_string).collect();
        let q = format!("SELECT x::text FROM m WHERE id IN ({})", list.join(","));
        let texts = shown(query(&s.pg, &q).await);
        for q in [
            "SELECT x FROM m GROUP BY x HAVING x = 3",
            "SELECT x FROM mg WHERE x = 3",
            "SELECT x FROM md WHERE x = 3",
            "SELECT x FROM (SELECT x FROM m UNION SELECT 3.0000) s WHERE x = 3",
        ] {
            let got = shown(query(&s.kpg, q).await);
            assert_eq!(got.len(), 1, "{step}: `{q}` gave {got:?}");
            let ok = texts.contains(&got[0]) || q.contains("3.0000") && got[0] == "3.0000";
            assert!(ok, "{step}: `{q}` shows {got:?}, not a member of {texts:?}");
        }
        let n = shown(query(&s.kpg, "SELECT n::text FROM mg WHERE x = 3").await);
        assert_eq!(
            n,
            vec![class.len().to_string()],
            "{step}: count of the class"
        );
        s.check("SELECT round(x, 2), n FROM mg").await;
    }
}

/// Unique keys and index lookups compare as SQL does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unique_keys_and_index_lookups_use_equality() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE k (x numeric PRIMARY KEY, v text)")
        .await;
    s.exec("INSERT INTO k VALUES (1.5, 'a'), (2, 'b')").await;
    for q in [
        "INSERT INTO k VALUES (1.50, 'c')",
        "INSERT INTO k VALUES (2.000, 'c')",
        "INSERT INTO k VALUES (7, 'c'), (7.0, 'd')",
        "UPDATE k SET x = 2.0 WHERE v = 'a'",
    ] {
        let (code, message) = s.check_error(q).await;
        assert_eq!(code, "23505", "{q}: {message}");
    }
    s.exec("UPDATE k SET x = 1.50 WHERE v = 'a'").await;
    s.exec("CREATE INDEX kv ON k (v)").await;
    s.exec("CREATE TABLE n (x numeric, w text)").await;
    s.exec("INSERT INTO n VALUES (1.5, 'p'), (1.500, 'q'), (2.0, 'r')")
        .await;
    s.exec("CREATE INDEX nx ON n (x)").await;
    for q in [
        "SELECT * FROM k",
        "SELECT * FROM k WHERE x = 1.5",
        "SELECT * FROM k WHERE x = 2.00000",
        "SELECT * FROM n WHERE x = 1.50",
        "SELECT * FROM n WHERE x = 2",
        "SELECT k.v, n.w, k.x, n.x FROM k JOIN n ON k.x = n.x",
    ] {
        s.check(q).await;
    }
}

/// Materialized views over such values keep each row's text through inserts, updates that only
/// change the text, and deletes that pick rows by their text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_keep_texts_through_writes() {
    let (_kpg, _pg, s) = setup().await;
    s.create_view("vt", "SELECT id, x, i, f FROM t WHERE id < 7")
        .await;
    s.create_view(
        "vj",
        "SELECT a.id, a.x AS ax, b.x AS bx FROM t a JOIN u b ON a.x = b.x",
    )
    .await;
    s.create_view(
        "vo",
        "SELECT a.id, a.x AS ax, b.x AS bx FROM t a FULL JOIN u b ON a.x::text = b.x::text",
    )
    .await;
    s.create_view(
        "vg",
        "SELECT round(x, 3) AS x, n FROM (SELECT x, count(*) AS n FROM t GROUP BY x) g",
    )
    .await;
    s.create_view("vu", "SELECT x FROM t UNION ALL SELECT x FROM u")
        .await;
    s.create_view("vk", "SELECT id, x FROM t ORDER BY x, id LIMIT 3")
        .await;
    let views = ["vt", "vj", "vo", "vg", "vu", "vk"];
    for w in [
        "INSERT INTO t VALUES (9, 1.50, '1 day', '-0'), (10, 3, '30 days', 0)",
        "UPDATE t SET x = x * 1.0 WHERE id IN (1, 4)",
        "DELETE FROM t WHERE x::text = '1.50'",
        "UPDATE u SET x = 1.5000 WHERE x = 1.5",
        "DELETE FROM t WHERE f::text = '-0'",
        "INSERT INTO u VALUES (1.5, '1 day', 0)",
    ] {
        s.exec(w).await;
        for v in views {
            s.check_view(v).await;
        }
    }
}
