//! Several kpg processes forming one cluster, for end-to-end tests.
//!
//! [`KpgCluster::start`] picks free localhost ports for the processes' timely connections,
//! writes them to an addresses file, starts processes 1.. (workers only) and then process 0 as a
//! [`KpgServer`] (which serves SQL once every process has connected). Everything it starts is
//! stopped on drop, process 0 first; logs of every process are printed if the test panicked.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use tokio_postgres::Client;

use crate::{kpg_bin, read_file_lossy, spawn_kpg_process, tail, KpgServer, Proc};

/// A process of the cluster other than 0.
struct Member {
    process: usize,
    proc: Proc,
    log_path: PathBuf,
    out_path: PathBuf,
}

impl Member {
    fn log_tail(&self, lines: usize) -> String {
        format!(
            "[stdout]\n{}\n[stderr]\n{}",
            tail(&read_file_lossy(&self.out_path), lines),
            tail(&read_file_lossy(&self.log_path), lines)
        )
    }
}

/// A running kpg cluster: process 0 serves SQL, the others run workers; all stopped on drop.
pub struct KpgCluster {
    /// Process 0. First, so that it is stopped first.
    server: Option<KpgServer>,
    others: Vec<Member>,
    /// Worker threads per process.
    workers: usize,
    // Last, so the directory is removed after the processes are gone.
    _dir: tempfile::TempDir,
}

impl KpgCluster {
    /// Starts `processes` kpg processes (at least 2) of `workers` threads each.
    pub async fn start(processes: usize, workers: usize) -> KpgCluster {
        assert!(processes >= 2, "a cluster has at least two processes");
        let bin = kpg_bin();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let dir = tempfile::Builder::new()
                .prefix("kpg-cluster-")
                .tempdir()
                .expect("create temp dir");
            write_addresses(dir.path(), processes);
            let others: Vec<Member> = (1..processes)
                .map(|process| spawn_member(dir.path(), process, processes, workers))
                .collect();
            let args = cluster_args(dir.path(), 0, processes);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            match KpgServer::launch(workers, &args).await {
                Ok(server) => {
                    return KpgCluster {
                        server: Some(server),
                        others,
                        workers,
                        _dir: dir,
                    }
                }
                Err(e) => {
                    let logs: Vec<String> = others
                        .iter()
                        .map(|m| format!("process {}:\n{}", m.process, m.log_tail(50)))
                        .collect();
                    drop(others);
                    let clash = logs.iter().any(|l| l.contains("Address already in use"));
                    if (e.is_port_clash() || clash) && attempt < 4 {
                        continue;
                    }
                    panic!(
                        "process 0: {}\nother processes:\n{}\n(binary: {})",
                        e.message(),
                        logs.join("\n"),
                        bin.display()
                    );
                }
            }
        }
    }

    /// Process 0, which serves SQL.
    pub fn server(&self) -> &KpgServer {
        self.server.as_ref().expect("process 0 is running")
    }

    /// A new connection to process 0 (user `kpg`, database `kpg`).
    pub async fn connect(&self) -> Client {
        self.server().connect().await
    }

    /// Process 0's process id.
    pub fn pid(&self) -> u32 {
        self.server().pid()
    }

    /// Process `process`'s process id (0 is the one serving SQL).
    pub fn pid_of(&self, process: usize) -> u32 {
        match process {
            0 => self.pid(),
            _ => self.others[process - 1].proc.child.id(),
        }
    }

    /// Kills process 0 and waits up to `timeout` for the other processes to exit by themselves.
    /// Returns each one's exit status, `None` for one still running (killed when dropped).
    pub fn stop_process_0(&mut self, timeout: Duration) -> Vec<Option<ExitStatus>> {
        drop(self.server.take());
        let deadline = Instant::now() + timeout;
        let mut statuses: Vec<Option<ExitStatus>> = vec![None; self.others.len()];
        loop {
            for (status, member) in statuses.iter_mut().zip(&mut self.others) {
                if status.is_none() {
                    *status = member.proc.child.try_wait().expect("try_wait");
                }
            }
            if statuses.iter().all(Option::is_some) || Instant::now() > deadline {
                return statuses;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills process 0 with SIGKILL (a crash), lets the others stop (or kills them), and starts
    /// the cluster again on new ports, every process on its data directory.
    pub async fn restart(&mut self) {
        let processes = self.others.len() + 1;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let server = self.server.as_mut().expect("process 0 is running");
            server.kill();
            let deadline = Instant::now() + Duration::from_secs(10);
            for member in &mut self.others {
                while member.proc.child.try_wait().expect("try_wait").is_none() {
                    if Instant::now() > deadline {
                        let _ = member.proc.child.kill();
                        let _ = member.proc.child.wait();
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
            write_addresses(self._dir.path(), processes);
            self.others = (1..processes)
                .map(|process| spawn_member(self._dir.path(), process, processes, self.workers))
                .collect();
            // Process 0 keeps its arguments, among them the addresses file rewritten above.
            let Err(e) = server.try_restart().await else {
                return;
            };
            let clash =
                (self.others.iter()).any(|m| m.log_tail(50).contains("Address already in use"));
            if (e.is_port_clash() || clash) && attempt < 4 {
                continue;
            }
            panic!("restarting the cluster: process 0: {}", e.message());
        }
    }

    /// Everything process `process` (1..) wrote to stderr so far.
    pub fn stderr_of(&self, process: usize) -> String {
        read_file_lossy(&self.others[process - 1].log_path)
    }
}

impl Drop for KpgCluster {
    fn drop(&mut self) {
        if std::thread::panicking() {
            for m in &self.others {
                eprintln!(
                    "---- kpg cluster process {} log tail ----\n{}\n---- end ----",
                    m.process,
                    m.log_tail(100)
                );
            }
        }
        // Process 0 (its `KpgServer` prints its own log), then the others, as fields drop.
    }
}

/// The arguments that make a kpg process `process` of the cluster whose addresses file is in
/// `dir`.
fn cluster_args(dir: &Path, process: usize, processes: usize) -> Vec<String> {
    vec![
        "--process".to_string(),
        process.to_string(),
        "--processes".to_string(),
        processes.to_string(),
        "--addresses".to_string(),
        dir.join("addresses").display().to_string(),
    ]
}

/// Writes the addresses file in `dir`: a free localhost port for each process.
fn write_addresses(dir: &Path, processes: usize) {
    std::fs::write(
        dir.join("addresses"),
        free_addresses(processes).join("\n") + "\n",
    )
    .expect("write the addresses file");
}

/// Starts process `process` (1..) of the cluster in `dir`, on its data directory there; its
/// output is appended to its log files.
fn spawn_member(dir: &Path, process: usize, processes: usize, workers: usize) -> Member {
    let logs = format!("kpg-{process}");
    let data_dir = dir.join(format!("data-{process}"));
    let args = cluster_args(dir, process, processes);
    Member {
        process,
        proc: Proc {
            child: spawn_kpg_process(dir, &data_dir, workers, &args, &logs),
            signal: libc::SIGKILL,
        },
        log_path: dir.join(format!("{logs}.stderr")),
        out_path: dir.join(format!("{logs}.stdout")),
    }
}

/// Localhost addresses on ports free right now, one per process (all held at once, so distinct).
fn free_addresses(n: usize) -> Vec<String> {
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0"))
        .collect();
    listeners
        .iter()
        .map(|l| {
            format!(
                "127.0.0.1:{}",
                l.local_addr().expect("local address").port()
            )
        })
        .collect()
}
