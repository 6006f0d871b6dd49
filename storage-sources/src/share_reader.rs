//! A reader of one share of an external source's partitions that hands its batches to someone
//! else: how a source is read in the processes of a cluster other than process 0. Only process 0
//! keeps the data directory, so it makes every batch durable (its rows and its offsets in one
//! commit, at one timestamp); the reader here connects, decodes (`ENVELOPE NONE`: a key's
//! current row needs the whole source, so UPSERT reads in process 0) and sends each batch with
//! its status through `send`, then decodes the next while that one is committed and sends it
//! once the previous one is taken (`ShareReader::taken`). Status changes (a stall, a watermark)
//! are sent on their own between batches.

use std::collections::BTreeMap;
use std::time::Duration;

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use kpg_types::external::ExternalSourceDesc;
use kpg_types::reading::{ReaderStatus, ShareBatch};

use crate::assemble::RowMaker;
use crate::reading::{decode_appends, record_bytes, Ingest, Poller};
use crate::records::Share;

/// A running share reader; dropping it stops the thread.
pub struct ShareReader {
    ingest: Ingest,
    taken: Sender<()>,
}

impl ShareReader {
    /// Starts the thread `name` reading `share` of `desc`'s partitions from `start`, the rows
    /// made with `not_null` (the columns that may not be NULL). `send` gets each batch (once
    /// the previous one is taken) and each status change.
    pub fn spawn(
        name: String,
        desc: ExternalSourceDesc,
        not_null: Vec<(usize, String)>,
        share: Share,
        start: BTreeMap<i32, i64>,
        send: impl FnMut(Option<ShareBatch>, ReaderStatus) + Send + 'static,
    ) -> Result<ShareReader, String> {
        let ingest = Ingest::default();
        let (taken, taken_rx) = crossbeam_channel::unbounded();
        let running = ingest.clone();
        std::thread::Builder::new()
            .name(name.clone())
            .spawn(move || {
                let rows = RowMaker::new(desc.clone(), not_null);
                let poller = Poller::new(name, &desc, share, start, None);
                read(poller, &rows, &running, &taken_rx, send)
            })
            .map_err(|e| format!("starting the source's reader: {e}"))?;
        Ok(ShareReader { ingest, taken })
    }

    /// The last batch sent has been taken into a commit.
    pub fn taken(&self) {
        let _ = self.taken.send(());
    }
}

impl Drop for ShareReader {
    fn drop(&mut self) {
        self.ingest.stop();
    }
}

