//! The readers of external sources that run beside a worker in a process other than 0 of a
//! cluster: worker `i` hosts share `i` of a source's partitions (`Command::ReadShare`). Each
//! reader is a thread of `kpg-storage`; its batches and status changes leave as
//! `Response::SourceBatch` through the worker's response route (woken to forward them), and
//! the coordinator's `Command::ShareTaken` lets it send its next batch.

use std::collections::{BTreeMap, HashMap};
use std::thread::Thread;

use crossbeam_channel::Sender;
use kpg_storage::records::Share;
use kpg_storage::share_reader::ShareReader;
use kpg_types::command::Response;
use kpg_types::external::ExternalSourceDesc;
use kpg_types::GlobalId;

/// The share readers this worker hosts.
pub(crate) struct Shares {
    readers: HashMap<(GlobalId, u32), ShareReader>,
    /// The worker's thread, woken when a reader has sent something.
    worker: Thread,
    responses: Sender<Response>,
}

impl Shares {
    pub fn new(responses: Sender<Response>) -> Shares {
        Shares {
            readers: HashMap::new(),
            worker: std::thread::current(),
            responses,
        }
    }

    /// Starts reading share `share` of `count` of source `id`.
    pub fn start(
        &mut self,
        id: GlobalId,
        share: Share,
        desc: ExternalSourceDesc,
        not_null: Vec<(usize, String)>,
        start: BTreeMap<i32, i64>,
    ) {
        let (responses, worker) = (self.responses.clone(), self.worker.clone());
        let index = share.index;
        let send = move |batch, status| {
            let _ = responses.send(Response::SourceBatch {
                id,
                share: index,
                batch,
                status,
            });
            worker.unpark();
        };
        let name = format!("kpg-src-u{id}-{index}");
        match ShareReader::spawn(name, desc, not_null, share, start, send) {
            Ok(reader) => {
                self.readers.insert((id, index), reader);
            }
            Err(e) => tracing::error!(source = id, "{e}"),
        }
    }

    pub fn taken(&self, id: GlobalId, share: u32) {
        if let Some(reader) = self.readers.get(&(id, share)) {
            reader.taken();
        }
    }

    /// Stops the readers of source `id` (dropping one stops its thread).
    pub fn stop(&mut self, id: GlobalId) {
        self.readers.retain(|(source, _), _| *source != id);
    }
}
