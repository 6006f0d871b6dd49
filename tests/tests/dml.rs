//! Issue 2: INSERT ... VALUES (multi-row), INSERT ... SELECT, UPDATE ... WHERE,
//! DELETE ... WHERE, and ad hoc SELECTs over tables (WHERE, projection, expressions,
//! join, GROUP BY, ORDER BY / LIMIT). Each statement runs on kpg and on PostgreSQL; row
//! counts (CommandComplete) and results must agree.

use kpg_tests::*;

const ITEMS: &str = "CREATE TABLE items (id int4, name text, price numeric(8,2), qty int8, \
                     active boolean, added date)";
const ITEM_ROWS: &str = "INSERT INTO items VALUES \
    (1, 'apple', 1.25, 10, true, '2024-01-01'), \
    (2, 'banana', 0.5, 3, true, '2024-01-02'), \
    (3, 'cherry', 12, 0, false, '2024-01-03'), \
    (4, 'date', 7.99, 25, true, '2024-02-01'), \
    (5, 'elderberry', 3.333, 5, false, '2024-02-15'), \
    (6, 'fig', NULL, NULL, NULL, NULL)";

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec(ITEMS).await;
    s.exec(ITEM_ROWS).await;
    (kpg, pg, s)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_row_insert() {
    let (_kpg, _pg, s) = setup().await;
    s.check("SELECT * FROM items").await;
    // Single row, column list in another order, omitted columns become NULL.
    s.exec("INSERT INTO items VALUES (7, 'grape', 2, 1, true, '2024-03-01')")
        .await;
    s.exec("INSERT INTO items (name, id) VALUES ('honeydew', 8), ('kiwi', 9)")
        .await;
    s.exec("INSERT INTO items (id, qty, price) VALUES (10, 100, 0.01), (11, 200, 0.02), (12, 300, 0.03)").await;
    // Duplicate rows are kept (tables are multisets).
    s.exec("INSERT INTO items VALUES (1, 'apple', 1.25, 10, true, '2024-01-01')")
        .await;
    s.check("SELECT * FROM items").await;
    s.check("SELECT id, name FROM items ORDER BY id, name")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insert_select() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE TABLE cheap (id int4, name text, price numeric(8,2))")
        .await;
    s.exec("INSERT INTO cheap SELECT id, name, price FROM items WHERE price < 5")
        .await;
    s.check("SELECT * FROM cheap").await;
    // With a column list and expressions.
    s.exec("INSERT INTO cheap (name, id, price) SELECT name, id + 100, price * 2 FROM items WHERE active").await;
    s.check("SELECT * FROM cheap").await;
    // Into the table it reads from: reads the state before the statement.
    s.exec("INSERT INTO items SELECT * FROM items WHERE qty > 4")
        .await;
    s.check("SELECT * FROM items").await;
    // A SELECT that matches nothing inserts 0 rows.
    s.exec("INSERT INTO cheap SELECT id, name, price FROM items WHERE id < 0")
        .await;
    s.check("SELECT * FROM cheap").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn update_where() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("UPDATE items SET price = price * 2 WHERE qty > 4")
        .await;
    s.check("SELECT * FROM items").await;
    s.exec("UPDATE items SET name = 'DATE', active = false, qty = qty + 1 WHERE id = 4")
        .await;
    s.check("SELECT * FROM items").await;
    s.exec("UPDATE items SET added = '2025-01-01' WHERE added < '2024-02-01'")
        .await;
    s.check("SELECT * FROM items").await;
    s.exec("UPDATE items SET price = NULL WHERE name = 'banana'")
        .await;
    s.check("SELECT * FROM items").await;
    // No match: UPDATE 0.
    s.exec("UPDATE items SET qty = 0 WHERE id > 1000").await;
    // Every row.
    s.exec("UPDATE items SET qty = 1").await;
    s.check("SELECT * FROM items").await;
    // Duplicate rows are both updated.
    s.exec("INSERT INTO items VALUES (1, 'apple', 1.25, 10, true, '2024-01-01')")
        .await;
    s.exec("UPDATE items SET qty = 2 WHERE id = 1").await;
    s.check("SELECT * FROM items").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_where() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("DELETE FROM items WHERE qty < 5").await;
    s.check("SELECT * FROM items").await;
    s.exec("DELETE FROM items WHERE name = 'nothing'").await;
    s.exec("DELETE FROM items WHERE price IS NULL").await;
    s.check("SELECT * FROM items").await;
    s.exec("DELETE FROM items").await;
    s.check("SELECT * FROM items").await;
    s.exec(ITEM_ROWS).await;
    s.check("SELECT * FROM items").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adhoc_select_over_tables() {
    let (_kpg, _pg, s) = setup().await;
    s.exec("CREATE TABLE stock (item_id int4, warehouse text, units int4)")
        .await;
    s.exec(
        "INSERT INTO stock VALUES (1, 'north', 5), (1, 'south', 7), (2, 'north', 1), \
         (4, 'south', 12), (99, 'north', 3)",
    )
    .await;
    for q in [
        "SELECT name, price FROM items WHERE active",
        "SELECT id, price * qty AS value, qty > 4 AS many FROM items WHERE price IS NOT NULL",
        "SELECT name FROM items WHERE price > 1 AND (qty < 10 OR NOT active)",
        "SELECT * FROM items ORDER BY price DESC, id",
        "SELECT id, name FROM items ORDER BY id DESC LIMIT 3",
        "SELECT id FROM items ORDER BY added, id LIMIT 2",
        "SELECT i.name, s.warehouse, s.units FROM items i JOIN stock s ON i.id = s.item_id",
        "SELECT items.name, stock.units FROM items, stock WHERE items.id = stock.item_id AND stock.units > 4",
        "SELECT warehouse, count(*), sum(units), min(units), max(units) FROM stock GROUP BY warehouse",
        "SELECT active, count(*) AS n, sum(qty) AS q, min(price) AS lo, max(added) AS last FROM items GROUP BY active",
        "SELECT s.warehouse, sum(i.price * s.units) AS value FROM items i JOIN stock s ON i.id = s.item_id \
         GROUP BY s.warehouse ORDER BY s.warehouse",
    ] {
        s.check(q).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adhoc_global_aggregates() {
    // Aggregates without GROUP BY return exactly one row, also over an empty input.
    let (_kpg, _pg, s) = setup().await;
    s.check("SELECT count(*), sum(qty), min(price), max(name) FROM items")
        .await;
    s.check("SELECT count(*), sum(qty), min(price), max(name) FROM items WHERE id < 0")
        .await;
}
