//! PostgreSQL's settings that steer only its planner or storage (`enable_*`, `work_mem`,
//! `jit`, ...), against PostgreSQL 15: shown with its defaults and spellings, set with its
//! checks and messages (SET, SET LOCAL, RESET), and changing no result.

use kpg_tests::*;

const NAMES: &[&str] = &[
    "default_statistics_target",
    "enable_async_append",
    "enable_bitmapscan",
    "enable_gathermerge",
    "enable_hashagg",
    "enable_hashjoin",
    "enable_incremental_sort",
    "enable_indexonlyscan",
    "enable_indexscan",
    "enable_material",
    "enable_memoize",
    "enable_mergejoin",
    "enable_nestloop",
    "enable_parallel_append",
    "enable_parallel_hash",
    "enable_partition_pruning",
    "enable_partitionwise_aggregate",
    "enable_partitionwise_join",
    "enable_seqscan",
    "enable_sort",
    "enable_tidscan",
    "from_collapse_limit",
    "geqo",
    "geqo_threshold",
    "jit",
    "join_collapse_limit",
    "maintenance_work_mem",
    "max_parallel_workers_per_gather",
    "work_mem",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accepted_and_shown_as_postgres() {
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let s = Pair::new(&kpg, &pg).await;
    for name in NAMES {
        s.check(&format!("SHOW {name}")).await;
    }
    s.exec("CREATE TABLE a (k int, v int)").await;
    s.exec("CREATE TABLE b (k int, w int)").await;
    s.exec("INSERT INTO a SELECT g, g % 7 FROM generate_series(1, 200) g")
        .await;
    s.exec("INSERT INTO b SELECT g, g % 5 FROM generate_series(1, 200, 3) g")
        .await;
    let query = "SELECT a.v, count(*), sum(b.w) FROM a JOIN b ON a.k = b.k GROUP BY a.v";
    for set in [
        "SET enable_hashjoin = off",
        "SET enable_seqscan TO false",
        "SET ENABLE_SORT = 'no'",
        "SET jit = off",
        "SET geqo = 0",
        "SET work_mem = '64MB'",
        "SET work_mem = 1000",
        "SET work_mem = '2GB'",
        "SET work_mem = '1.5MB'",
        "SET work_mem TO DEFAULT",
        "SET maintenance_work_mem = '1GB'",
        "SET max_parallel_workers_per_gather = 0",
        "SET join_collapse_limit = 1",
        "SET default_statistics_target = 2.5",
    ] {
        s.exec(set).await;
        let name = set.split_whitespace().nth(1).unwrap().to_lowercase();
        s.check(&format!("SHOW {name}")).await;
        s.check(query).await;
    }
    s.exec("RESET ALL").await;
    for name in NAMES {
        s.check(&format!("SHOW {name}")).await;
    }
    s.exec("BEGIN").await;
    s.exec("SET LOCAL enable_nestloop = off").await;
    s.check("SHOW enable_nestloop").await;
    s.exec("COMMIT").await;
    s.check("SHOW enable_nestloop").await;
    for bad in [
        "SET enable_seqscan = maybe",
        "SET work_mem = '10'",
        "SET work_mem = '8 mb'",
        "SET work_mem = 'lots'",
        "SET max_parallel_workers_per_gather = -1",
        "SET geqo_threshold = 'x'",
        "SET enable_everything = on",
    ] {
        s.check_error(bad).await;
    }
    s.check(query).await;
}
