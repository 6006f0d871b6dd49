//! The built-in demo: a few tables and a materialized view to explore with psql.

use std::sync::Arc;

use crate::coord::Coordinator;

const DEMO_SQL: &str = "
CREATE TABLE demo_customers (id int NOT NULL, name text NOT NULL, region text);
CREATE TABLE demo_orders (id int NOT NULL, customer_id int NOT NULL, amount numeric(10,2), ordered_on date);
INSERT INTO demo_customers VALUES (1, 'Ada', 'north'), (2, 'Brian', 'south'), (3, 'Chen', 'north');
INSERT INTO demo_orders VALUES (1, 1, 12.50, '2026-11-01'), (2, 1, 7.25, '2026-11-02'), (3, 2, 30.00, '2026-11-02'), (4, 3, 5.00, '2026-11-03');
CREATE MATERIALIZED VIEW demo_revenue AS
    SELECT c.region, count(*) AS orders, sum(o.amount) AS revenue
    FROM demo_orders o JOIN demo_customers c ON o.customer_id = c.id
    GROUP BY c.region;
";

pub async fn install(coord: &Arc<Coordinator>) -> anyhow::Result<()> {
    for stmt in kpg_sql::parse(DEMO_SQL).map_err(|e| anyhow::anyhow!("{e}"))? {
        coord
            .execute(&stmt)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    Ok(())
}
