//! JOIN ... USING and NATURAL JOIN against PostgreSQL: output columns (merged columns first,
//! named once; for FULL JOIN the COALESCE of both sides), qualified references to each side's
//! own column, `t.*`, chains of USING joins, type conversion of the join columns, errors, and
//! a materialized view over a USING join maintained through writes.

use kpg_tests::*;

async fn setup() -> (KpgServer, Postgres, Pair) {
    Pair::start(&[
        "CREATE TABLE a (id int4, x int4, name text)",
        "CREATE TABLE b (name text, id int4, y numeric(6,2))",
        "CREATE TABLE c (id int8, z text)",
        "CREATE TABLE d (only_d int4)",
        "INSERT INTO a VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 30, NULL), (NULL, 40, 'four'), (5, 50, 'five')",
        "INSERT INTO b VALUES ('one', 1, 1.50), ('deux', 2, 2.25), (NULL, 3, 3.00), ('six', 6, 6.60), ('nil', NULL, 0.00)",
        "INSERT INTO c VALUES (1, 'c1'), (2, 'c2'), (6, 'c6'), (7, 'c7')",
        "INSERT INTO d VALUES (1), (2)",
    ])
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn using_and_natural_columns_match_postgres() {
    let (_kpg, _pg, s) = setup().await;
    for q in [
        "SELECT * FROM a JOIN b USING (id)",
        "SELECT * FROM a INNER JOIN b USING (id, name)",
        "SELECT * FROM a LEFT JOIN b USING (id)",
        "SELECT * FROM a RIGHT JOIN b USING (id)",
        "SELECT * FROM a FULL JOIN b USING (id)",
        "SELECT id, a.id AS a_id, b.id AS b_id FROM a FULL JOIN b USING (id)",
        "SELECT id, a.id AS a_id, b.id AS b_id FROM a RIGHT JOIN b USING (id)",
        "SELECT * FROM a NATURAL JOIN b",
        "SELECT * FROM a NATURAL LEFT JOIN b",
        "SELECT * FROM a NATURAL FULL JOIN b",
        // No common columns: a cross join.
        "SELECT * FROM a NATURAL JOIN d",
        "SELECT a.*, b.* FROM a JOIN b USING (id)",
        "SELECT b.*, x FROM a JOIN b USING (id, name)",
        // int4 with int8: the merged column is bigint.
        "SELECT * FROM a JOIN c USING (id)",
        "SELECT * FROM a FULL JOIN c USING (id)",
        // Chains: the second USING reads the first's merged column.
        "SELECT * FROM a JOIN b USING (id) JOIN c USING (id)",
        "SELECT * FROM a LEFT JOIN b USING (id) FULL JOIN c USING (id)",
        "SELECT * FROM (a JOIN b USING (id)) JOIN c USING (id)",
        // Merged columns in WHERE, GROUP BY, ORDER BY, and beside other FROM items.
        "SELECT id, count(*) FROM a FULL JOIN b USING (id) WHERE id IS NOT NULL GROUP BY id",
        "SELECT id, x, y FROM a JOIN b USING (id) ORDER BY id DESC",
        "SELECT d.only_d, id FROM d, a JOIN c USING (id) WHERE d.only_d = id",
        "SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b JOIN c USING (id) WHERE id = a.id)",
    ] {
        s.check(q).await;
    }
    for q in [
        "SELECT * FROM a JOIN b USING (nope)",
        "SELECT * FROM a JOIN b USING (id, id)",
        "SELECT name FROM a JOIN b USING (id)",
        "SELECT * FROM a JOIN b USING (x)",
        "SELECT * FROM a JOIN c USING (id, z)",
        "SELECT * FROM a JOIN b USING (id) JOIN a AS b2 USING (name, nope)",
        "SELECT * FROM a JOIN a USING (id)",
        "SELECT * FROM a LEFT JOIN b ON true JOIN a ON true",
    ] {
        s.check_error(q).await;
    }
}

/// An inner join's merged column is the side whose value needs no conversion to the common
/// type (PostgreSQL shows the numeric 1.0, not the integer 1 converted).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn merged_column_of_differing_types() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE j1 (k int, a text)").await;
    s.exec("CREATE TABLE j2 (k numeric, b text)").await;
    s.exec("INSERT INTO j1 VALUES (1, 'x'), (2, 'y')").await;
    s.exec("INSERT INTO j2 VALUES (1.0, 'p'), (2.50, 'q'), (2.00, 'r')")
        .await;
    for q in [
        "SELECT * FROM j1 JOIN j2 USING (k)",
        "SELECT * FROM j2 JOIN j1 USING (k)",
        "SELECT k, count(*) FROM j1 JOIN j2 USING (k) GROUP BY k",
        "SELECT * FROM j1 LEFT JOIN j2 USING (k)",
        "SELECT * FROM j1 RIGHT JOIN j2 USING (k)",
        "SELECT * FROM j1 FULL JOIN j2 USING (k)",
        "SELECT * FROM j1 NATURAL JOIN (SELECT k, b AS a FROM j2) n",
    ] {
        s.check(q).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn view_over_using_join() {
    let (_kpg, _pg, s) = setup().await;
    // (A view's column names must be unique: `*` here would have two `name` columns.)
    s.create_view(
        "ab",
        "SELECT *, a.name AS a_name FROM a FULL JOIN b USING (id, name)",
    )
    .await;
    s.create_view("ab_natural", "SELECT * FROM a NATURAL LEFT JOIN b")
        .await;
    for stmt in [
        "INSERT INTO b VALUES ('five', 5, 5.55)",
        "UPDATE a SET name = 'deux' WHERE id = 2",
        "DELETE FROM a WHERE id = 1",
        "INSERT INTO a VALUES (6, 60, 'six'), (NULL, 70, NULL)",
        "DELETE FROM b WHERE id IS NULL OR id = 3",
    ] {
        s.exec(stmt).await;
        s.check_view("ab").await;
        s.check_view("ab_natural").await;
    }
}
