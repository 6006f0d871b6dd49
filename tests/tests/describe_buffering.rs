//! A Describe's answer waits for Sync or Flush, as PostgreSQL's does: libpq executes a prepared
//! statement as Bind, Describe, Execute, Sync, and kpg used to write the Describe's answer at
//! once, so the client got two writes (and woke twice) where PostgreSQL sends one. The same
//! messages go to kpg and PostgreSQL through a raw protocol client, and what arrives, and when
//! (before or after Flush and Sync), must be the same.

use std::time::Duration;

use kpg_tests::wire::{
    bind_message, describe_message, execute_message, flush_message, parse_message,
    same_transcripts, sync_message,
};
use kpg_tests::*;

/// How long a reply that should not come is waited for.
const QUIET: Duration = Duration::from_millis(300);

fn run(port: u16, user: &str) -> Vec<String> {
    let mut wire = Wire::connect(port, user);
    let mut seen = Vec::new();
    wire.send(&[
        parse_message("SELECT 1 AS one"),
        bind_message(&[]),
        describe_message(b'P'),
    ]);
    seen.push(format!(
        "answer before Sync or Flush: {}",
        wire.replies_within(QUIET)
    ));
    wire.send(&[flush_message()]);
    seen.extend(wire.next_replies(3));
    wire.send(&[describe_message(b'S')]);
    seen.push(format!(
        "statement described, answer before Flush: {}",
        wire.replies_within(QUIET)
    ));
    wire.send(&[execute_message(), sync_message()]);
    seen.extend(wire.replies());
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn describe_answers_leave_with_sync_or_flush_as_in_postgres() {
    let k = same_transcripts(run).await;
    assert_eq!(k[0], "answer before Sync or Flush: false", "{k:?}");
    assert!(k.contains(&"RowDescription".to_string()), "{k:?}");
}
