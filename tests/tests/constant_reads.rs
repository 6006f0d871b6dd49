//! A SELECT of rows the planner computed (`SELECT 1`, what connection pools send to check a
//! connection) is answered by the coordinator, not by the compute workers: it answers while
//! the workers are busy. The workers are held busy by the fail point in their `CreateTable`
//! set to sleep (`FAILPOINTS`, the `fail` crate); a read of the new table waits for them.

use std::time::Duration;

use kpg_tests::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn constant_selects_answer_while_the_workers_are_busy() {
    // Read by the kpg process started here, once. The only test of this file, so no other
    // test sees the variable.
    std::env::set_var("FAILPOINTS", "compute-create-table=sleep(4000)");
    let kpg = KpgServer::start_with_workers(1).await;
    std::env::remove_var("FAILPOINTS");
    let c = kpg.connect().await;
    execute(&c, "CREATE TABLE t (a int)").await;
    // The worker sleeps in the table's creation; a read of it waits for the worker.
    let reader = kpg.connect().await;
    let waiting = tokio::spawn(async move { query(&reader, "SELECT count(*) FROM t").await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!waiting.is_finished(), "the workers were not busy");
    assert_eq!(query(&c, "SELECT 1").await, rows(&[&["1"]]));
    assert_eq!(
        query(&c, "VALUES (2, 'b'), (1, 'a'), (2, 'b')").await,
        rows(&[&["1", "a"], &["2", "b"], &["2", "b"]])
    );
    assert!(
        !waiting.is_finished(),
        "the constant reads waited for the workers"
    );
    // The read of the table answers once the worker is done; so do reads that need it.
    assert_eq!(waiting.await.unwrap(), rows(&[&["0"]]));
    assert_eq!(query(&c, "SELECT 1 FROM t").await, rows(&[]));
}
