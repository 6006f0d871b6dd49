//! Reading an external source's records in batches, whatever is done with them: the stop flag
//! and status a reader shares with whoever shows it (`Ingest`), the loop that connects to the
//! transport, retries with backoff while it is unreachable and reports each partition's state
//! and high watermark (`Poller`), and the decoding of a batch with `ENVELOPE NONE`
//! (`decode_appends`). The server's readers (which commit each batch themselves) and the
//! readers that run in the other processes of a cluster (`share_reader.rs`, which send their
//! batches to process 0) are both built of these.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kpg_types::external::{ExternalSourceDesc, Include, Transport};
use kpg_types::reading::{ReaderState, ReaderStatus};
use kpg_types::Row;

use crate::assemble::RowMaker;
use crate::records::{self, HeaderLine, Record, RecordReader, Share};

/// Records read per batch (one commit).
pub const BATCH: usize = 10_000;
/// The longest wait between two retries of an unreachable transport.
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// The first wait.
const MIN_BACKOFF: Duration = Duration::from_millis(100);

/// A running reader: the flag that stops it (shared by a source's readers) and what it reports.
#[derive(Clone, Default)]
pub struct Ingest {
    stop: Arc<AtomicBool>,
    status: Arc<Mutex<ReaderStatus>>,
}

impl Ingest {
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Another reader of the same source: stopped with this one, reporting on its own.
    pub fn sibling(&self) -> Ingest {
        Ingest {
            stop: self.stop.clone(),
            status: Arc::default(),
        }
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    pub fn report(&self, f: impl FnOnce(&mut ReaderStatus)) {
        f(&mut self.status.lock().expect("ingest status"));
    }

    pub fn status(&self) -> ReaderStatus {
        self.status.lock().expect("ingest status").clone()
    }

    /// A batch was handed over: its counts, and each partition's next offset after it.
    pub fn handed_over(&self, records: u64, bytes: u64, errors: u64, at: &BTreeMap<i32, i64>) {
        self.report(|s| {
            s.records += records;
            s.bytes += bytes;
            s.errors += errors;
            for (p, o) in at {
                s.partitions.entry(*p).or_insert((0, None)).0 = *o;
            }
        });
    }
}

/// The bytes of a batch's keys and values.
pub fn record_bytes(records: &[Record]) -> u64 {
    records
        .iter()
        .map(|r| r.value.as_ref().map_or(0, Vec::len) + r.key.as_ref().map_or(0, Vec::len))
        .sum::<usize>() as u64
}

/// One reader's connection to its share of a transport's partitions, kept open across polls and
/// opened again (from the positions handed over last) while it cannot be.
pub struct Poller {
    /// For the log.
    name: String,
    transport: Transport,
    share: Share,
    /// Where a connection starts: each partition's next offset after the batches handed over.
    positions: BTreeMap<i32, i64>,
    reader: Option<Box<dyn RecordReader>>,
    /// The connection's partitions are not reported yet.
    unlisted: bool,
    /// Whether records need their headers parsed (the source includes some).
    headers: bool,
    /// The header line a partition may start with (a Kafka CSV source `WITH HEADER`).
    header: Option<HeaderLine>,
    backoff: Duration,
    /// When the high watermarks were last fetched.
    watermarks: Instant,
}

impl Poller {
    /// Reads `desc`'s transport for `share`, from `start`; `connected`: a connection opened
    /// already (by `CREATE SOURCE`'s check), read first.
    pub fn new(
        name: String,
        desc: &ExternalSourceDesc,
        share: Share,
        start: BTreeMap<i32, i64>,
        connected: Option<Box<dyn RecordReader>>,
    ) -> Poller {
        let mut poller = Poller {
            name,
            transport: desc.transport.clone(),
            share,
            positions: start,
            reader: None,
            unlisted: false,
            headers: desc
                .include
                .iter()
                .any(|i| matches!(i, Include::Headers | Include::Header { .. })),
            header: HeaderLine::of(desc),
            backoff: MIN_BACKOFF,
            watermarks: Instant::now() - Duration::from_secs(60),
        };
        if let Some(reader) = connected {
            poller.open(reader);
        }
        poller
    }

