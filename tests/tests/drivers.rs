//! Real client drivers against kpg, each compared with the same session against PostgreSQL 15:
//! psycopg 3 (`tests/clients/psycopg_scenario.py`) and pgjdbc (`tests/clients/JdbcScenario.java`).
//!
//! Each scenario prints a transcript of everything its driver saw (rows with their decoded
//! types, result column types, affected-row counts, SQLSTATEs); the kpg transcript must equal
//! PostgreSQL's. The parts only kpg has are checked by the scenario itself: the psycopg
//! subscription (COPY (SUBSCRIBE ...) TO STDOUT) compares its snapshot with a SELECT, sees a
//! later INSERT and is cancelled. pgjdbc's DatabaseMetaData.getTables, which reads pg_catalog
//! (pg_namespace, pg_class, pg_description, `'pg_class'::regclass`, `~`), must answer as
//! PostgreSQL does.
//!
//! The drivers are installed by `scripts/setup-clients.sh` (a venv with psycopg from PyPI and the
//! pgjdbc jar from Maven Central, under target/clients/), which the tests run first.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use kpg_tests::*;

struct Clients {
    python: PathBuf,
    pgjdbc: PathBuf,
}

/// Runs scripts/setup-clients.sh once per test binary and returns where the drivers are.
fn clients() -> &'static Clients {
    static CLIENTS: OnceLock<Clients> = OnceLock::new();
    CLIENTS.get_or_init(|| {
        let script = workspace_root().join("scripts/setup-clients.sh");
        let out = Command::new("bash")
            .arg(&script)
            .output()
            .unwrap_or_else(|e| panic!("running {}: {e}", script.display()));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{} failed:\n{stdout}\n{}",
            script.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let value = |key: &str| -> PathBuf {
            stdout
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .map(PathBuf::from)
                .unwrap_or_else(|| panic!("{} printed no {key}:\n{stdout}", script.display()))
        };
        Clients {
            python: value("PYTHON="),
            pgjdbc: value("PGJDBC_JAR="),
        }
    })
}

/// Runs a client program to completion (off the async runtime) and returns its stdout lines;
/// panics with its output if it fails.
async fn run(mut cmd: Command, what: &str) -> Vec<String> {
    let what = what.to_string();
    tokio::task::spawn_blocking(move || {
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("starting {what}: {e}"));
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "{what} failed ({}):\nstdout:\n{stdout}\nstderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        stdout.lines().map(str::to_string).collect()
    })
    .await
    .expect("client thread")
}

/// Asserts the two transcripts are equal line by line, showing the first difference.
fn assert_same(kpg: &[String], pg: &[String], what: &str) {
    for (i, (k, p)) in kpg.iter().zip(pg).enumerate() {
        assert_eq!(
            k,
            p,
            "{what}: line {} differs (kpg left, PostgreSQL right)",
            i + 1
        );
    }
    assert_eq!(
        kpg.len(),
        pg.len(),
        "{what}: transcripts differ in length\nkpg:\n{}\nPostgreSQL:\n{}",
        kpg.join("\n"),
        pg.join("\n")
    );
}

fn scenario(name: &str) -> PathBuf {
    workspace_root().join("tests/clients").join(name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn psycopg_session_matches_postgres() {
    let clients = clients();
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let script = scenario("psycopg_scenario.py");
    let mut on_pg = Command::new(&clients.python);
    on_pg.arg(&script).arg(pg.conn_str());
    let mut on_kpg = Command::new(&clients.python);
    on_kpg
        .arg(&script)
        .arg(kpg.conn_str_as("psycopg"))
        .arg("--subscribe");
    let pg_lines = run(on_pg, "psycopg against PostgreSQL").await;
    let kpg_lines = run(on_kpg, "psycopg against kpg").await;

    // Everything both can do is the same; then kpg's subscription.
    let (common, subscription) = kpg_lines.split_at(pg_lines.len().min(kpg_lines.len()));
    assert_same(common, &pg_lines, "psycopg");
    assert!(
        pg_lines.iter().any(|l| l.starts_with("query binary"))
            && pg_lines.iter().any(|l| l.starts_with("prepared 7")),
        "the scenario ran only partly:\n{}",
        pg_lines.join("\n")
    );
    let rows = pg_lines.iter().filter(|l| l.starts_with("row ")).count();
    // The subscription reads the rows with id > 1, all but one.
    assert_eq!(
        subscription,
        [
            format!("subscribe snapshot matches SELECT: {} rows", rows - 1),
            "subscribe saw insert at a later timestamp".to_string(),
            "subscribe canceled 57014".to_string(),
            "after cancel (1,)".to_string(),
        ]
    );
}

/// Compiles the JDBC scenario into a fresh directory.
fn compile_jdbc(jar: &Path, dir: &Path) {
    let out = Command::new("javac")
        .arg("-cp")
        .arg(jar)
        .arg("-d")
        .arg(dir)
        .arg(scenario("JdbcScenario.java"))
        .output()
        .expect("running javac (install a JDK: scripts/setup-env.sh)");
    assert!(
        out.status.success(),
        "javac failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pgjdbc_session_matches_postgres() {
    let clients = clients();
    let classes = tempfile::tempdir().expect("temp dir");
    compile_jdbc(&clients.pgjdbc, classes.path());
    let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
    let classpath = format!("{}:{}", clients.pgjdbc.display(), classes.path().display());
    let java = |url: String| {
        let mut cmd = Command::new("java");
        cmd.arg("-cp").arg(&classpath).arg("JdbcScenario").arg(url);
        cmd
    };
    let pg_lines = run(
        java(format!(
            "jdbc:postgresql://127.0.0.1:{}/postgres?user=postgres",
            pg.port()
        )),
        "pgjdbc against PostgreSQL",
    )
    .await;
    let kpg_lines = run(
        java(format!(
            "jdbc:postgresql://127.0.0.1:{}/kpg?user=jdbc",
            kpg.port()
        )),
        "pgjdbc against kpg",
    )
    .await;

    let (pg_tables, pg_rest): (Vec<String>, Vec<String>) = pg_lines
        .into_iter()
        .partition(|l| l.starts_with("getTables"));
    let (kpg_tables, kpg_rest): (Vec<String>, Vec<String>) = kpg_lines
        .into_iter()
        .partition(|l| l.starts_with("getTables"));
    assert_same(&kpg_rest, &pg_rest, "pgjdbc");
    assert!(
        pg_rest.iter().any(|l| l.starts_with("fetch size 3"))
            && pg_rest.iter().any(|l| l.starts_with("select 7")),
        "the scenario ran only partly:\n{}",
        pg_rest.join("\n")
    );
    assert_eq!(pg_tables, ["getTables [public.orders]"]);
    assert_eq!(
        kpg_tables, pg_tables,
        "DatabaseMetaData.getTables on kpg (left) vs PostgreSQL (right)"
    );
}