fn read(
    mut poller: Poller,
    rows: &RowMaker,
    ingest: &Ingest,
    taken: &Receiver<()>,
    mut send: impl FnMut(Option<ShareBatch>, ReaderStatus),
) {
    let mut waiting = false;
    let mut sent = ReaderStatus::default();
    while let Some(records) = poller.poll(ingest) {
        // Positions moved past skipped records (a CSV header line) go out as a batch of none.
        if records.is_empty() && !poller.moved() {
            let status = ingest.status();
            if status != sent {
                send(None, status.clone());
                sent = status;
            }
            continue;
        }
        let (decoded, errors) = decode_appends(rows, &records);
        let batch = ShareBatch {
            rows: decoded,
            errors,
            positions: poller.positions().clone(),
            records: records.len() as u64,
            bytes: record_bytes(&records),
        };
        drop(records);
        // One batch at a time: this one decoded while the last one was committed.
        while waiting {
            match taken.recv_timeout(Duration::from_millis(100)) {
                Ok(()) => waiting = false,
                Err(RecvTimeoutError::Timeout) if !ingest.stopped() => {}
                Err(_) => return,
            }
        }
        poller.handed_over();
        // The status sent with a batch is the one before it: process 0 counts the batch once
        // it has committed it, as this reader does once it is sent.
        let (records, bytes) = (batch.records, batch.bytes);
        let (errors, positions) = (batch.errors.len() as u64, batch.positions.clone());
        send(Some(batch), ingest.status());
        ingest.handed_over(records, bytes, errors, &positions);
        sent = ingest.status();
        waiting = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kpg_types::external::{Decoding, Envelope, Format, Transport};
    use kpg_types::reading::ReaderState;
    use kpg_types::scalar::ScalarType;
    use kpg_types::Datum;
    use std::io::Write;
    use std::time::Instant;

    type Message = (Option<ShareBatch>, ReaderStatus);

    /// The next message with a batch (status changes on their own are collected in
    /// `statuses`), or `None` if none comes within `wait`.
    fn next_batch(
        rx: &Receiver<Message>,
        wait: Duration,
        statuses: &mut Vec<ReaderStatus>,
    ) -> Option<(ShareBatch, ReaderStatus)> {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok((Some(batch), status)) => return Some((batch, status)),
                Ok((None, status)) => statuses.push(status),
                Err(_) => return None,
            }
        }
    }

    /// A file of 25,000 lines (one bad) read as CSV: batches of 10,000 records, each sent only
    /// once the previous one is taken, with the status from before it; the rows and the error
    /// as decoded; `finished` reported at the end; dropping the reader ends its thread.
    #[test]
    fn batches_wait_to_be_taken_and_the_reader_stops_when_dropped() {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        for i in 0..25_000 {
            match i {
                777 => writeln!(file, "seven").unwrap(),
                _ => writeln!(file, "{i}").unwrap(),
            }
        }
        file.flush().unwrap();
        let desc = ExternalSourceDesc {
            transport: Transport::File {
                path: file.path().display().to_string(),
                tail: false,
                header: false,
            },
            key: None,
            value: Decoding {
                format: Format::Csv { delimiter: b',' },
                columns: vec![("n".into(), ScalarType::Int64)],
            },
            include: Vec::new(),
            envelope: Envelope::None,
            key_first: false,
            inline_errors: false,
        };
        let (tx, rx) = crossbeam_channel::unbounded::<Message>();
        let send = move |batch, status| {
            let _ = tx.send((batch, status));
        };
        let reader = ShareReader::spawn(
            "kpg-src-test".into(),
            desc,
            Vec::new(),
            Share::ALL,
            BTreeMap::new(),
            send,
        )
        .unwrap();
        let mut statuses = Vec::new();
        let wait = Duration::from_secs(10);
        let (mut rows, mut errors, mut counted) = (Vec::new(), Vec::new(), Vec::new());
        let mut finished_with_batch = Vec::new();
        for expected in [10_000, 10_000, 5_000] {
            let (batch, status) = next_batch(&rx, wait, &mut statuses).expect("a batch");
            assert_eq!(batch.records, expected);
            counted.push(status.records);
            finished_with_batch.push(status);
            rows.extend(batch.rows.iter().map(|r| r.datums()[0].clone()));
            errors.extend(batch.errors.clone());
            // Not taken yet: nothing more comes.
            let early = next_batch(&rx, Duration::from_millis(300), &mut statuses);
            assert!(early.is_none(), "a batch before the last one was taken");
            reader.taken();
        }
        // Each batch's status is as of before it.
        assert_eq!(counted, [0, 10_000, 20_000]);
        let want: Vec<Datum> = (0..25_000)
            .filter(|i| *i != 777)
            .map(Datum::Int64)
            .collect();
        assert_eq!(rows, want);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].0, 0);
        assert_eq!(errors[0].1, 10 * 2 + 90 * 3 + 677 * 4, "its byte offset");
        // The end of the file: `finished`, with the last batch or on its own after it.
        let deadline = Instant::now() + wait;
        while !(statuses.iter().chain(&finished_with_batch))
            .any(|s| s.state == ReaderState::Finished)
        {
            assert!(Instant::now() < deadline, "never finished: {statuses:?}");
            assert!(next_batch(&rx, Duration::from_millis(200), &mut statuses).is_none());
        }
        // Dropped: the thread ends, and with it its end of the channel.
        drop(reader);
        let deadline = Instant::now() + wait;
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break,
                _ => assert!(Instant::now() < deadline, "the reader kept running"),
            }
        }
    }
}