    /// Reads through `reader` from now on (records need no headers unless the source
    /// includes some).
    fn open(&mut self, mut reader: Box<dyn RecordReader>) {
        if !self.headers {
            reader.skip_headers();
        }
        self.reader = Some(reader);
        self.unlisted = true;
    }

    /// The next records, none if there were none for about 100 ms or the transport could not
    /// be reached (the reader is then stalled: it waited its backoff, and the next call tries
    /// again); `None` once `ingest` is stopped. Connects as needed and reports the state, the
    /// partitions and their high watermarks to `ingest`.
    pub fn poll(&mut self, ingest: &Ingest) -> Option<Vec<Record>> {
        if ingest.stopped() {
            return None;
        }
        if self.reader.is_none() {
            let header = self.header.clone();
            match records::connect(&self.transport, &self.positions, self.share, header) {
                Ok(reader) => self.open(reader),
                Err(e) => {
                    self.stall(ingest, &e);
                    return Some(Vec::new());
                }
            }
        }
        let reader = self.reader.as_mut().expect("connected above");
        // Every partition is listed from the start, also one that never yields a record
        // (say, one whose records are gone).
        if self.unlisted {
            self.unlisted = false;
            ingest.report(|s| {
                for (p, o) in reader.positions() {
                    s.partitions.entry(*p).or_insert((*o, None));
                }
            });
        }
        let records = match reader.poll(BATCH, MIN_BACKOFF) {
            Ok(records) => records,
            Err(e) => {
                self.stall(ingest, &e);
                return Some(Vec::new());
            }
        };
        self.backoff = MIN_BACKOFF;
        if self.watermarks.elapsed() > Duration::from_secs(1) {
            self.watermarks = Instant::now();
            let high = reader.high_watermarks();
            ingest.report(|s| {
                for (p, h) in high {
                    s.partitions.entry(p).or_insert((0, None)).1 = Some(h);
                }
            });
        }
        let finished = reader.finished();
        let lost = reader.lost().map(str::to_string);
        ingest.report(|s| match lost {
            // Sticky: the records are gone; the rest of the topic is still read.
            Some(why) => {
                s.state = ReaderState::Failed;
                s.last_error = Some(why);
            }
            None => {
                s.state = match finished {
                    true => ReaderState::Finished,
                    false => ReaderState::Running,
                };
                s.last_error = None;
            }
        });
        Some(records)
    }

    /// Each partition's next offset after the records returned so far.
    pub fn positions(&self) -> &BTreeMap<i32, i64> {
        match &self.reader {
            Some(reader) => reader.positions(),
            None => &self.positions,
        }
    }

    /// Whether the positions moved past what was handed over last (records were read that
    /// `poll` did not return, such as a skipped header line).
    pub fn moved(&self) -> bool {
        self.reader
            .as_ref()
            .is_some_and(|reader| reader.positions() != &self.positions)
    }

    /// The records returned so far are handed over: a new connection starts after them.
    pub fn handed_over(&mut self) {
        if let Some(reader) = &self.reader {
            self.positions = reader.positions().clone();
        }
    }

    fn stall(&mut self, ingest: &Ingest, why: &str) {
        tracing::warn!(source = %self.name, "source stalled: {why}");
        ingest.report(|s| {
            s.state = ReaderState::Stalled;
            s.last_error = Some(why.to_string());
        });
        std::thread::sleep(self.backoff);
        self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
    }
}

/// A batch with `ENVELOPE NONE`: each record's row, and `(partition, offset, reason)` of each
/// record that could not be decoded.
pub fn decode_appends(rows: &RowMaker, records: &[Record]) -> (Vec<Row>, Vec<(i32, i64, String)>) {
    let mut decoded = Vec::with_capacity(records.len());
    let mut errors = Vec::new();
    for r in records {
        match rows.key(r).and_then(|key| rows.row(r, key.as_deref())) {
            Ok(Some(row)) => decoded.push(row),
            Ok(None) => errors.push((r.partition, r.offset, "a record without a value".into())),
            Err(reason) => errors.push((r.partition, r.offset, reason)),
        }
    }
    (decoded, errors)
}
