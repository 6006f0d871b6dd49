//! The committer: one thread that owns the store and makes commits durable in the order they
//! were submitted, several at a time.
//!
//! Writers submit a commit with a sequence number (the coordinator numbers them under its lock,
//! in the order it gave them timestamps) and wait for `durable` to reach it. While one
//! transaction is being written and fsync'd, newly submitted commits queue up; the next
//! transaction takes all of them (group commit), so N concurrent writers cost about one fsync
//! per round, not N. After each transaction, `on_durable` is told the last sequence number it
//! covered — the coordinator then makes those writes readable — and only then are the waiters
//! woken, so a write is acknowledged only once it is both durable and visible; then the store
//! finishes what it left for after the acknowledgement (`Store::settle`: the redb store applies
//! the commits its write-ahead log made durable). Merging stored updates (`Store::compact`)
//! happens after that, in transactions of its own: one small step after each group, more while
//! no commit is queued; a large merge is computed on a thread of the store's and written in
//! small steps, so a commit waits at most for one step.
//!
//! A store that fails to write leaves memory ahead of disk; continuing would acknowledge writes
//! a restart loses, so the process stops (after logging the store's error) instead.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

use super::{Commit, Store, TableAppend};

/// While commits are waiting, a merge reads at most this many updates (a few milliseconds).
const BUSY_MERGE_ROWS: usize = 20_000;
/// How long the committer waits idle before the store settles everything.
const IDLE_SETTLE: std::time::Duration = std::time::Duration::from_millis(10);
/// How often an idle committer looks whether a merge computed on its own thread is ready.
const MERGE_POLL: std::time::Duration = std::time::Duration::from_millis(2);

enum Request {
    Commit {
        seq: u64,
        commit: Commit,
    },
    /// Answered once every commit submitted before it is durable and the store is closed (a
    /// clean shutdown); later commits are refused.
    Close(std::sync::mpsc::Sender<()>),
}

/// How far commits are durable, and the writers waiting for later ones, by the number they
/// wait for. Each is woken alone when its number is reached (a channel that woke every waiter
/// at every group cost each of 8 concurrent writers a wake-up per group, most of them for
/// nothing). Cleared when the thread stops: the waiters left see their sender gone.
#[derive(Default)]
struct Durable {
    seq: u64,
    waiting: BTreeMap<u64, Vec<oneshot::Sender<()>>>,
    stopped: bool,
}

impl Durable {
    /// Records that commits up to `seq` are durable and wakes their waiters.
    fn reach(this: &Mutex<Durable>, seq: u64) {
        let woken = {
            let mut d = this.lock().expect("durable waiters");
            d.seq = d.seq.max(seq);
            let later = d.waiting.split_off(&(seq + 1));
            std::mem::replace(&mut d.waiting, later)
        };
        for tx in woken.into_values().flatten() {
            let _ = tx.send(());
        }
    }

    /// The thread stopped: nothing more becomes durable.
    fn stop(this: &Mutex<Durable>) {
        let mut d = this.lock().expect("durable waiters");
        d.stopped = true;
        d.waiting.clear();
    }
}

/// Stops `Durable` when the committer thread ends, however it ends.
struct StopOnExit(Arc<Mutex<Durable>>);

impl Drop for StopOnExit {
    fn drop(&mut self) {
        Durable::stop(&self.0);
    }
}

/// A handle to the committer thread.
pub struct Committer {
    tx: mpsc::Sender<Request>,
    durable: Arc<Mutex<Durable>>,
    /// Set by `close`: from then on a commit that cannot be made durable is simply never
    /// acknowledged (the process is exiting), rather than a reason to halt with an error.
    closing: AtomicBool,
}

