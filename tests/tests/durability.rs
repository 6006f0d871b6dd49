//! Restarts: everything kpg acknowledged comes back from its data directory after a clean
//! stop (SIGTERM, exit 0) and after a crash (SIGKILL) — tables with their rows, constraints and
//! defaults, views and materialized views with the same contents (compared with PostgreSQL fed
//! the same statements), indexes that readers use, sources, and the objects' ids. Also the
//! directory's own failure modes: a second kpg on it and a damaged file are refused with a
//! clear message, never started empty on top of the data.

use std::time::Duration;

use kpg_tests::tokio_postgres::Client;
use kpg_tests::*;

/// The objects and rows every test of this file starts from, on both servers (PostgreSQL's
/// "materialized views" are plain views there, always current).
async fn setup(s: &Pair) {
    s.exec(
        "CREATE TABLE cust (id int PRIMARY KEY, name text NOT NULL, region text DEFAULT 'north')",
    )
    .await;
    s.exec("CREATE TABLE ord (id int, cust int, amount numeric(10,2), UNIQUE (id))")
        .await;
    s.exec("INSERT INTO cust VALUES (1, 'Ada', 'south'), (2, 'Bo', NULL)")
        .await;
    s.exec("INSERT INTO cust (id, name) VALUES (3, 'Cy')").await;
    s.exec("INSERT INTO ord SELECT g, 1 + g % 3, g * 1.25 FROM generate_series(1, 200) g")
        .await;
    s.exec("UPDATE ord SET amount = amount + 1 WHERE id % 7 = 0")
        .await;
    s.exec("DELETE FROM ord WHERE id > 190").await;
    s.exec("BEGIN").await;
    s.exec("INSERT INTO ord VALUES (500, 2, 9.99)").await;
    s.exec("INSERT INTO ord VALUES (501, 3, 0.01)").await;
    s.exec("COMMIT").await;
    s.exec("CREATE TABLE big AS SELECT id, amount FROM ord WHERE amount > 100")
        .await;
    s.exec("CREATE VIEW named AS SELECT o.id, c.name FROM ord o JOIN cust c ON o.cust = c.id")
        .await;
    s.create_view(
        "revenue",
        "SELECT c.region, count(*) AS n, sum(o.amount) AS total \
         FROM ord o JOIN cust c ON o.cust = c.id GROUP BY c.region",
    )
    .await;
    s.create_view("gone", "SELECT count(*) AS n FROM cust")
        .await;
    s.drop_view("gone").await;
    s.kpg_only("CREATE INDEX ord_cust ON ord (cust)").await;
    s.kpg_only("CREATE DEFAULT INDEX ON named").await;
    s.kpg_only("CREATE INDEX ord_amount ON ord (amount)").await;
}

/// What must read the same on both servers after every restart.
async fn compare(s: &Pair) {
    for sql in [
        "SELECT * FROM cust",
        "SELECT * FROM ord",
        "SELECT * FROM big",
        "SELECT * FROM named",
        "SELECT * FROM revenue",
        "SELECT region, count(*) FROM cust GROUP BY region",
    ] {
        s.check(sql).await;
    }
}

trait KpgOnly {
    async fn kpg_only(&self, sql: &str);
}

impl KpgOnly for Pair {
    async fn kpg_only(&self, sql: &str) {
        execute(&self.kpg, sql).await;
    }
}

/// The catalog as psql's queries see it: each object's name, kind and oid (its id).
async fn objects(client: &Client) -> Rows {
    query(
        client,
        "SELECT relname, relkind, oid::text FROM pg_class \
         WHERE relnamespace = 'public'::regnamespace ORDER BY relname",
    )
    .await
}

/// The ticks the counter source has made: its values are 1 to n, each once (checked), so a
/// restart that repeated or skipped a tick shows here.
async fn ticks(client: &Client) -> i64 {
    let r = query(
        client,
        "SELECT count(*), count(DISTINCT counter), coalesce(max(counter), 0), min(counter) FROM counter",
    )
    .await;
    let n: Vec<&str> = r[0].iter().map(cell).collect();
    assert_eq!(n[0], n[1], "a repeated value: {n:?}");
    assert_eq!(n[0], n[2], "a skipped value: {n:?}");
    assert_eq!(n[3], "1", "{n:?}");
    n[0].parse().unwrap()
}

