//! Panics that end the process. A compute worker that panics leaves its dataflows half
//! stepped and the other workers waiting on it forever; the server would go on accepting
//! statements that then wait forever too. So a panic on a worker thread (timely names them
//! `timely:work-N`) exits the process, after the panic is printed: a restart restores every
//! object and row from the data directory. In a cluster, the loss of the connection to another
//! process (which timely reports as a panic on a worker) exits the same way. Panics elsewhere
//! (a session's task, a planner bug caught as an internal error) keep their own handling.

/// The exit status after a worker's panic (`EX_SOFTWARE`).
const WORKER_PANICKED: i32 = 70;

/// Installs the hook (once, at startup); `process` is this process's index in a cluster.
pub fn exit_on_worker_panic(process: Option<usize>) {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if process.is_some() && message.starts_with("timely communication error") {
            tracing::error!(
                process,
                "lost the connection to another process of the cluster ({message}); exiting"
            );
            std::process::exit(1);
        }
        default(info);
        let thread = std::thread::current();
        if thread.name().is_some_and(|n| n.starts_with("timely:work")) {
            tracing::error!(
                thread = thread.name().unwrap_or_default(),
                "a compute worker panicked; exiting (a restart restores the data directory)"
            );
            std::process::exit(WORKER_PANICKED);
        }
    }));
}