impl Committer {
    /// Starts the thread. `on_durable(seq, commit)` runs on it after each transaction, with the
    /// last sequence number and the (merged) commit it made durable, which it may consume;
    /// `acknowledged(more)` right after the writers waiting for it are woken, `more` telling
    /// whether another commit is already queued (the next group follows at once).
    pub fn start(
        mut store: Box<dyn Store>,
        on_durable: impl Fn(u64, Commit) + Send + 'static,
        acknowledged: impl Fn(bool) + Send + 'static,
    ) -> Committer {
        let (tx, rx) = mpsc::channel::<Request>();
        let durable = Arc::new(Mutex::new(Durable::default()));
        let durable_tx = Arc::clone(&durable);
        std::thread::Builder::new()
            .name("kpg-committer".into())
            .spawn(move || {
                let _stop = StopOnExit(Arc::clone(&durable_tx));
                let mut next = rx.recv();
                // A request taken off the queue early (to know whether one was there).
                let mut early: Option<Request> = None;
                while let Ok(first) = next {
                    let mut group = Commit::default();
                    let mut last = None;
                    let mut close = None;
                    for request in std::iter::once(first).chain(rx.try_iter()) {
                        match request {
                            Request::Commit { seq, commit } => {
                                group.absorb(commit);
                                last = Some(seq);
                            }
                            Request::Close(done) => close = Some(done),
                        }
                    }
                    if let Some(seq) = last {
                        let split = coalesce(&mut group);
                        let written = store.commit(&group);
                        uncoalesce(&mut group, split);
                        if let Err(e) = written {
                            halt(&e.0);
                        }
                        on_durable(seq, group);
                        Durable::reach(&durable_tx, seq);
                        early = rx.try_recv().ok();
                        acknowledged(matches!(early, Some(Request::Commit { .. })));
                        if let Err(e) = store.settle(false) {
                            halt(&e.0);
                        }
                    }
                    if let Some(done) = close {
                        drop(store);
                        let _ = done.send(());
                        return;
                    }
                    // Merging, after the acknowledgement: small merges at once (they keep
                    // pace with many small writes), larger ones only while nobody waits.
                    if let Err(e) = store.compact(BUSY_MERGE_ROWS) {
                        halt(&e.0);
                    }
                    next = loop {
                        if let Some(request) = early.take() {
                            break Ok(request);
                        }
                        match rx.try_recv() {
                            Ok(request) => break Ok(request),
                            Err(mpsc::TryRecvError::Disconnected) => break Err(mpsc::RecvError),
                            Err(mpsc::TryRecvError::Empty) => match store.compact(usize::MAX) {
                                Ok(true) => continue,
                                // A large merge is computed on its own thread: look again soon.
                                Ok(false) if store.merging() => match rx.recv_timeout(MERGE_POLL) {
                                    Ok(request) => break Ok(request),
                                    Err(mpsc::RecvTimeoutError::Timeout) => continue,
                                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                                        break Err(mpsc::RecvError)
                                    }
                                },
                                // Idle a while: apply what the store left for later.
                                Ok(false) if store.unsettled() => {
                                    match rx.recv_timeout(IDLE_SETTLE) {
                                        Ok(request) => break Ok(request),
                                        Err(mpsc::RecvTimeoutError::Timeout) => {
                                            if let Err(e) = store.settle(true) {
                                                halt(&e.0);
                                            }
                                        }
                                        Err(mpsc::RecvTimeoutError::Disconnected) => {
                                            break Err(mpsc::RecvError)
                                        }
                                    }
                                }
                                Ok(false) => break rx.recv(),
                                Err(e) => halt(&e.0),
                            },
                        }
                    };
                }
            })
            .expect("spawn committer thread");
        Committer {
            tx,
            durable,
            closing: AtomicBool::new(false),
        }
    }

    /// Queues `commit` as number `seq` (numbers increase in submission order).
    pub fn submit(&self, seq: u64, commit: Commit) {
        if self.tx.send(Request::Commit { seq, commit }).is_err() && !self.closing() {
            halt("the committer thread is gone");
        }
    }

    /// Waits until every commit numbered up to `seq` is durable (and visible).
    pub async fn wait(&self, seq: u64) {
        let rx = {
            let mut d = self.durable.lock().expect("durable waiters");
            if d.seq >= seq {
                return;
            }
            let (tx, rx) = oneshot::channel();
            if !d.stopped {
                d.waiting.entry(seq).or_default().push(tx);
            }
            rx
        };
        if rx.await.is_err() {
            if self.closing() {
                // Submitted after the store closed: never durable, so never acknowledged.
                std::future::pending::<()>().await;
            }
            halt("the committer thread is gone");
        }
    }

    fn closing(&self) -> bool {
        self.closing.load(Ordering::SeqCst)
    }

    /// Blocks until every commit submitted so far is durable, then closes the store (a clean
    /// shutdown: the next start needs no recovery).
    pub fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
        let (done, wait) = std::sync::mpsc::channel();
        if self.tx.send(Request::Close(done)).is_ok() {
            let _ = wait.recv();
        }
    }
}

