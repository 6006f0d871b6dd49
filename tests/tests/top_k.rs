//! Top-k: ORDER BY ... LIMIT/OFFSET inside materialized views, FROM subqueries, WITH queries
//! and subqueries in expressions (correlated ones take the top rows per outer row), maintained
//! incrementally and compared with PostgreSQL after every batch of writes. Every ORDER BY here
//! ends with a unique column, so the rows PostgreSQL returns are the only right answer.

use kpg_tests::*;

const SCHEMA: &[&str] = &[
    "CREATE TABLE customers (id int4, name text, region text)",
    "CREATE TABLE orders (id int4, customer_id int4, amount numeric(10,2), qty int4, placed date)",
    "INSERT INTO customers VALUES (1, 'Ada', 'EU'), (2, 'Grace', 'US'), (3, 'Edsger', 'EU'), \
     (4, 'Barbara', 'US'), (5, 'Alan', NULL)",
    "INSERT INTO orders VALUES \
     (10, 1, 12.50, 3, '2024-01-05'), (11, 1, 100.00, 1, '2024-01-20'), \
     (12, 2, 7.25, 10, '2024-02-01'), (13, 3, 0.99, 2, '2024-02-10'), \
     (14, 4, 55.10, 6, '2024-03-01'), (15, 9, 5.00, 1, NULL), \
     (16, 2, NULL, 3, '2024-03-03'), (17, 1, 40.00, 3, '2024-03-04')",
];

/// Writes that move rows into, out of and within the top rows: larger and smaller amounts,
/// NULL amounts, deletes of the current first row, updates of the order column, duplicates.
const BATCHES: &[&[&str]] = &[
    &["INSERT INTO orders VALUES (20, 3, 500.00, 1, '2024-04-01'), (21, 2, 0.01, 7, '2024-04-02')"],
    &["DELETE FROM orders WHERE id = 20"],
    &["UPDATE orders SET amount = amount * 3 WHERE customer_id = 2"],
    &["INSERT INTO orders VALUES (22, 4, NULL, 3, NULL), (23, 5, 60.00, 3, '2024-01-01')"],
    &["UPDATE orders SET amount = 1000.00 WHERE id = 13"],
    &["DELETE FROM orders WHERE amount > 50"],
    &["INSERT INTO orders VALUES (24, 1, 12.50, 3, '2024-01-05'), (25, 1, 12.50, 3, '2024-01-05')"],
    &["DELETE FROM customers WHERE id = 1"],
    &["DELETE FROM orders"],
    &["INSERT INTO orders VALUES (30, 2, 3.00, 2, '2024-05-01'), (31, 4, 4.00, 3, '2024-05-02')"],
];

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    for stmt in SCHEMA {
        s.exec(stmt).await;
    }
    (kpg, pg, s)
}

