//! The received prefix of an arrangement's batch stream, as a cursor: what an operator that
//! reads "everything before this batch" needs.
//!
//! Owns: [`Acknowledged`]. Invariant: `acknowledged_cursor` covers exactly the batches
//! acknowledged so far (each batch received, in order, is acknowledged after use). It reads them
//! from the trace (`batches_through` the acknowledged frontier, which the handle holds as its
//! physical compaction so those boundaries survive merges); while the trace cannot provide that
//! exact cut (merges that began before the handle registered, e.g. during an import's replay), it
//! uses its own list of received batches, dropped once the trace's cut is settled. Used by join
//! (each side's batches against the other's acknowledged ones) and by the total-order
//! count/threshold (each batch against the batches before it).

use std::rc::Rc;

use timely::progress::frontier::Antichain;
use timely::progress::Timestamp;

use crate::difference::Semigroup;
use crate::lattice::Lattice;
use crate::trace::cursor::TraceCursor;
use crate::trace::handle::TraceAgent;
use crate::{BatchRef, Data};

/// The batches of one input received so far, readable as one cursor.
pub(crate) struct Acknowledged<K: Data, V: Data, T: Timestamp + Lattice, R: Semigroup> {
    /// Handle on this input's trace; `None` once nothing will read it again (for a join: the
    /// other input has closed).
    pub(crate) trace: Option<TraceAgent<K, V, T, R>>,
    /// Upper of the last batch received on this input.
    acknowledged: Antichain<T>,
    /// Batches received on this input, kept while the trace cannot cut at `acknowledged`.
    received: Vec<BatchRef<K, V, T, R>>,
    /// Whether `received` holds every batch acknowledged so far.
    received_complete: bool,
}

impl<K: Data, V: Data, T: Timestamp + Lattice, R: Semigroup> Acknowledged<K, V, T, R> {
    /// Starts with nothing acknowledged; holds `trace`'s physical compaction from here on.
    pub(crate) fn new(mut trace: TraceAgent<K, V, T, R>) -> Self {
        let acknowledged = Antichain::from_elem(T::minimum());
        trace.set_physical_compaction(acknowledged.borrow());
        Acknowledged {
            trace: Some(trace),
            acknowledged,
            received: Vec::new(),
            received_complete: true,
        }
    }

    /// A cursor over exactly the acknowledged batches.
    pub(crate) fn acknowledged_cursor(&mut self) -> TraceCursor<K, V, T, R> {
        let trace = self
            .trace
            .as_ref()
            .expect("the trace handle is held while the operator reads it");
        match trace.batches_through(self.acknowledged.borrow()) {
            Some((batches, settled)) => {
                if settled {
                    self.received = Vec::new();
                    self.received_complete = false;
                }
                TraceCursor::new(batches, trace.as_of().cloned().map(Rc::new))
            }
            None => {
                assert!(
                    self.received_complete,
                    "trace cannot cut at the acknowledged frontier and received batches were discarded"
                );
                TraceCursor::new(self.received.clone(), None)
            }
        }
    }

    /// Drops the trace handle and the received batches: nothing will be read again.
    pub(crate) fn release(&mut self) {
        self.trace = None;
        self.received = Vec::new();
    }

    /// Records that `batch`, the next one of the stream, has been used.
    pub(crate) fn acknowledge(&mut self, batch: &BatchRef<K, V, T, R>) {
        self.acknowledged = batch.upper().to_owned();
        if self.received_complete {
            self.received.push(Rc::clone(batch));
        }
        if let Some(trace) = self.trace.as_mut() {
            trace.set_physical_compaction(self.acknowledged.borrow());
        }
    }
}