/// How a group's appends were folded by `coalesce`: for each stored append, the original
/// appends it holds, in order, as (position in the group, time, number of updates).
type Split = Vec<Vec<(usize, u64, usize)>>;

/// Folds the appends of each table in a group into one (at the latest of their times), so the
/// store writes one run per table per group rather than one per statement (and merges runs that
/// much less often). Stored updates keep no history (a restart loads them consolidated), so
/// only their sum matters there; the workers must still see each write at its own time, which
/// `uncoalesce` restores. `None` if no table has two appends (nothing to fold).
fn coalesce(group: &mut Commit) -> Option<Split> {
    let mut seen = std::collections::HashSet::with_capacity(group.appends.len());
    if group.appends.iter().all(|a| seen.insert(a.table)) {
        return None;
    }
    let mut index = std::collections::HashMap::with_capacity(seen.len());
    let mut folded: Vec<TableAppend> = Vec::with_capacity(seen.len());
    let mut split: Split = Vec::with_capacity(seen.len());
    for (position, append) in std::mem::take(&mut group.appends).into_iter().enumerate() {
        let i = *index.entry(append.table).or_insert_with(|| {
            folded.push(TableAppend {
                table: append.table,
                time: append.time,
                updates: Vec::new(),
            });
            split.push(Vec::new());
            folded.len() - 1
        });
        let into = &mut folded[i];
        into.time = into.time.max(append.time);
        split[i].push((position, append.time, append.updates.len()));
        if into.updates.is_empty() {
            into.updates = append.updates;
        } else {
            into.updates.extend(append.updates);
        }
    }
    group.appends = folded;
    Some(split)
}

/// Undoes `coalesce`: the group's appends as they were submitted, each with its own time and
/// updates, in their order.
fn uncoalesce(group: &mut Commit, split: Option<Split>) {
    let Some(split) = split else {
        return;
    };
    let count = split.iter().map(Vec::len).sum();
    let mut appends: Vec<Option<TableAppend>> = (0..count).map(|_| None).collect();
    for (folded, pieces) in std::mem::take(&mut group.appends).into_iter().zip(split) {
        let mut updates = folded.updates;
        for &(position, time, len) in pieces.iter().rev() {
            appends[position] = Some(TableAppend {
                table: folded.table,
                time,
                updates: updates.split_off(updates.len() - len),
            });
        }
    }
    group.appends = appends
        .into_iter()
        .map(|a| a.expect("every append"))
        .collect();
}

