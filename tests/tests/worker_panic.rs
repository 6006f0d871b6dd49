//! A compute worker that panics takes the process down (`server/src/fatal.rs`) instead of
//! leaving a server whose statements wait forever: with the fail point in the workers'
//! `CreateTable` set to panic (`FAILPOINTS`, the `fail` crate), a `CREATE TABLE` makes kpg exit
//! with status 70 and say why in its log, and a restart without the fail point has the table
//! the statement created (its DDL was durable before the workers saw it).

use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

use kpg_tests::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_panic_exits_kpg_and_a_restart_recovers() {
    // The variable is read by the kpg process started here, once; the restart runs without it.
    std::env::set_var("FAILPOINTS", "compute-create-table=panic");
    let mut kpg = KpgServer::start_with_workers(2).await;
    std::env::remove_var("FAILPOINTS");
    let c = kpg.connect().await;
    assert_eq!(query(&c, "SELECT 1").await, rows(&[&["1"]]));
    // Acknowledged once durable; the workers panic as they build its input.
    let created = simple(&c, "CREATE TABLE t (a int)").await.is_ok();
    let status = kpg
        .wait_exit(Duration::from_secs(20))
        .expect("kpg still runs 20 s after a worker panicked");
    assert_eq!(
        status.code(),
        Some(70),
        "{status:?}, signal {:?}",
        status.signal()
    );
    let log = kpg.stderr();
    assert!(
        log.contains("a compute worker panicked"),
        "{}",
        kpg.log_tail(40)
    );
    // Nothing hangs on the dead server: a statement on the old connection fails.
    assert!(simple(&c, "SELECT 1").await.is_err());
    kpg.restart().await;
    let c = kpg.connect().await;
    if created {
        execute(&c, "INSERT INTO t VALUES (1), (2)").await;
        assert_eq!(query(&c, "SELECT sum(a) FROM t").await, rows(&[&["3"]]));
    }
    assert_eq!(query(&c, "SELECT 1").await, rows(&[&["1"]]));
}
