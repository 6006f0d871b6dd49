//! End-to-end test harness for kpg.
//!
//! * [`KpgServer`] starts the real `kpg` binary on a free port of 127.0.0.1 with a fresh
//!   temporary data directory, waits until it accepts PostgreSQL connections and kills it
//!   on drop (printing the tail of its log if the test panicked).
//! * [`Postgres`] starts a real PostgreSQL (Debian's `postgresql` package, version 15 by
//!   default) in a temporary directory, used as the correctness oracle, and stops it on drop.
//! * [`KpgCluster`] starts several kpg processes forming one cluster (process 0 serves SQL as a
//!   [`KpgServer`]) and stops them all on drop.
//! * [`Pair`] runs the same statements against kpg and PostgreSQL and compares the results
//!   as text (the simple query protocol), sorted when the query has no `ORDER BY`.
//! * [`Subscription`] reads `COPY (SUBSCRIBE ...) TO STDOUT` streams.
//!
//! Environment:
//! * `KPG_BIN` — path of the kpg binary (default `<workspace>/target/debug/kpg`, then
//!   `<workspace>/target/release/kpg`).
//! * `PG_BIN_DIR` — directory holding `initdb` and `postgres` (default
//!   `/usr/lib/postgresql/15/bin`, then `pg_config --bindir`, then any
//!   `/usr/lib/postgresql/*/bin`).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures::StreamExt;
pub use tokio_postgres;
use tokio_postgres::{Client, CopyOutStream, NoTls, SimpleQueryMessage};

mod cluster;
pub use cluster::KpgCluster;
mod copy_text;
pub use copy_text::CopyText;
mod kafka;
pub use kafka::Kafka;
mod perf;
pub use perf::Perf;
mod raw;
pub use raw::{raw_rows, Raw};
pub mod rng;
pub mod wire;
pub use wire::{cstr, extended_text_rows, Wire};
pub mod tpch_bench;

/// How long a server gets to start accepting connections.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// Default timeout for a single step of a test (one query, one subscription row).
pub const STEP_TIMEOUT: Duration = Duration::from_secs(20);

/// A result set in text form: one `Vec` per row, `None` for SQL NULL.
pub type Rows = Vec<Vec<Option<String>>>;

// ---------------------------------------------------------------------------------------------
// Paths and ports
// ---------------------------------------------------------------------------------------------

/// The cargo workspace root (the parent of this crate's directory).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests crate has a parent directory")
        .to_path_buf()
}

/// Path of the kpg binary: `$KPG_BIN`, else `target/debug/kpg`, else `target/release/kpg`
/// (honouring `CARGO_TARGET_DIR`). Panics with instructions when none exists.
pub fn kpg_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("KPG_BIN") {
        let p = PathBuf::from(p);
        assert!(
            p.is_file(),
            "KPG_BIN={} does not exist; build it with `cargo build --bin kpg`",
            p.display()
        );
        return p;
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|p| {
            if p.is_absolute() {
                p
            } else {
                workspace_root().join(p)
            }
        })
        .unwrap_or_else(|| workspace_root().join("target"));
    for profile in ["debug", "release"] {
        let p = target.join(profile).join("kpg");
        if p.is_file() {
            return p;
        }
    }
    panic!(
        "kpg binary not found (looked for {0}/debug/kpg and {0}/release/kpg). \
         Run `cargo build --bin kpg` in {1} first, or set KPG_BIN=/path/to/kpg.",
        target.display(),
        workspace_root().display()
    );
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
pub fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    l.local_addr().unwrap().port()
}

