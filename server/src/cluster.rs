//! Running kpg as one of several processes forming a timely cluster.
//!
//! Checks the `--process`, `--processes` and `--addresses` flags (the addresses file lists one
//! `host:port` per process, process 0 first, like timely's hostfile) and turns them into the
//! compute runtime's `ClusterConfig`. A timely cluster cannot lose a process and go on, and
//! timely reports a broken connection by panicking in its network threads; `exit_on_lost_peer`
//! turns that panic into an exit of the whole process, so that the other processes stop when
//! process 0 goes away (and process 0 stops, rather than hangs, when another does).

use std::net::ToSocketAddrs;
use std::path::Path;

use anyhow::{bail, Context};
use kpg_compute::ClusterConfig;

/// The cluster this process belongs to, or `None` when it runs alone (`--processes 1`).
pub fn config(
    process: usize,
    processes: usize,
    addresses: Option<&Path>,
    workers: usize,
) -> anyhow::Result<Option<ClusterConfig>> {
    if processes == 0 {
        bail!("--processes must be at least 1");
    }
    if process >= processes {
        bail!("--process {process} is out of range: processes are numbered 0 to {} (--processes {processes})", processes - 1);
    }
    let Some(path) = addresses else {
        if processes > 1 {
            bail!(
                "--processes {processes} needs --addresses FILE, listing one host:port per process"
            );
        }
        return Ok(None);
    };
    if processes == 1 {
        bail!("--addresses is only used with --processes greater than 1");
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the --addresses file {}", path.display()))?;
    let addresses = parse_addresses(&text, path)?;
    if addresses.len() != processes {
        bail!(
            "the --addresses file {} lists {} address(es), but --processes is {processes}",
            path.display(),
            addresses.len()
        );
    }
    Ok(Some(ClusterConfig {
        process,
        addresses,
        workers,
    }))
}

/// One `host:port` per non-empty line (`#` starts a comment line); each must resolve, and no
/// address may appear twice.
fn parse_addresses(text: &str, path: &Path) -> anyhow::Result<Vec<String>> {
    let mut addresses: Vec<String> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let resolved = line.to_socket_addrs().with_context(|| {
            format!(
                "line {} of the --addresses file {}: `{line}` is not a host:port address",
                n + 1,
                path.display()
            )
        })?;
        if resolved.count() == 0 {
            bail!(
                "line {} of the --addresses file {}: `{line}` resolves to no address",
                n + 1,
                path.display()
            );
        }
        if addresses.iter().any(|a| a == line) {
            bail!(
                "line {} of the --addresses file {}: `{line}` is listed twice",
                n + 1,
                path.display()
            );
        }
        addresses.push(line.to_string());
    }
    Ok(addresses)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file in the system's temporary directory, removed on drop.
    struct TempFile(std::path::PathBuf);

    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    fn write(text: &str) -> TempFile {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "kpg-addresses-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&path, text).expect("write a temporary file");
        TempFile(path)
    }

    fn err(process: usize, processes: usize, text: Option<&str>) -> String {
        let file = text.map(write);
        config(process, processes, file.as_ref().map(|f| f.0.as_path()), 1)
            .expect_err("an error")
            .to_string()
    }

    #[test]
    fn flags_are_checked() {
        assert!(config(0, 1, None, 2).unwrap().is_none());
        assert!(err(0, 0, None).contains("at least 1"));
        assert!(err(2, 2, None).contains("out of range"));
        assert!(err(0, 2, None).contains("needs --addresses"));
        assert!(err(0, 1, Some("127.0.0.1:1\n")).contains("only used with --processes"));
        assert!(err(0, 2, Some("127.0.0.1:1\n")).contains("lists 1 address(es)"));
        assert!(err(0, 2, Some("127.0.0.1:1\nnot an address\n")).contains("line 2"));
        assert!(err(0, 2, Some("127.0.0.1:1\n127.0.0.1:1\n")).contains("listed twice"));
        let file = write("# the cluster\n127.0.0.1:2101\n\n127.0.0.1:2102\n");
        let c = config(1, 2, Some(&file.0), 3).unwrap().unwrap();
        assert_eq!(c.process, 1);
        assert_eq!(c.workers, 3);
        assert_eq!(c.addresses, vec!["127.0.0.1:2101", "127.0.0.1:2102"]);
    }

    #[test]
    fn missing_file_is_reported() {
        let e = config(0, 2, Some(Path::new("/nonexistent/kpg-addresses")), 1).unwrap_err();
        assert!(format!("{e:#}").contains("reading the --addresses file"));
    }
}
