//! `SELECT DISTINCT ON (exprs)`: the first row of each group in ORDER BY order, planned as a
//! per-group top-1 (`Plan::TopK`), ad hoc and maintained in materialized views through writes,
//! compared with PostgreSQL. Every ORDER BY here decides between the rows of a group (it ends
//! with a unique column), so PostgreSQL's answer is the only right one.

use kpg_tests::*;

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE orders (id int, customer int, amount numeric(10,2), placed date)")
        .await;
    s.exec(
        "INSERT INTO orders VALUES (1, 1, 12.50, '2024-01-05'), (2, 1, 100.00, '2024-01-20'), \
         (3, 2, 7.25, '2024-02-01'), (4, 3, 0.99, '2024-02-10'), (5, NULL, 55.10, '2024-03-01'), \
         (6, 2, NULL, '2024-03-03'), (7, 1, 40.00, NULL), (8, NULL, 5.00, '2024-03-09')",
    )
    .await;
    s.exec("CREATE TABLE customers (id int, name text, region text)")
        .await;
    s.exec(
        "INSERT INTO customers VALUES (1, 'Ada', 'EU'), (2, 'Grace', 'US'), (3, 'Edsger', 'EU'), \
         (4, 'Alan', NULL)",
    )
    .await;
    (kpg, pg, s)
}

const QUERIES: &[&str] = &[
    // The latest order of each customer (NULL customers form one group, as in PostgreSQL).
    "SELECT DISTINCT ON (customer) customer, id, amount FROM orders ORDER BY customer, placed DESC NULLS LAST, id",
    "SELECT DISTINCT ON (customer) id FROM orders ORDER BY customer, amount NULLS FIRST, id",
    // By an expression not in the select list, and by two columns in another order.
    "SELECT DISTINCT ON (amount > 10) id, amount FROM orders ORDER BY amount > 10, id DESC",
    "SELECT DISTINCT ON (c.region, o.customer) c.region, o.customer, o.id \
     FROM orders o JOIN customers c ON c.id = o.customer ORDER BY o.customer, c.region, o.amount DESC, o.id",
    // By output position and output name.
    "SELECT DISTINCT ON (1) customer AS who, id FROM orders ORDER BY 1, id",
    "SELECT DISTINCT ON (who) customer AS who, id FROM orders ORDER BY who, id DESC",
    // Over a grouping, and without ORDER BY beyond the keys (one row per customer).
    "SELECT DISTINCT ON (n) count(*) AS n, customer FROM orders GROUP BY customer ORDER BY n, customer NULLS FIRST",
    "SELECT DISTINCT ON (customer) customer FROM orders",
    // Inside a derived table and a correlated subquery.
    "SELECT k.customer, k.id FROM (SELECT DISTINCT ON (customer) customer, id FROM orders \
     ORDER BY customer, id DESC) k WHERE k.id > 2 ORDER BY k.id",
    "SELECT c.name, (SELECT id FROM (SELECT DISTINCT ON (o.placed IS NULL) o.id FROM orders o \
     WHERE o.customer = c.id ORDER BY o.placed IS NULL, o.id DESC) k ORDER BY id LIMIT 1) FROM customers c \
     ORDER BY c.name",
    // A key with a subquery, written again in DISTINCT ON and as a position in ORDER BY: the
    // same select item (kpg bound it twice and found the two different, 42P10).
    "SELECT DISTINCT ON ((SELECT max(id) FROM customers) - id) (SELECT max(id) FROM customers) - id AS d, \
     amount FROM orders ORDER BY 1, 2",
    "SELECT DISTINCT ON (customer) customer, (SELECT count(*) FROM customers) AS n FROM orders \
     ORDER BY customer, (SELECT count(*) FROM customers)",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn distinct_on_ad_hoc_and_through_writes() {
    let (_kpg, _pg, s) = setup().await;
    // With ORDER BY the rows come in order, as in PostgreSQL.
    s.check_in_order(QUERIES[0]).await;
    s.check_through_writes(
        QUERIES,
        "don",
        &[
            // A new latest order for customer 1, a first one for customer 4.
            "INSERT INTO orders VALUES (9, 1, 1.00, '2024-04-01'), (10, 4, 3.00, '2024-04-02')",
            // The current first rows of two groups go; the next ones take their place.
            "DELETE FROM orders WHERE id IN (9, 3)",
            "UPDATE orders SET customer = 3 WHERE id = 6",
            "UPDATE customers SET region = 'US' WHERE id = 1",
            "DELETE FROM orders WHERE customer IS NULL",
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn distinct_on_errors_as_postgres() {
    let (_kpg, _pg, s) = setup().await;
    for e in [
        "SELECT DISTINCT ON (customer) id FROM orders ORDER BY id",
        "SELECT DISTINCT ON (customer, amount) id FROM orders ORDER BY customer, id, amount",
        "SELECT DISTINCT ON (nope) id FROM orders",
        "SELECT DISTINCT ON (3) id, customer FROM orders",
        "SELECT DISTINCT ON (customer) amount FROM orders GROUP BY customer",
    ] {
        s.check_error(e).await;
    }
    s.check("SELECT 1").await;
}
