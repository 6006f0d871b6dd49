//! The README walkthrough, typed into `psql` exactly as a user would
//! (`psql -h 127.0.0.1 -p PORT -U kpg kpg -c ...`), and psql's rendered output compared with
//! psql's output against PostgreSQL (which also checks column types: psql right-aligns
//! numbers). Skipped when `psql` is not on PATH.

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use kpg_tests::*;

fn psql(port: u16, user: &str, db: &str, extra: &[&str], commands: &[&str]) -> Output {
    let port = port.to_string();
    let mut cmd = Command::new("psql");
    cmd.args([
        "-X",
        "-h",
        "127.0.0.1",
        "-p",
        &port,
        "-U",
        user,
        db,
        "-v",
        "ON_ERROR_STOP=1",
        "-v",
        "VERBOSITY=verbose",
    ])
    .args(extra)
    .env("PGCONNECT_TIMEOUT", "10")
    .env_remove("PGPASSWORD")
    .env_remove("PGOPTIONS")
    .stdin(Stdio::null());
    for c in commands {
        cmd.arg("-c").arg(c);
    }
    cmd.output().expect("run psql")
}

fn ok(out: &Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "psql {what} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

// The README walkthrough, statement for statement.
const SETUP: &[&str] = &[
    "CREATE TABLE customers (id int4, name text, region text)",
    "CREATE TABLE orders (id int4, customer_id int4, amount numeric(10,2), qty int4, placed date, express boolean)",
    "INSERT INTO customers VALUES (1, 'Ada', 'EU'), (2, 'Grace', 'US'), (3, 'Edsger', 'EU')",
    "INSERT INTO orders VALUES (10, 1, 12.50, 3, '2024-01-31', true), (11, 2, 100.00, 1, '2024-02-01', false), (12, 3, 7.25, 4, '2024-02-02', false)",
];
const VIEWS: &[(&str, &str)] = &[
    (
        "big_orders",
        "SELECT id, customer_id, amount * qty AS total FROM orders WHERE qty >= 2",
    ),
    (
        "revenue_by_region",
        "SELECT c.region, count(*) AS orders, sum(o.amount * o.qty) AS revenue, \
         min(o.amount) AS smallest, max(o.placed) AS last_order \
         FROM orders o JOIN customers c ON o.customer_id = c.id \
         GROUP BY c.region",
    ),
];
const CHANGES: &[&str] = &[
    "INSERT INTO orders SELECT id + 100, customer_id, amount, qty, placed, express FROM orders WHERE express",
    "UPDATE orders SET qty = qty + 1 WHERE customer_id = 2",
    "DELETE FROM orders WHERE id = 12",
];
const ADHOC: &str =
    "SELECT o.id, c.name, o.amount FROM orders o JOIN customers c ON o.customer_id = c.id \
                     WHERE o.amount > 10 ORDER BY o.amount DESC, o.id LIMIT 2";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn psql_walkthrough() {
    if !psql_available() {
        eprintln!("psql not on PATH; skipping");
        return;
    }
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let (kp, pp) = (kpg.port(), pg.port());
    tokio::task::spawn_blocking(move || {
        let kpg_psql = |extra: &[&str], cmds: &[&str]| psql(kp, "kpg", "kpg", extra, cmds);
        let pg_psql = |extra: &[&str], cmds: &[&str]| psql(pp, "postgres", "postgres", extra, cmds);

        // psql prints each command tag (`CREATE TABLE`, `INSERT 0 3`): identical to PostgreSQL's.
        let k = ok(&kpg_psql(&[], SETUP), "setup on kpg");
        let p = ok(&pg_psql(&[], SETUP), "setup on PostgreSQL");
        assert_eq!(k, p, "command tags of the setup statements");
        for (name, q) in VIEWS {
            let k = ok(
                &kpg_psql(&[], &[&format!("CREATE MATERIALIZED VIEW {name} AS {q}")]),
                name,
            );
            // PostgreSQL's tag is `SELECT <rows>`, Materialize's `CREATE MATERIALIZED VIEW`.
            assert!(
                k == "CREATE MATERIALIZED VIEW\n" || k.starts_with("SELECT "),
                "tag: {k:?}"
            );
            ok(
                &pg_psql(&["-q"], &[&format!("CREATE VIEW {name} AS {q}")]),
                name,
            );
        }

        // psql's default aligned output, byte for byte (numbers are right-aligned by type).
        let same = |q: &str| {
            let k = ok(&kpg_psql(&[], &[q]), q);
            let p = ok(&pg_psql(&[], &[q]), q);
            assert_eq!(
                k, p,
                "psql output differs for `{q}`\n--- kpg:\n{k}\n--- PostgreSQL:\n{p}"
            );
        };
        same("SELECT * FROM big_orders ORDER BY id");
        same("SELECT * FROM revenue_by_region ORDER BY region");
        for dml in CHANGES {
            let k = ok(&kpg_psql(&[], &[dml]), dml);
            let p = ok(&pg_psql(&[], &[dml]), dml);
            assert_eq!(k, p, "command tag for `{dml}`");
            same("SELECT * FROM big_orders ORDER BY id");
            same("SELECT * FROM revenue_by_region ORDER BY region");
        }
        same(ADHOC);
        same("SELECT * FROM orders ORDER BY id");

        // Errors: psql shows "ERROR:  <SQLSTATE>: ..." (VERBOSITY verbose) and, with
        // ON_ERROR_STOP, exits with 1; the same SQLSTATE as PostgreSQL.
        for (bad, code) in [
            ("SELECT * FROM nope", "42P01"),
            ("SELECT nope FROM orders", "42703"),
            ("INSERT INTO orders (id) VALUES (true)", "42804"),
            ("SELEC 1", "42601"),
            ("DROP TABLE orders", "2BP01"),
        ] {
            for (who, out) in [
                ("kpg", kpg_psql(&[], &[bad])),
                ("PostgreSQL", pg_psql(&[], &[bad])),
            ] {
                assert!(!out.status.success(), "{who} accepted `{bad}`");
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(
                    err.contains(&format!("ERROR:  {code}:")),
                    "{who}: `{bad}` should fail with {code}: {err}"
                );
            }
        }

        let k = ok(
            &kpg_psql(
                &[],
                &[
                    "DROP MATERIALIZED VIEW big_orders",
                    "DROP MATERIALIZED VIEW revenue_by_region",
                    "DROP TABLE orders",
                    // Nothing to drop: still the statement's tag, as PostgreSQL's.
                    "DROP TABLE IF EXISTS orders",
                    "DROP VIEW IF EXISTS nope",
                    "DROP INDEX IF EXISTS nope",
                ],
            ),
            "drop",
        );
        assert_eq!(
            k,
            "DROP MATERIALIZED VIEW\nDROP MATERIALIZED VIEW\nDROP TABLE\nDROP TABLE\nDROP VIEW\n\
             DROP INDEX\n"
        );
        let out = kpg_psql(&[], &["SELECT * FROM orders"]);
        assert!(String::from_utf8_lossy(&out.stderr).contains("42P01"));
    })
    .await
    .expect("psql steps");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn psql_any_user_name_connects() {
    if !psql_available() {
        eprintln!("psql not on PATH; skipping");
        return;
    }
    let kpg = KpgServer::start().await;
    let port = kpg.port();
    tokio::task::spawn_blocking(move || {
        for user in ["kpg", "alice", "postgres"] {
            // The walkthrough's exact connection line: psql -h 127.0.0.1 -p PORT -U kpg kpg.
            let out = ok(&psql(port, user, "kpg", &["-A", "-t"], &["SELECT 1"]), user);
            assert_eq!(out, "1\n");
        }
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn psql_subscribe_streams_changes() {
    // The README's second terminal: psql -c 'COPY (SUBSCRIBE revenue_by_region) TO STDOUT'
    // (simple query protocol), while the first terminal runs the README's changes.
    if !psql_available() {
        eprintln!("psql not on PATH; skipping");
        return;
    }
    let kpg = KpgServer::start().await;
    let c = kpg.connect().await;
    for stmt in SETUP {
        execute(&c, stmt).await;
    }
    for (name, q) in VIEWS {
        execute(&c, &format!("CREATE MATERIALIZED VIEW {name} AS {q}")).await;
    }

    // psql block-buffers COPY output written to a pipe, so it runs on a pseudo-terminal (as a
    // user's psql does) through util-linux `script`, which passes each line on as it comes.
    let psql = format!(
        "psql -X -h 127.0.0.1 -p {} -U kpg kpg -c 'COPY (SUBSCRIBE revenue_by_region) TO STDOUT'",
        kpg.port()
    );
    let mut child = Command::new("script")
        .args(["-q", "-f", "-e", "-c", &psql, "/dev/null"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn psql");
    let stdout = child.stdout.take().unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            match line {
                Ok(l) => {
                    if tx.send(l.trim_end_matches('\r').to_string()).is_err() {
                        break;
                    }
                }
                Err(_) => break,
            }
        }
    });
    // Reads lines until their consolidated content equals `want`; returns (ts, diff, rest).
    async fn read_until(
        rx: &mut tokio::sync::mpsc::UnboundedReceiver<String>,
        want: &[(&str, i64)],
    ) -> Vec<(u64, i64, String)> {
        let want = consolidate(want.iter().map(|(r, d)| (vec![Some(r.to_string())], *d)));
        let mut got = Vec::new();
        loop {
            let have = consolidate(
                got.iter()
                    .map(|(_, d, r): &(u64, i64, String)| (vec![Some(r.clone())], *d)),
            );
            if have == want {
                return got;
            }
            let line = match tokio::time::timeout(Duration::from_secs(20), rx.recv()).await {
                Ok(Some(l)) => l,
                other => {
                    panic!("psql subscriber: waiting for {want:?}, have {have:?}, then {other:?}")
                }
            };
            let mut f = line.splitn(3, '\t');
            let ts = f
                .next()
                .unwrap()
                .parse()
                .unwrap_or_else(|_| panic!("bad mz_timestamp: {line:?}"));
            let diff = f
                .next()
                .and_then(|d| d.parse().ok())
                .unwrap_or_else(|| panic!("bad mz_diff: {line:?}"));
            got.push((ts, diff, f.next().unwrap_or("").to_string()));
        }
    }

    let snap = read_until(
        &mut rx,
        &[
            ("EU\t2\t66.50\t7.25\t2024-02-02", 1),
            ("US\t1\t100.00\t100.00\t2024-02-01", 1),
        ],
    )
    .await;
    let mut last_ts = snap[0].0;
    assert!(
        snap.iter().all(|r| r.0 == last_ts),
        "snapshot at one timestamp: {snap:?}"
    );
    let expected: [&[(&str, i64)]; 3] = [
        &[
            ("EU\t2\t66.50\t7.25\t2024-02-02", -1),
            ("EU\t3\t104.00\t7.25\t2024-02-02", 1),
        ],
        &[
            ("US\t1\t100.00\t100.00\t2024-02-01", -1),
            ("US\t1\t200.00\t100.00\t2024-02-01", 1),
        ],
        &[
            ("EU\t3\t104.00\t7.25\t2024-02-02", -1),
            ("EU\t2\t75.00\t12.50\t2024-01-31", 1),
        ],
    ];
    for (stmt, want) in CHANGES.iter().zip(expected) {
        execute(&c, stmt).await;
        let got = read_until(&mut rx, want).await;
        assert!(
            got.iter().all(|r| r.0 == got[0].0),
            "one statement, one timestamp: {got:?}"
        );
        assert!(
            got[0].0 > last_ts,
            "timestamps must increase: {got:?} after {last_ts}"
        );
        last_ts = got[0].0;
    }

    // Ctrl-C: psql (the child of `script`) sends a cancel request and exits.
    // `script` runs psql through $SHELL, which may or may not exec it, and Debian's `psql` is a
    // wrapper that execs /usr/lib/postgresql/N/bin/psql; so psql is found by its own command line
    // (anchored, so neither `script` nor the shell matches).
    let status = Command::new("pkill")
        .args([
            "-INT",
            "-f",
            &format!("^([^ ]*/)?psql -X -h 127.0.0.1 -p {} ", kpg.port()),
        ])
        .status()
        .expect("run pkill");
    if !status.success() {
        let ps = Command::new("ps")
            .args(["-eo", "pid,ppid,args"])
            .output()
            .unwrap();
        panic!(
            "no psql to interrupt:\n{}",
            String::from_utf8_lossy(&ps.stdout)
        );
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("psql did not end after SIGINT (cancel request)");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // The server goes on.
    assert_eq!(
        query(
            &c,
            "SELECT region, orders FROM revenue_by_region ORDER BY region"
        )
        .await,
        rows(&[&["EU", "2"], &["US", "1"]])
    );
}
