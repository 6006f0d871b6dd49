//! A compute worker that panics takes the process down (`server/src/fatal.rs`) instead of
//! leaving a server whose statements wait forever: with the fail point in the workers'
//! `CreateTable` set to panic (`FAILPOINTS`, the `fail` crate), a `CREATE TABLE` makes kpg exit
//! with status 70 and say why in its log, and a restart without the fail point has what was
//! acknowledged before.

use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

use kpg_tests::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_panic_exits_kpg_and_a_restart_recovers() {
    // Read by the kpg process started here, once; the restart runs without it. Each of the two
    // workers applies every `CreateTable`: the first table's two pass, the next one panics. The only test of this file, so no other test
    // sees the variable.
    std::env::set_var("FAILPOINTS", "compute-create-table=2*off->panic");
    let mut kpg = KpgServer::start_with_workers(2).await;
    std::env::remove_var("FAILPOINTS");
    let c = kpg.connect().await;
    execute(&c, "CREATE TABLE kept (a int)").await;
    execute(&c, "INSERT INTO kept VALUES (1), (2)").await;
    assert_eq!(query(&c, "SELECT sum(a) FROM kept").await, rows(&[&["3"]]));
    // The workers panic as they build this table's input (whether its DDL was acknowledged
    // first is a race).
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
    assert_eq!(query(&c, "SELECT sum(a) FROM kept").await, rows(&[&["3"]]));
    if created {
        execute(&c, "INSERT INTO t VALUES (5)").await;
        assert_eq!(query(&c, "SELECT sum(a) FROM t").await, rows(&[&["5"]]));
    }
}