/// Creates the views, then compares each with PostgreSQL (and the ad hoc queries) after
/// creation and after every batch.
async fn maintain(s: &Pair, views: &[(&str, &str)], adhoc: &[&str]) {
    for (name, q) in views {
        s.create_view(name, q).await;
    }
    let check_all = || async {
        for (name, _) in views {
            s.check_view(name).await;
        }
        for q in adhoc {
            s.check(q).await;
        }
    };
    check_all().await;
    for batch in BATCHES {
        for stmt in *batch {
            s.exec(stmt).await;
        }
        check_all().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_keep_the_first_rows() {
    let (_kpg, _pg, s) = setup().await;
    maintain(
        &s,
        &[
            (
                "biggest",
                "SELECT id, amount FROM orders ORDER BY amount DESC, id LIMIT 3",
            ),
            // NULLs sort first for DESC and last for ASC, unless told otherwise.
            (
                "smallest_nulls_first",
                "SELECT id, amount FROM orders ORDER BY amount NULLS FIRST, id LIMIT 4",
            ),
            (
                "desc_nulls_last_offset",
                "SELECT id, placed FROM orders ORDER BY placed DESC NULLS LAST, id LIMIT 3 OFFSET 2",
            ),
            ("offset_only", "SELECT id FROM orders ORDER BY id OFFSET 3"),
            // Equal rows count as copies.
            ("qtys", "SELECT qty FROM orders ORDER BY qty LIMIT 5"),
            (
                "hidden_order_column",
                "SELECT id FROM orders ORDER BY amount * qty DESC NULLS LAST, id LIMIT 2",
            ),
            (
                "grouped",
                "SELECT customer_id, sum(amount) AS total FROM orders GROUP BY customer_id \
                 ORDER BY total DESC NULLS LAST, customer_id LIMIT 2",
            ),
            (
                "union_limit",
                "SELECT id FROM orders UNION SELECT id * 10 FROM customers ORDER BY 1 DESC LIMIT 4",
            ),
            ("zero", "SELECT id FROM orders ORDER BY id LIMIT 0"),
        ],
        &[],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_in_subqueries_and_ctes() {
    let (_kpg, _pg, s) = setup().await;
    // INSERT ... SELECT with ORDER BY ... LIMIT inserts the top rows only.
    s.exec("CREATE TABLE snapshot (id int4, amount numeric(10,2))")
        .await;
    s.exec("INSERT INTO snapshot SELECT id, amount FROM orders ORDER BY amount DESC NULLS LAST, id LIMIT 3")
        .await;
    maintain(
        &s,
        &[
            (
                "recent_total",
                "SELECT count(*) AS n, sum(amount) AS total FROM \
                 (SELECT amount FROM orders ORDER BY placed DESC NULLS LAST, id LIMIT 4 OFFSET 1) s",
            ),
            (
                "top_customers",
                "WITH top AS (SELECT customer_id FROM orders ORDER BY amount DESC NULLS LAST, id LIMIT 3) \
                 SELECT c.name FROM customers c JOIN top ON c.id = top.customer_id",
            ),
            (
                "in_top",
                "SELECT name FROM customers WHERE id IN \
                 (SELECT customer_id FROM orders ORDER BY qty DESC, id LIMIT 2)",
            ),
        ],
        &[
            "SELECT * FROM snapshot",
            "SELECT (SELECT id FROM orders ORDER BY amount NULLS FIRST, id LIMIT 1) AS first_id",
            "SELECT * FROM (SELECT id, qty FROM orders ORDER BY qty, id LIMIT 3) s WHERE qty > 1",
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn correlated_limits_are_per_outer_row() {
    let (_kpg, _pg, s) = setup().await;
    maintain(
        &s,
        &[
            // Each customer's largest order.
            (
                "largest_order",
                "SELECT c.id, c.name, (SELECT o.id FROM orders o WHERE o.customer_id = c.id \
                 ORDER BY o.amount DESC NULLS LAST, o.id LIMIT 1) AS order_id FROM customers c",
            ),
            // Each customer's two most recent orders.
            (
                "two_recent",
                "SELECT o.customer_id, o.id FROM orders o WHERE o.id IN \
                 (SELECT o2.id FROM orders o2 WHERE o2.customer_id = o.customer_id \
                  ORDER BY o2.placed DESC NULLS LAST, o2.id DESC LIMIT 2)",
            ),
            // Customers with a second order.
            (
                "repeat_customers",
                "SELECT c.name FROM customers c WHERE EXISTS \
                 (SELECT 1 FROM orders o WHERE o.customer_id = c.id ORDER BY o.id OFFSET 1)",
            ),
        ],
        &[],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_rows_one_group() {
    // A whole-query LIMIT over a few thousand rows, changed in batches (the bucketed first stage).
    let (_kpg, _pg, s) = setup().await;
    s.create_view(
        "top5",
        "SELECT id, amount, qty FROM orders ORDER BY amount DESC NULLS LAST, qty, id LIMIT 5 OFFSET 2",
    )
    .await;
    for chunk in 0..4 {
        let rows: Vec<String> = (0..500)
            .map(|j| {
                let id = 1000 + chunk * 500 + j;
                format!(
                    "({id}, {}, {}.{:02}, {}, NULL)",
                    id % 7,
                    (id * 37) % 1000,
                    id % 100,
                    id % 11
                )
            })
            .collect();
        s.exec(&format!("INSERT INTO orders VALUES {}", rows.join(", ")))
            .await;
        s.check_view("top5").await;
    }
    for stmt in [
        "DELETE FROM orders WHERE amount > 990",
        "UPDATE orders SET amount = amount + 5 WHERE qty = 3",
        "DELETE FROM orders WHERE id % 2 = 0",
    ] {
        s.exec(stmt).await;
        s.check_view("top5").await;
    }
}