/// Stops the process: the store could not keep what kpg has already applied in memory.
fn halt(why: &str) -> ! {
    tracing::error!("stopping: the data directory cannot be written: {why}");
    eprintln!("kpg: stopping: the data directory cannot be written: {why}");
    std::process::exit(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::memory::MemoryStore;
    use crate::storage::{Meta, TableAppend};
    use kpg_types::{Datum, Row};
    use std::sync::{Arc, Mutex};

    /// Commits submitted while the store is busy go into one transaction, in order, and a
    /// waiter wakes only after `on_durable` has seen its commit. `acknowledged` follows each
    /// group, saying `more` exactly when another group follows (so a wake-up it puts off is
    /// never lost).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_commits_are_grouped_in_order() {
        let store = MemoryStore::default();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let acks = Arc::new(Mutex::new(Vec::new()));
        let acked = Arc::clone(&acks);
        let committer = Arc::new(Committer::start(
            Box::new(store.clone()),
            move |seq, c| {
                // A slow disk: later submissions pile up meanwhile.
                std::thread::sleep(std::time::Duration::from_millis(20));
                log.lock().unwrap().push((seq, c.appends.len()));
            },
            move |more| acked.lock().unwrap().push(more),
        ));
        let n = 200u64;
        for seq in 1..=n {
            committer.submit(
                seq,
                Commit {
                    appends: vec![TableAppend {
                        table: 1,
                        time: seq,
                        updates: vec![(Row::new(vec![Datum::Int64(seq as i64)]), 1)],
                    }],
                    meta: Meta {
                        upper: seq + 1,
                        ..Meta::default()
                    },
                    ..Commit::default()
                },
            );
        }
        committer.wait(n).await;
        let seen = seen.lock().unwrap().clone();
        // The last acknowledgement follows the waiter's wake-up.
        while acks.lock().unwrap().len() < seen.len() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let acks = acks.lock().unwrap().clone();
        assert_eq!(acks.len(), seen.len());
        let expected: Vec<bool> = (0..acks.len()).map(|i| i + 1 < acks.len()).collect();
        assert_eq!(acks, expected, "more, except after the last group");
        assert_eq!(seen.last().unwrap().0, n);
        assert_eq!(seen.iter().map(|(_, k)| k).sum::<usize>(), n as usize);
        assert!(seen.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(
            store.commits() < n as usize / 2,
            "{} commits",
            store.commits()
        );
        let mut store = store;
        let snapshot = store.load().unwrap();
        assert_eq!(snapshot.meta.upper, n + 1);
        committer.close();
    }

    /// A group's appends reach the store as one per table (at the latest of their times),
    /// and come back out of `uncoalesce` exactly as submitted: same order, times and rows.
    #[test]
    fn a_group_is_stored_as_one_append_per_table_and_restored_as_submitted() {
        let append = |table: u64, time: u64, values: &[i64]| TableAppend {
            table,
            time,
            updates: values
                .iter()
                .map(|v| (Row::new(vec![Datum::Int64(*v)]), 1 - 2 * (*v % 2)))
                .collect(),
        };
        let submitted = vec![
            append(1, 10, &[1, 2]),
            append(2, 11, &[3]),
            append(1, 12, &[]),
            append(1, 13, &[4, 5, 6]),
            append(2, 14, &[7, 8]),
            append(3, 15, &[9]),
        ];
        let mut group = Commit {
            appends: submitted.clone(),
            ..Commit::default()
        };
        let split = coalesce(&mut group);
        assert_eq!(
            group.appends,
            vec![
                append(1, 13, &[1, 2, 4, 5, 6]),
                append(2, 14, &[3, 7, 8]),
                append(3, 15, &[9]),
            ]
        );
        uncoalesce(&mut group, split);
        assert_eq!(group.appends, submitted);
        // One append per table: nothing to fold, nothing changed.
        let mut single = Commit {
            appends: vec![append(1, 10, &[1]), append(2, 10, &[2])],
            ..Commit::default()
        };
        let split = coalesce(&mut single);
        assert!(split.is_none());
        uncoalesce(&mut single, split);
        assert_eq!(
            single.appends,
            vec![append(1, 10, &[1]), append(2, 10, &[2])]
        );
    }

    /// A commit that arrives after a clean shutdown closed the store (a session still running
    /// while SIGTERM is handled) is never acknowledged, and does not stop the process with an
    /// error (the crash test's SIGTERM exited 1 this way).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn commits_after_close_are_never_acknowledged() {
        let committer = Committer::start(Box::new(MemoryStore::default()), |_, _| {}, |_| {});
        committer.close();
        committer.submit(1, Commit::default());
        let waited =
            tokio::time::timeout(std::time::Duration::from_millis(200), committer.wait(1)).await;
        assert!(waited.is_err(), "a commit after close was acknowledged");
    }
}
