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
        if records.is_empty() {
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
