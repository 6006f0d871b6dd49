//! WITH RECURSIVE against PostgreSQL: counters (UNION ALL), graph reachability and transitive
//! closure over a graph with cycles (UNION), bounded path enumeration (UNION ALL, where
//! multiplicities matter), ad hoc and as materialized views maintained while edges are
//! inserted and deleted (deleting an edge of a cycle must retract everything it supported).
//! Refused shapes report PostgreSQL's SQLSTATE where PostgreSQL refuses them too.

use kpg_tests::*;

async fn setup() -> (KpgServer, Postgres, Pair) {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    s.exec("CREATE TABLE edges (src int4, dst int4)").await;
    s.exec("CREATE TABLE nodes (id int4, label text)").await;
    // Two cycles (1 -> 2 -> 3 -> 1, 5 <-> 6), a tail (3 -> 4) and an isolated node 7.
    s.exec("INSERT INTO edges VALUES (1, 2), (2, 3), (3, 1), (3, 4), (5, 6), (6, 5)")
        .await;
    s.exec("INSERT INTO nodes VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e'), (6, 'f'), (7, 'g')")
        .await;
    (kpg, pg, s)
}

const COUNTER: &str =
    "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100) SELECT n FROM c";
const REACH: &str = "WITH RECURSIVE reach(node) AS (SELECT 1 UNION \
                     SELECT e.dst FROM reach r JOIN edges e ON e.src = r.node) SELECT node FROM reach";
const CLOSURE: &str = "WITH RECURSIVE tc(src, dst) AS (SELECT src, dst FROM edges UNION \
                       SELECT tc.src, e.dst FROM tc JOIN edges e ON tc.dst = e.src) SELECT src, dst FROM tc";
/// Every walk of up to four edges, once per walk (multiplicities count).
const WALKS: &str = "WITH RECURSIVE w(src, dst, len) AS (SELECT src, dst, 1 FROM edges UNION ALL \
                     SELECT w.src, e.dst, w.len + 1 FROM w JOIN edges e ON w.dst = e.src WHERE w.len < 4) \
                     SELECT src, dst, len FROM w";
/// Labels of what node 1 reaches: the recursion joined with another table, and aggregated.
const LABELS: &str = "WITH RECURSIVE reach(node, hops) AS (SELECT 1, 0 UNION \
                      SELECT e.dst, r.hops + 1 FROM reach r JOIN edges e ON e.src = r.node WHERE r.hops < 6) \
                      SELECT n.label, min(r.hops) AS hops FROM reach r JOIN nodes n ON n.id = r.node GROUP BY n.label";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ad_hoc_recursive_queries() {
    let (_kpg, _pg, s) = setup().await;
    for q in [
        COUNTER,
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100) \
         SELECT count(*), sum(n), min(n), max(n) FROM c",
        // Column names from the non-recursive term; a text column grows.
        "WITH RECURSIVE s AS (SELECT 1 AS i, 'x'::text AS str UNION ALL \
         SELECT i + 1, str || 'y' FROM s WHERE i < 5) SELECT * FROM s",
        // UNION over a recursion that revisits rows stops; it also deduplicates the base.
        "WITH RECURSIVE m(n) AS (VALUES (0), (0), (3) UNION SELECT (n + 1) % 4 FROM m) SELECT n FROM m",
        REACH,
        CLOSURE,
        WALKS,
        LABELS,
        // The recursion in a FROM subquery, filtered and joined afterwards.
        "SELECT n.label FROM nodes n WHERE n.id IN (WITH RECURSIVE reach(node) AS \
         (SELECT 5 UNION SELECT e.dst FROM reach r JOIN edges e ON e.src = r.node) SELECT node FROM reach)",
        // A step that joins a filtered table (planned outside the loop).
        "WITH RECURSIVE reach(node) AS (SELECT 1 UNION SELECT e.dst FROM reach r \
         JOIN (SELECT * FROM edges WHERE dst <> 4) e ON e.src = r.node) SELECT node FROM reach",
    ] {
        s.check(q).await;
    }
    for q in [
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT count(*) FROM r) SELECT * FROM r",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT a.n FROM r a, r b) SELECT * FROM r",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n::int8 + 1 FROM r WHERE n < 3) SELECT * FROM r",
    ] {
        s.check_error(q).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recursive_views_follow_edge_changes() {
    let (_kpg, _pg, s) = setup().await;
    let views = [
        ("reach", REACH),
        ("closure", CLOSURE),
        ("walks", WALKS),
        ("labels", LABELS),
        ("counter", COUNTER),
    ];
    for (name, q) in views {
        s.create_view(name, q).await;
    }
    let batches: &[&str] = &[
        "INSERT INTO edges VALUES (4, 5)",
        // Breaking the 1 -> 2 -> 3 -> 1 cycle: 1 no longer reaches anything but via other paths.
        "DELETE FROM edges WHERE src = 1 AND dst = 2",
        "INSERT INTO edges VALUES (1, 3), (7, 7)",
        "DELETE FROM edges WHERE src = 3",
        "INSERT INTO edges VALUES (3, 1), (3, 4), (1, 2), (2, 3)",
        // A duplicate edge doubles walks but not reachability.
        "INSERT INTO edges VALUES (1, 2)",
        "UPDATE nodes SET label = upper(label) WHERE id % 2 = 0",
        "DELETE FROM edges",
        "INSERT INTO edges VALUES (1, 1), (1, 6), (6, 5), (5, 4)",
    ];
    for (name, _) in views {
        s.check_view(name).await;
    }
    for stmt in batches {
        s.exec(stmt).await;
        for (name, _) in views {
            s.check_view(name).await;
        }
    }
}