fn read_file_lossy(path: &Path) -> String {
    let mut buf = Vec::new();
    if let Ok(mut f) = File::open(path) {
        let _ = f.read_to_end(&mut buf);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

fn tail(s: &str, lines: usize) -> String {
    let all: Vec<&str> = s.lines().collect();
    let start = all.len().saturating_sub(lines);
    all[start..].join("\n")
}

/// Connects with tokio-postgres (no TLS) and drives the connection on a tokio task.
pub async fn connect_to(conn_str: &str) -> Result<Client, tokio_postgres::Error> {
    let (client, connection) = tokio_postgres::connect(conn_str, NoTls).await?;
    tokio::spawn(async move {
        // Errors here surface to the client as "connection closed"; nothing more to do.
        let _ = connection.await;
    });
    Ok(client)
}

async fn wait_for_connection(
    conn_str: &str,
    child: &mut Child,
    log_path: &Path,
    what: &str,
) -> Result<(), StartError> {
    let deadline = Instant::now() + STARTUP_TIMEOUT;
    let mut last_err: String;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Err(StartError::Exited(format!(
                "{what} exited during startup with {status}; its log ({}):\n{}",
                log_path.display(),
                tail(&read_file_lossy(log_path), 200)
            )));
        }
        match tokio::time::timeout(Duration::from_secs(5), connect_to(conn_str)).await {
            Ok(Ok(client)) => {
                drop(client);
                return Ok(());
            }
            Ok(Err(e)) => last_err = format!("{e} ({e:?})"),
            Err(_) => last_err = "connection attempt timed out after 5s".into(),
        }
        if Instant::now() > deadline {
            return Err(StartError::Timeout(format!(
                "{what} did not accept a connection within {STARTUP_TIMEOUT:?} \
                 (last error: {last_err}); its log ({}):\n{}",
                log_path.display(),
                tail(&read_file_lossy(log_path), 200)
            )));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

enum StartError {
    Exited(String),
    Timeout(String),
}

impl StartError {
    fn message(&self) -> &str {
        match self {
            StartError::Exited(m) | StartError::Timeout(m) => m,
        }
    }
    fn is_port_clash(&self) -> bool {
        let m = self.message();
        matches!(self, StartError::Exited(_))
            && (m.contains("Address already in use") || m.contains("AddrInUse"))
    }
}

fn kill_and_wait(child: &mut Child, signal: libc::c_int, grace: Duration) {
    if let Ok(Some(_)) = child.try_wait() {
        return;
    }
    unsafe {
        libc::kill(child.id() as libc::pid_t, signal);
    }
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// A child process that is stopped (with `signal`, then SIGKILL after 5s) when dropped, also
/// when a start-up future is abandoned half way (e.g. the other half of a `tokio::join!`
/// panicked).
struct Proc {
    child: Child,
    signal: libc::c_int,
}

impl Drop for Proc {
    fn drop(&mut self) {
        kill_and_wait(&mut self.child, self.signal, Duration::from_secs(5));
    }
}

/// Makes the child die with the test process even if the test process is killed (Linux: the
/// parent-death signal; it fires when the spawning thread ends, which for servers started from
/// a test body is the end of the test).
pub(crate) fn die_with_parent(cmd: &mut Command) {
    #[cfg(target_os = "linux")]
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}

// ---------------------------------------------------------------------------------------------
// kpg
// ---------------------------------------------------------------------------------------------

/// A running kpg server process, killed on drop.
pub struct KpgServer {
    proc: Proc,
    port: u16,
    workers: usize,
    log_path: PathBuf,
    out_path: PathBuf,
    data_dir: PathBuf,
    extra_args: Vec<String>,
    // Last, so the directory is removed after the process is gone.
    _dir: tempfile::TempDir,
}

impl KpgServer {
    /// Starts kpg with 2 workers (the default of the binary).
    pub async fn start() -> KpgServer {
        Self::start_with_workers(2).await
    }

    /// Starts kpg with `n` timely worker threads.
    pub async fn start_with_workers(n: usize) -> KpgServer {
        Self::start_with_args(n, &[]).await
    }

    /// Starts kpg with `n` workers and extra command-line arguments.
    pub async fn start_with_args(workers: usize, extra_args: &[&str]) -> KpgServer {
        let bin = kpg_bin();
        let mut attempt = 0;
        loop {
            attempt += 1;
            match Self::launch(workers, extra_args).await {
                Ok(server) => return server,
                Err(e) if e.is_port_clash() && attempt < 4 => continue,
                Err(e) => panic!("{} (binary: {})", e.message(), bin.display()),
            }
        }
    }

    /// One attempt to start kpg on a free port and wait until it accepts connections.
    async fn launch(workers: usize, extra_args: &[&str]) -> Result<KpgServer, StartError> {
        let dir = tempfile::Builder::new()
            .prefix("kpg-test-")
            .tempdir()
            .expect("create temp dir");
        let data_dir = dir.path().join("data");
        let log_path = dir.path().join("kpg.stderr");
        let out_path = dir.path().join("kpg.stdout");
        let extra_args: Vec<String> = extra_args.iter().map(|a| a.to_string()).collect();
        let (proc, port) = spawn_kpg(dir.path(), &data_dir, workers, &extra_args).await?;
        Ok(KpgServer {
            proc,
            port,
            workers,
            log_path,
            out_path,
            data_dir,
            extra_args,
            _dir: dir,
        })
    }

    /// Kills the server with SIGKILL (a crash: nothing is flushed or closed) and waits for it.
    pub fn kill(&mut self) {
        kill_and_wait(&mut self.proc.child, libc::SIGKILL, Duration::from_secs(5));
    }

    /// Sends SIGTERM and waits up to `grace` for the server to exit; its exit status, or
    /// `None` if it was still running (it is then killed).
    pub fn terminate(&mut self, grace: Duration) -> Option<std::process::ExitStatus> {
        unsafe {
            libc::kill(self.proc.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let status = self.wait_exit(grace);
        if status.is_none() {
            self.kill();
        }
        status
    }

    /// Waits up to `within` for the server to exit on its own; its exit status, or `None` if
    /// it still runs.
    pub fn wait_exit(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + within;
        loop {
            if let Ok(Some(status)) = self.proc.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Starts kpg again on the same data directory (on a new port), killing it first if it
    /// still runs; its log continues in the same file.
    pub async fn restart(&mut self) {
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.try_restart().await {
                Ok(()) => return,
                Err(e) if e.is_port_clash() && attempt < 4 => continue,
                Err(e) => panic!("restarting kpg: {}", e.message()),
            }
        }
    }

    /// One attempt of `restart`.
    pub(crate) async fn try_restart(&mut self) -> Result<(), StartError> {
        self.kill();
        let dir = self._dir.path().to_path_buf();
        let (proc, port) = spawn_kpg(&dir, &self.data_dir, self.workers, &self.extra_args).await?;
        self.proc = proc;
        self.port = port;
        Ok(())
    }

    /// Tries to start a second kpg on this server's data directory; what it printed if it
    /// exited (as it must while this one runs), or `None` if it kept running.
    pub async fn second_on_same_data_dir(&self) -> Option<String> {
        let dir = tempfile::tempdir().expect("temp dir");
        match spawn_kpg(dir.path(), &self.data_dir, self.workers, &self.extra_args).await {
            Ok(_) => None,
            Err(e) => Some(e.message().to_string()),
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's process id (e.g. to read its memory use from /proc).
    pub fn pid(&self) -> u32 {
        self.proc.child.id()
    }

    pub fn workers(&self) -> usize {
        self.workers
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// libpq-style connection string for user `user`, database `kpg`.
    pub fn conn_str_as(&self, user: &str) -> String {
        format!(
            "host=127.0.0.1 port={} user={user} dbname=kpg connect_timeout=10",
            self.port
        )
    }

    /// A new connection (user `kpg`, database `kpg`).
    pub async fn connect(&self) -> Client {
        self.connect_as("kpg").await
    }

    /// A new connection as `user` to database `kpg`.
    pub async fn connect_as(&self, user: &str) -> Client {
        match connect_to(&self.conn_str_as(user)).await {
            Ok(c) => c,
            Err(e) => panic!(
                "connecting to kpg failed: {e:?}\nkpg log:\n{}",
                self.log_tail(100)
            ),
        }
    }

    /// Everything the server wrote to stderr (its log) so far.
    pub fn stderr(&self) -> String {
        read_file_lossy(&self.log_path)
    }

    /// Everything the server wrote to stdout so far.
    pub fn stdout(&self) -> String {
        read_file_lossy(&self.out_path)
    }

    /// The last `lines` lines of stdout and stderr, after the log's first panics and errors
    /// (a crashed worker's panic is often far above a tail of the same error repeated).
    pub fn log_tail(&self, lines: usize) -> String {
        let out = self.stdout();
        let log = self.stderr();
        // A panic's message is on the line after its location.
        let mut after_panic = false;
        let first: Vec<&str> = log
            .lines()
            .filter(|l| {
                let keep = after_panic || l.contains("panicked") || l.contains("ERROR");
                after_panic = l.contains("panicked");
                keep
            })
            .take(10)
            .collect();
        let err = format!(
            "[first panics and errors]\n{}\n[tail]\n{}",
            first.join("\n"),
            tail(&log, lines)
        );
        if out.trim().is_empty() {
            err
        } else {
            format!("[stdout]\n{}\n[stderr]\n{err}", tail(&out, lines))
        }
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.proc.child.try_wait(), Ok(None))
    }
}

/// Starts kpg in `dir` (its log files there, appended to) on a free port with `data_dir`, and
/// waits until it accepts connections.
async fn spawn_kpg(
    dir: &Path,
    data_dir: &Path,
    workers: usize,
    extra_args: &[String],
) -> Result<(Proc, u16), StartError> {
    let port = free_port();
    let log_path = dir.join("kpg.stderr");
    let mut args: Vec<String> = vec!["--listen".into(), format!("127.0.0.1:{port}")];
    args.extend(extra_args.iter().cloned());
    let child = spawn_kpg_process(dir, data_dir, workers, &args, "kpg");
    let mut proc = Proc {
        child,
        signal: libc::SIGKILL,
    };
    let conn_str = format!("host=127.0.0.1 port={port} user=kpg dbname=kpg connect_timeout=5");
    wait_for_connection(&conn_str, &mut proc.child, &log_path, "kpg").await?;
    Ok((proc, port))
}

/// Starts the kpg binary in `dir` with `workers` worker threads on `data_dir` and `args`, its
/// output appended to `{logs}.stdout` and `{logs}.stderr` there, logging at `info` unless
/// `RUST_LOG` says otherwise; it dies with the test.
pub(crate) fn spawn_kpg_process(
    dir: &Path,
    data_dir: &Path,
    workers: usize,
    args: &[String],
    logs: &str,
) -> Child {
    let bin = kpg_bin();
    let append = |ext: &str| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(format!("{logs}.{ext}")))
            .expect("open kpg log file")
    };
    let mut cmd = Command::new(&bin);
    cmd.args(args)
        .arg("--workers")
        .arg(workers.to_string())
        .arg("--data-dir")
        .arg(data_dir)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(append("stdout"))
        .stderr(append("stderr"));
    if std::env::var_os("RUST_LOG").is_none() {
        cmd.env("RUST_LOG", "info");
    }
    die_with_parent(&mut cmd);
    cmd.spawn()
        .unwrap_or_else(|e| panic!("failed to spawn {}: {e}", bin.display()))
}

impl Drop for KpgServer {
    fn drop(&mut self) {
        // The process itself is killed when the `proc` field drops, right after this.
        let crashed = !self.is_running();
        if std::thread::panicking() || crashed {
            eprintln!(
                "---- kpg (port {}) log tail{} ----\n{}\n---- end of kpg log ----",
                self.port,
                if crashed {
                    " (the process had exited on its own!)"
                } else {
                    ""
                },
                self.log_tail(150)
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL oracle
// ---------------------------------------------------------------------------------------------

/// Directory with PostgreSQL's server binaries (`initdb`, `postgres`).
pub fn pg_bin_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("PG_BIN_DIR") {
        return PathBuf::from(p);
    }
    let default = PathBuf::from("/usr/lib/postgresql/15/bin");
    if default.join("postgres").is_file() {
        return default;
    }
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if p.join("postgres").is_file() {
            return p;
        }
    }
    if let Ok(entries) = std::fs::read_dir("/usr/lib/postgresql") {
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path().join("bin"))
            .filter(|p| p.join("postgres").is_file())
            .collect();
        dirs.sort();
        if let Some(p) = dirs.pop() {
            return p;
        }
    }
    panic!(
        "PostgreSQL server binaries not found (looked in /usr/lib/postgresql/*/bin). \
         Install them with `apt-get install postgresql` or set PG_BIN_DIR."
    );
}

fn is_root() -> bool {
    unsafe { libc::geteuid() == 0 }
}

/// uid and gid of the `postgres` system user.
fn postgres_user_ids() -> (u32, u32) {
    let name = std::ffi::CString::new("postgres").unwrap();
    let pw = unsafe { libc::getpwnam(name.as_ptr()) };
    assert!(
        !pw.is_null(),
        "running as root but there is no `postgres` user to run PostgreSQL as \
         (initdb refuses root); install Debian's `postgresql` package"
    );
    unsafe { ((*pw).pw_uid, (*pw).pw_gid) }
}

/// A throw-away PostgreSQL server (the oracle), stopped on drop (immediate shutdown).
pub struct Postgres {
    _proc: Proc,
    port: u16,
    log_path: PathBuf,
    _dir: tempfile::TempDir,
}

impl Postgres {
    pub async fn start() -> Postgres {
        Self::start_with_settings(&[]).await
    }

    /// Starts PostgreSQL with `-c name=value` settings given after the harness's own, which
    /// they override (e.g. `("fsync", "on")` for a benchmark of durable commits: the harness
    /// turns fsync, synchronous_commit and full_page_writes off for speed).
    pub async fn start_with_settings(settings: &[(&str, &str)]) -> Postgres {
        let bin = pg_bin_dir();
        let mut attempt = 0;
        loop {
            attempt += 1;
            // Under /tmp: the postgres user must be able to reach it, and the unix socket
            // path must stay short.
            let dir = tempfile::Builder::new()
                .prefix("kpg-pg-")
                .tempdir_in("/tmp")
                .expect("create temp dir");
            let ids = if is_root() {
                Some(postgres_user_ids())
            } else {
                None
            };
            if let Some((uid, gid)) = ids {
                std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).expect("chown temp dir");
            }
            let data = dir.path().join("data");
            let log_path = dir.path().join("postgres.log");
            let as_pg = |cmd: &mut Command| {
                cmd.current_dir(dir.path())
                    .env("LC_ALL", "C")
                    .env_remove("PGDATA");
                if let Some((uid, gid)) = ids {
                    cmd.uid(uid).gid(gid);
                }
            };

            let mut initdb = Command::new(bin.join("initdb"));
            initdb.arg("-D").arg(&data).args([
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ]);
            as_pg(&mut initdb);
            let out = initdb.output().expect("run initdb");
            assert!(
                out.status.success(),
                "initdb failed: {}\n{}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );

            let port = free_port();
            let log = File::create(&log_path).expect("create postgres log");
            let mut cmd = Command::new(bin.join("postgres"));
            cmd.arg("-D")
                .arg(&data)
                .arg("-p")
                .arg(port.to_string())
                .arg("-k")
                .arg(dir.path())
                .args(["-c", "listen_addresses=127.0.0.1"])
                .args([
                    "-c",
                    "fsync=off",
                    "-c",
                    "synchronous_commit=off",
                    "-c",
                    "full_page_writes=off",
                ])
                .args(["-c", "max_connections=30", "-c", "shared_buffers=16MB"])
                .args(["-c", "TimeZone=UTC", "-c", "DateStyle=ISO, MDY"])
                .args(
                    settings
                        .iter()
                        .flat_map(|(name, value)| ["-c".to_string(), format!("{name}={value}")]),
                )
                .stdin(Stdio::null())
                .stdout(log.try_clone().unwrap())
                .stderr(log);
            as_pg(&mut cmd);
            die_with_parent(&mut cmd);
            let child = cmd.spawn().expect("spawn postgres");
            // SIGQUIT = immediate shutdown; the data directory is thrown away anyway.
            let mut proc = Proc {
                child,
                signal: libc::SIGQUIT,
            };
            let conn_str = format!(
                "host=127.0.0.1 port={port} user=postgres dbname=postgres connect_timeout=5"
            );
            match wait_for_connection(&conn_str, &mut proc.child, &log_path, "postgres").await {
                Ok(()) => {
                    return Postgres {
                        _proc: proc,
                        port,
                        log_path,
                        _dir: dir,
                    }
                }
                Err(e) => {
                    drop(proc);
                    if e.is_port_clash() && attempt < 4 {
                        continue;
                    }
                    // PostgreSQL says "could not bind IPv4 address ...: Address already in use".
                    panic!("{}", e.message());
                }
            }
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn conn_str(&self) -> String {
        format!(
            "host=127.0.0.1 port={} user=postgres dbname=postgres connect_timeout=10",
            self.port
        )
    }

    pub async fn connect(&self) -> Client {
        match connect_to(&self.conn_str()).await {
            Ok(c) => c,
            Err(e) => panic!(
                "connecting to PostgreSQL failed: {e:?}\nlog:\n{}",
                tail(&read_file_lossy(&self.log_path), 50)
            ),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Query helpers
// ---------------------------------------------------------------------------------------------

/// Result of one statement run through the simple query protocol.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryResult {
    /// Column names from the RowDescription (empty for statements without one).
    pub columns: Vec<String>,
    pub rows: Rows,
    /// The count from CommandComplete (rows inserted/updated/deleted/selected; 0 for DDL).
    pub count: Option<u64>,
}

/// Runs one SQL statement with the simple query protocol.
pub async fn simple(client: &Client, sql: &str) -> Result<QueryResult, tokio_postgres::Error> {
    let fut = client.simple_query(sql);
    let msgs = match tokio::time::timeout(STEP_TIMEOUT, fut).await {
        Ok(r) => r?,
        Err(_) => panic!("statement did not complete within {STEP_TIMEOUT:?}: {sql}"),
    };
    let mut res = QueryResult::default();
    for m in msgs {
        match m {
            SimpleQueryMessage::RowDescription(cols) => {
                res.columns = cols.iter().map(|c| c.name().to_string()).collect();
            }
            SimpleQueryMessage::Row(row) => {
                if res.columns.is_empty() {
                    res.columns = row.columns().iter().map(|c| c.name().to_string()).collect();
                }
                res.rows.push(
                    (0..row.len())
                        .map(|i| row.get(i).map(str::to_string))
                        .collect(),
                );
            }
            SimpleQueryMessage::CommandComplete(n) => res.count = Some(n),
            _ => {}
        }
    }
    Ok(res)
}

/// A cell's text, NULL as the empty string.
pub fn cell(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or("")
}

/// Waits until `sql`'s first cell reads `want` (e.g. a source has caught up), or fails after
/// 30 s saying what it read last.
pub async fn wait_for(client: &Client, sql: &str, want: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let rows = query(client, sql).await;
        let got = rows.first().map_or("", |r| cell(&r[0])).to_string();
        if got == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "`{sql}` reads {got}, still not {want} after 30s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Runs a statement that must succeed; returns its rows.
pub async fn query(client: &Client, sql: &str) -> Rows {
    match simple(client, sql).await {
        Ok(r) => r.rows,
        Err(e) => panic!("query failed: {sql}\n  error: {}", describe_error(&e)),
    }
}

/// Runs a statement that must succeed; returns its CommandComplete count.
pub async fn execute(client: &Client, sql: &str) -> u64 {
    match simple(client, sql).await {
        Ok(r) => r.count.unwrap_or(0),
        Err(e) => panic!("statement failed: {sql}\n  error: {}", describe_error(&e)),
    }
}

/// The SQLSTATE of an error, if the server sent one.
pub fn sqlstate(e: &tokio_postgres::Error) -> Option<String> {
    e.code().map(|c| c.code().to_string())
}

/// "SQLSTATE xxxxx: message" or the client-side error.
pub fn describe_error(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("SQLSTATE {}: {}", db.code().code(), db.message()),
        None => format!("{e} ({e:?})"),
    }
}

/// Runs a statement that must fail; returns (SQLSTATE, message).
pub async fn expect_error(client: &Client, sql: &str) -> (String, String) {
    match simple(client, sql).await {
        Ok(r) => panic!("expected an error from `{sql}`, but it succeeded with {r:?}"),
        Err(e) => match e.as_db_error() {
            Some(db) => (db.code().code().to_string(), db.message().to_string()),
            None => panic!("expected an ErrorResponse from `{sql}`, got a client error: {e:?}"),
        },
    }
}

/// Runs a statement that must fail; returns the DETAIL line of its error, if any.
pub async fn error_detail(client: &Client, sql: &str) -> Option<String> {
    match simple(client, sql).await {
        Ok(r) => panic!("expected an error from `{sql}`, but it succeeded with {r:?}"),
        Err(e) => e
            .as_db_error()
            .and_then(|db| db.detail().map(str::to_string)),
    }
}

/// Row strings for easy literals in tests: `rows(&[&["1", "a"], &["2", "NULL"]])`,
/// where the literal string `NULL` stands for SQL NULL.
pub fn rows(lit: &[&[&str]]) -> Rows {
    lit.iter()
        .map(|r| {
            r.iter()
                .map(|v| {
                    if *v == "NULL" {
                        None
                    } else {
                        Some(v.to_string())
                    }
                })
                .collect()
        })
        .collect()
}

/// Sorts rows (NULLs first), for comparing results of queries without ORDER BY.
pub fn sorted(mut r: Rows) -> Rows {
    r.sort();
    r
}

/// Whether a query fixes the order of its result.
pub fn has_order_by(sql: &str) -> bool {
    let norm: String = sql
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    norm.contains("order by")
}

/// Renders rows like psql's unaligned output, for readable assertion messages.
pub fn show(r: &Rows) -> String {
    r.iter()
        .map(|row| {
            row.iter()
                .map(|v| v.clone().unwrap_or_else(|| "NULL".into()))
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A kpg session and a PostgreSQL session driven in lockstep.
pub struct Pair {
    pub kpg: Client,
    pub pg: Client,
}

impl Pair {
    pub async fn new(kpg: &KpgServer, pg: &Postgres) -> Pair {
        Pair {
            kpg: kpg.connect().await,
            pg: pg.connect().await,
        }
    }

    /// A fresh kpg and PostgreSQL (kept alive by the caller) and a pair of sessions on them
    /// that has run `setup` on both.
    pub async fn start(setup: &[&str]) -> (KpgServer, Postgres, Pair) {
        let (kpg, pg) = tokio::join!(KpgServer::start(), Postgres::start());
        let pair = Pair::new(&kpg, &pg).await;
        for stmt in setup {
            pair.exec(stmt).await;
        }
        (kpg, pg, pair)
    }

    /// Runs `sql` on both; both must succeed with the same row count for INSERT/UPDATE/DELETE
    /// (and, if it returns rows, the same rows).
    pub async fn exec(&self, sql: &str) {
        self.exec_each(sql, sql).await
    }

    /// Runs `kpg_sql` on kpg and `pg_sql` on PostgreSQL; both must succeed (same DML row count).
    pub async fn exec_each(&self, kpg_sql: &str, pg_sql: &str) {
        let p = match simple(&self.pg, pg_sql).await {
            Ok(r) => r,
            Err(e) => panic!(
                "oracle PostgreSQL rejected `{pg_sql}`: {} — fix the test",
                describe_error(&e)
            ),
        };
        let k = match simple(&self.kpg, kpg_sql).await {
            Ok(r) => r,
            Err(e) => panic!("kpg failed `{kpg_sql}`: {}", describe_error(&e)),
        };
        // Row counts of DML are part of the result (psql prints `INSERT 0 3`, `UPDATE 2`);
        // the tags of DDL are not compared.
        let first = kpg_sql
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        if matches!(first.as_str(), "INSERT" | "UPDATE" | "DELETE" | "SELECT") {
            assert_eq!(
                k.count, p.count,
                "row count (CommandComplete) differs for `{kpg_sql}` (kpg left, PostgreSQL right)"
            );
        }
        if !p.rows.is_empty() || !k.rows.is_empty() {
            compare_rows(kpg_sql, &k, &p);
        }
    }

    /// `CREATE MATERIALIZED VIEW name AS query` on kpg, `CREATE VIEW name AS query` on
    /// PostgreSQL (always current, so comparing `SELECT * FROM name` checks maintenance).
    pub async fn create_view(&self, name: &str, query: &str) {
        self.exec_each(
            &format!("CREATE MATERIALIZED VIEW {name} AS {query}"),
            &format!("CREATE VIEW {name} AS {query}"),
        )
        .await
    }

    /// `DROP MATERIALIZED VIEW name` on kpg, `DROP VIEW name` on PostgreSQL.
    pub async fn drop_view(&self, name: &str) {
        self.exec_each(
            &format!("DROP MATERIALIZED VIEW {name}"),
            &format!("DROP VIEW {name}"),
        )
        .await
    }

    /// Runs `sql` on both and compares column names and rows (sorted unless `ORDER BY`).
    pub async fn check(&self, sql: &str) {
        let p = match simple(&self.pg, sql).await {
            Ok(r) => r,
            Err(e) => panic!(
                "oracle PostgreSQL rejected `{sql}`: {} — fix the test",
                describe_error(&e)
            ),
        };
        let k = match simple(&self.kpg, sql).await {
            Ok(r) => r,
            Err(e) => panic!("kpg failed `{sql}`: {}", describe_error(&e)),
        };
        compare_rows(sql, &k, &p);
    }

    /// Runs `sql` on both; the rows must be equal in the order each server returned them,
    /// ORDER BY or not (for plain scans, which return rows in the order they were written).
    pub async fn check_in_order(&self, sql: &str) {
        let (k, p) = tokio::join!(simple(&self.kpg, sql), simple(&self.pg, sql));
        let p = p.unwrap_or_else(|e| {
            panic!("oracle PostgreSQL rejected `{sql}`: {}", describe_error(&e))
        });
        let k = k.unwrap_or_else(|e| panic!("kpg failed `{sql}`: {}", describe_error(&e)));
        compare_rows_as_returned(sql, &k.rows, &p.rows);
    }

    /// `check("SELECT * FROM name")`.
    pub async fn check_view(&self, name: &str) {
        self.check(&format!("SELECT * FROM {name}")).await
    }

    /// Each query ad hoc, then as a materialized view (`{prefix}0`, `{prefix}1`, ...) checked
    /// after each of `writes`: what an incrementally maintained view must keep equal.
    pub async fn check_through_writes(&self, queries: &[&str], prefix: &str, writes: &[&str]) {
        for q in queries {
            self.check(q).await;
        }
        for (i, q) in queries.iter().enumerate() {
            self.create_view(&format!("{prefix}{i}"), q).await;
        }
        for write in writes {
            self.exec(write).await;
            for i in 0..queries.len() {
                self.check_view(&format!("{prefix}{i}")).await;
            }
        }
    }

    /// Runs `sql` on both: the same rows (as `check`), or, when PostgreSQL fails it, an error
    /// with the same SQLSTATE (as `check_error`).
    pub async fn check_or_error(&self, sql: &str) {
        match simple(&self.pg, sql).await {
            Ok(_) => self.check(sql).await,
            Err(_) => {
                self.check_error(sql).await;
            }
        }
    }

    /// Runs `sql` on both; both must fail with the same SQLSTATE. Returns (SQLSTATE, kpg's
    /// message). Callers check afterwards that the session still works.
    pub async fn check_error(&self, sql: &str) -> (String, String) {
        let (pcode, pmsg) = match simple(&self.pg, sql).await {
            Ok(r) => panic!("oracle PostgreSQL accepted `{sql}` ({r:?}) — fix the test"),
            Err(e) => (
                sqlstate(&e).expect("PostgreSQL sends SQLSTATE"),
                describe_error(&e),
            ),
        };
        let (kcode, kmsg) = match simple(&self.kpg, sql).await {
            Ok(r) => panic!(
                "kpg accepted `{sql}` but PostgreSQL fails it with {pmsg}; kpg returned {r:?}"
            ),
            Err(e) => match e.as_db_error() {
                Some(db) => (db.code().code().to_string(), db.message().to_string()),
                None => panic!("kpg: expected an ErrorResponse for `{sql}`, got {e:?}"),
            },
        };
        assert_eq!(
            kcode, pcode,
            "SQLSTATE differs for `{sql}`: kpg says `{kmsg}`, PostgreSQL says `{pmsg}`"
        );
        (kcode, kmsg)
    }
}

fn compare_rows(sql: &str, k: &QueryResult, p: &QueryResult) {
    let (krows, prows) = if has_order_by(sql) {
        (k.rows.clone(), p.rows.clone())
    } else {
        (sorted(k.rows.clone()), sorted(p.rows.clone()))
    };
    compare_rows_as_returned(sql, &krows, &prows);
    if !p.columns.is_empty() && !k.columns.is_empty() {
        assert_eq!(
            k.columns, p.columns,
            "column names differ for `{sql}` (kpg left, PostgreSQL right)"
        );
    }
}

fn compare_rows_as_returned(sql: &str, krows: &Rows, prows: &Rows) {
    if krows != prows {
        panic!(
            "result differs for `{sql}`\n--- kpg ({} rows):\n{}\n--- PostgreSQL ({} rows):\n{}\n",
            krows.len(),
            show(krows),
            prows.len(),
            show(prows)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// SUBSCRIBE
// ---------------------------------------------------------------------------------------------

/// One row of a `COPY (SUBSCRIBE ...) TO STDOUT` stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubRow {
    pub ts: u64,
    pub diff: i64,
    pub cols: Vec<Option<String>>,
}

/// Decodes one line of PostgreSQL text COPY format into fields (`\N` is NULL).
pub fn decode_copy_line(line: &str) -> Vec<Option<String>> {
    line.split('\t')
        .map(|field| {
            if field == "\\N" {
                return None;
            }
            let mut out = String::with_capacity(field.len());
            let mut chars = field.chars();
            while let Some(c) = chars.next() {
                if c != '\\' {
                    out.push(c);
                    continue;
                }
                match chars.next() {
                    Some('b') => out.push('\u{8}'),
                    Some('f') => out.push('\u{c}'),
                    Some('n') => out.push('\n'),
                    Some('r') => out.push('\r'),
                    Some('t') => out.push('\t'),
                    Some('v') => out.push('\u{b}'),
                    Some(other) => out.push(other),
                    None => out.push('\\'),
                }
            }
            Some(out)
        })
        .collect()
}

/// A `COPY (SUBSCRIBE ...) TO STDOUT` in progress (through tokio-postgres `copy_out`,
/// i.e. the extended query protocol).
pub struct Subscription {
    stream: Pin<Box<CopyOutStream>>,
    buf: Vec<u8>,
    /// Every row received so far, in order.
    pub received: Vec<SubRow>,
}

impl Subscription {
    pub async fn start(client: &Client, sql: &str) -> Result<Subscription, tokio_postgres::Error> {
        let stream = match tokio::time::timeout(STEP_TIMEOUT, client.copy_out(sql)).await {
            Ok(r) => r?,
            Err(_) => panic!("`{sql}` did not start streaming within {STEP_TIMEOUT:?}"),
        };
        Ok(Subscription {
            stream: Box::pin(stream),
            buf: Vec::new(),
            received: Vec::new(),
        })
    }

    /// The next row; `Ok(None)` when the stream ended (CopyDone), `Err` on an error.
    pub async fn try_next(&mut self, timeout: Duration) -> Result<Option<SubRow>, NextError> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if let Some(pos) = self.buf.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=pos).collect();
                let line =
                    String::from_utf8(line[..line.len() - 1].to_vec()).expect("COPY data is UTF-8");
                let mut fields = decode_copy_line(&line);
                assert!(
                    fields.len() >= 2,
                    "subscribe row needs mz_timestamp and mz_diff: {line:?}"
                );
                let rest = fields.split_off(2);
                let ts = fields[0]
                    .as_deref()
                    .and_then(|s| s.parse::<u64>().ok())
                    .unwrap_or_else(|| panic!("bad mz_timestamp in {line:?}"));
                let diff = fields[1]
                    .as_deref()
                    .and_then(|s| s.parse::<i64>().ok())
                    .unwrap_or_else(|| panic!("bad mz_diff in {line:?}"));
                let row = SubRow {
                    ts,
                    diff,
                    cols: rest,
                };
                self.received.push(row.clone());
                return Ok(Some(row));
            }
            match tokio::time::timeout_at(deadline, self.stream.next()).await {
                Err(_) => return Err(NextError::Timeout),
                Ok(None) => return Ok(None),
                Ok(Some(Err(e))) => return Err(NextError::Pg(e)),
                Ok(Some(Ok(bytes))) => self.buf.extend_from_slice(&bytes),
            }
        }
    }

    /// The next row, panicking on timeout, error or end of stream.
    pub async fn next_row(&mut self) -> SubRow {
        match self.try_next(STEP_TIMEOUT).await {
            Ok(Some(r)) => r,
            Ok(None) => panic!(
                "subscription ended unexpectedly; received so far: {:?}",
                self.received
            ),
            Err(e) => panic!("subscription: {e:?}; received so far: {:?}", self.received),
        }
    }

    /// Reads rows until their consolidated content (row → summed diff, zeros dropped) equals
    /// `expected` (rows with diffs). Returns the rows read. Panics after [`STEP_TIMEOUT`].
    pub async fn read_until(&mut self, expected: &[(Vec<Option<String>>, i64)]) -> Vec<SubRow> {
        let want = consolidate(expected.iter().cloned());
        let mut got_rows = Vec::new();
        let deadline = tokio::time::Instant::now() + STEP_TIMEOUT;
        loop {
            let have = consolidate(got_rows.iter().map(|r: &SubRow| (r.cols.clone(), r.diff)));
            if have == want {
                return got_rows;
            }
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.try_next(left).await {
                Ok(Some(r)) => got_rows.push(r),
                other => panic!(
                    "subscription: waiting for changes {want:?}\n  got so far {have:?} (rows {got_rows:?})\n  \
                     then: {other:?}"
                ),
            }
        }
    }

    /// Waits `quiet` and asserts no row arrives meanwhile.
    pub async fn expect_quiet(&mut self, quiet: Duration) {
        match self.try_next(quiet).await {
            Err(NextError::Timeout) => {}
            other => panic!("expected no subscription output for {quiet:?}, got {other:?}"),
        }
    }
}

#[derive(Debug)]
pub enum NextError {
    Timeout,
    Pg(tokio_postgres::Error),
}

/// Sums diffs per row and drops rows whose diff is 0.
pub fn consolidate(
    it: impl IntoIterator<Item = (Vec<Option<String>>, i64)>,
) -> BTreeMap<Vec<Option<String>>, i64> {
    let mut m = BTreeMap::new();
    for (row, d) in it {
        *m.entry(row).or_insert(0) += d;
    }
    m.retain(|_, d| *d != 0);
    m
}

/// Row literal for subscriptions: `srow(&["1", "NULL"])`.
pub fn srow(cols: &[&str]) -> Vec<Option<String>> {
    rows(&[cols]).pop().unwrap()
}

// ---------------------------------------------------------------------------------------------
// psql
// ---------------------------------------------------------------------------------------------

/// Whether `psql` is on PATH.
pub fn psql_available() -> bool {
    Command::new("psql")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}
