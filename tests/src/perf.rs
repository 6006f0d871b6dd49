//! `perf record` of a kpg process over one phase of a benchmark, when `KPG_PERF_DIR` is set:
//! the profile of the phase alone (not the load before it), for `perf report`.

use std::time::Duration;

/// `perf record` of `pid` until `stop`, if `KPG_PERF_DIR` is set.
pub struct Perf(Option<std::process::Child>);

impl Perf {
    /// No profile.
    pub fn none() -> Perf {
        Perf(None)
    }

    pub fn start(pid: u32, name: &str) -> Perf {
        let Some(dir) = std::env::var_os("KPG_PERF_DIR") else {
            return Perf(None);
        };
        let out = std::path::Path::new(&dir).join(format!("{name}.data"));
        // `KPG_PERF_CALLGRAPH=dwarf` for call graphs of a build without frame pointers.
        let graph = std::env::var("KPG_PERF_CALLGRAPH").unwrap_or_else(|_| "fp".into());
        // `KPG_PERF_FREQ`: samples per second (999 unless set).
        let freq = std::env::var("KPG_PERF_FREQ").unwrap_or_else(|_| "999".into());
        let child = std::process::Command::new("perf")
            .args(["record", "-F", &freq, "--call-graph", &graph])
            .args(["-p", &pid.to_string(), "-o"])
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| eprintln!("perf record could not start: {e}"))
            .ok();
        if child.is_some() {
            std::thread::sleep(Duration::from_millis(300));
            println!("  (perf profile: {})", out.display());
        }
        Perf(child)
    }

    pub fn stop(mut self) {
        if let Some(child) = self.0.as_mut() {
            unsafe {
                libc::kill(child.id() as libc::pid_t, libc::SIGINT);
            }
            let _ = child.wait();
        }
    }
}