async fn reconnect(kpg: &KpgServer, s: &mut Pair) {
    s.kpg = kpg.connect().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn objects_and_rows_survive_a_clean_stop_and_a_crash() {
    let (mut kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let mut s = Pair::new(&kpg, &pg).await;
    setup(&s).await;
    s.kpg_only("CREATE SOURCE counter FROM LOAD GENERATOR COUNTER (TICK INTERVAL '20ms')")
        .await;
    compare(&s).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let ticks_before = ticks(&s.kpg).await;
    let catalog = objects(&s.kpg).await;
    assert!(
        catalog.iter().any(|r| cell(&r[0]) == "ord_cust"),
        "{catalog:?}"
    );
    assert!(
        !catalog.iter().any(|r| cell(&r[0]) == "gone"),
        "{catalog:?}"
    );

    // A clean stop exits 0, and everything comes back.
    let status = kpg.terminate(Duration::from_secs(30));
    assert_eq!(
        status.map(|s| s.code()),
        Some(Some(0)),
        "SIGTERM: {status:?}"
    );
    kpg.restart().await;
    reconnect(&kpg, &mut s).await;
    compare(&s).await;
    assert_eq!(
        objects(&s.kpg).await,
        catalog,
        "same objects with the same ids"
    );
    assert!(kpg.stderr().contains("restored the catalog and tables"));

    // Constraints, defaults and NOT NULL hold as before the restart.
    s.check_error("INSERT INTO cust VALUES (1, 'again', NULL)")
        .await;
    s.check_error("INSERT INTO cust (id) VALUES (9)").await;
    s.check_error("INSERT INTO ord VALUES (500, 1, 1)").await;
    s.exec("INSERT INTO cust (id, name) VALUES (4, 'Di')").await;
    // Readers use the restored indexes.
    let plan = query(
        &s.kpg,
        "EXPLAIN PHYSICAL PLAN FOR SELECT * FROM ord o JOIN cust c ON o.cust = c.id",
    )
    .await;
    let plan = format!("{plan:?}");
    assert!(
        plan.contains("ord_cust") || plan.contains("cust_pkey"),
        "{plan}"
    );
    // The source is back and goes on from the tick it had reached.
    let seen = ticks(&s.kpg).await;
    assert!(
        seen >= ticks_before,
        "{seen} ticks after the restart, {ticks_before} before"
    );

    // Writes after the restart, then a crash right after their acknowledgements.
    s.exec("UPDATE ord SET cust = 4 WHERE id < 20").await;
    s.exec("DELETE FROM cust WHERE id = 2").await;
    s.exec("TRUNCATE big").await;
    s.exec("INSERT INTO big SELECT id, amount FROM ord WHERE id > 180")
        .await;
    s.kpg_only("DROP INDEX ord_amount").await;
    s.create_view(
        "late",
        "SELECT cust, max(amount) AS top FROM ord GROUP BY cust",
    )
    .await;
    s.kpg_only("CREATE TABLE fresh (x int)").await;
    let catalog = objects(&s.kpg).await;
    compare(&s).await;
    let ticks_before = ticks(&s.kpg).await;
    kpg.kill();
    kpg.restart().await;
    reconnect(&kpg, &mut s).await;
    compare(&s).await;
    s.check("SELECT * FROM late").await;
    let seen = ticks(&s.kpg).await;
    assert!(
        seen >= ticks_before,
        "{seen} ticks after SIGKILL, {ticks_before} before"
    );
    assert_eq!(objects(&s.kpg).await, catalog, "same objects after SIGKILL");

    // New objects get new ids: none is reused from before the crashes.
    s.kpg_only("CREATE TABLE newer (x int)").await;
    let oid = |rows: &Rows, name: &str| -> i64 {
        rows.iter()
            .find(|r| cell(&r[0]) == name)
            .map(|r| cell(&r[2]).parse().unwrap())
            .unwrap_or_else(|| panic!("{name} in {rows:?}"))
    };
    let after = objects(&s.kpg).await;
    let newest_before = catalog
        .iter()
        .map(|r| cell(&r[2]).parse::<i64>().unwrap())
        .max()
        .unwrap();
    assert!(oid(&after, "newer") > newest_before, "{after:?}");
}

/// The time a subscription to `t` starts at (its snapshot's `mz_timestamp`).
async fn read_time(c: &Client) -> u64 {
    execute(c, "BEGIN").await;
    execute(c, "DECLARE c CURSOR FOR SUBSCRIBE t").await;
    let rows = query(c, "FETCH 1 c WITH (timeout = '5s')").await;
    execute(c, "COMMIT").await;
    cell(&rows[0][0]).parse().unwrap()
}

/// Timestamps never go backwards across a restart: a subscription's start after it is later
/// than one before it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn time_moves_forward_across_restarts() {
    let mut kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    execute(&c, "CREATE TABLE t (x int)").await;
    execute(&c, "INSERT INTO t VALUES (1)").await;
    let before = read_time(&c).await;
    drop(c);
    kpg.kill();
    kpg.restart().await;
    let c = kpg.connect().await;
    let after = read_time(&c).await;
    assert!(
        after > before,
        "read time {after} after a restart, {before} before"
    );
    // History before the restart is not kept: reading as of then is refused, clearly.
    let (code, msg) = expect_error(&c, &format!("SUBSCRIBE t AS OF {before}")).await;
    assert_eq!(code, "22023", "{msg}");
    assert!(
        msg.contains("not valid") && msg.contains("earliest"),
        "{msg}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_kpg_and_a_damaged_directory_are_refused() {
    let mut kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    execute(&c, "CREATE TABLE keep (x int)").await;
    execute(&c, "INSERT INTO keep VALUES (42)").await;
    drop(c);
    let refused = kpg
        .second_on_same_data_dir()
        .await
        .expect("a second kpg on the same data directory must not start");
    assert!(refused.contains("in use by another kpg"), "{refused}");
    // The first one is unharmed.
    let c = kpg.connect().await;
    assert_eq!(query(&c, "SELECT x FROM keep").await, rows(&[&["42"]]));
    drop(c);

    // A damaged file stops kpg with the file named; it never starts empty on top of it.
    kpg.kill();
    let file = kpg.data_dir().join("kpg.redb");
    let mut bytes = std::fs::read(&file).unwrap();
    for b in bytes.iter_mut().take(4096) {
        *b = 0x5a;
    }
    std::fs::write(&file, &bytes).unwrap();
    let refused = kpg
        .second_on_same_data_dir()
        .await
        .expect("kpg must not start on a damaged data directory");
    assert!(refused.contains("kpg.redb"), "{refused}");
}

/// Definitions made under a non-default DateStyle order and IntervalStyle keep the values
/// their creator's session read (date literals, casts of stored text in a materialized view, a
/// column DEFAULT) across a SIGKILL: the catalog is replayed in that style, not the default
/// (a materialized view's rows changed silently before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn definitions_keep_their_creators_input_style_across_restarts() {
    let (mut kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let mut s = Pair::new(&kpg, &pg).await;
    s.exec("SET DateStyle = 'ISO, DMY'").await;
    s.exec("SET IntervalStyle = 'sql_standard'").await;
    s.exec("CREATE TABLE ts (k int, s text, d date DEFAULT '01/02/2024')")
        .await;
    s.exec("INSERT INTO ts (k, s) VALUES (1, '03/04/2024')")
        .await;
    s.exec(
        "CREATE MATERIALIZED VIEW m AS SELECT k, '01/02/2024'::date AS c, s::date AS sd, \
         '-1 2:00'::interval AS iv FROM ts",
    )
    .await;
    s.exec("CREATE VIEW pv AS SELECT '05/06/2024'::date AS c")
        .await;
    s.exec("SET IntervalStyle = 'postgres'").await;
    s.check("SELECT * FROM m").await;
    kpg.kill();
    kpg.restart().await;
    reconnect(&kpg, &mut s).await;
    s.exec("SET IntervalStyle = 'postgres'").await;
    s.check("SELECT * FROM m").await;
    s.check("SELECT * FROM pv").await;
    s.exec("INSERT INTO ts (k, s) VALUES (2, '11/12/2024')")
        .await;
    s.check("SELECT k, d FROM ts").await;
}
