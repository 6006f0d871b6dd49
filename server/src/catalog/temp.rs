//! Temporary tables: which session a statement runs for, and the names its temporary objects
//! are kept under.
//!
//! Each connection's task runs inside `in_session` (see `main.rs`), which gives it a session
//! number through a task-local, so the catalog can resolve names as that session sees them
//! without every call passing the session along: its temporary objects first (PostgreSQL's
//! `pg_temp` comes first on the search path), then everyone's. A temporary object is entered
//! under `pg_temp_<session>.<name>`, a key no SQL name resolves to directly (a schema other than
//! `public` and the system ones does not exist), and keeps its own name for messages.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};

tokio::task_local! {
    static SESSION: u64;
}

static NEXT_SESSION: AtomicU64 = AtomicU64::new(1);

/// Runs `f` as a new session; returns the session's number with `f`'s output, so the caller
/// can drop what the session left behind.
pub async fn in_session<F: Future>(f: F) -> (u64, F::Output) {
    let session = NEXT_SESSION.fetch_add(1, Ordering::Relaxed);
    (session, SESSION.scope(session, f).await)
}

/// The session the current task runs for, if any.
pub fn current() -> Option<u64> {
    SESSION.try_with(|s| *s).ok()
}

/// The catalog key of the temporary object `name` of `session`.
pub fn key(session: u64, name: &str) -> String {
    format!("{}.{name}", schema(session))
}

/// The name of the schema holding the temporary objects of `session`.
pub fn schema(session: u64) -> String {
    format!("pg_temp_{session}")
}
