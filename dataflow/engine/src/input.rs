//! Inputs: feeding updates into a dataflow from outside it.
//!
//! Owns: [`InputSession`]. Invariants: updates are sent at times at or after the session's
//! current time (`update` uses the current time, `update_at` asserts it is not earlier), and
//! `advance_to` promises no later update before the new time. Every worker creates a session for
//! the same dataflow; any subset of workers may send data while all of them advance time, since
//! the timely input only reports progress and each worker's data is exchanged downstream by key.

use timely::dataflow::operators::core::input::Handle;
use timely::dataflow::Scope;
use timely::order::TotalOrder;
use timely::progress::Timestamp;

use crate::collection::Collection;
use crate::difference::{Abelian, Semigroup};
use crate::lattice::Lattice;
use crate::Data;

type UpdateHandle<T, D, R> = Handle<T, timely::container::CapacityContainerBuilder<Vec<(D, T, R)>>>;

/// A handle that feeds a collection: buffered updates plus timely input progress.
pub struct InputSession<T: Timestamp, D: Data, R: Semigroup> {
    handle: UpdateHandle<T, D, R>,
    buffer: Vec<(D, T, R)>,
}

impl<T: Timestamp + Lattice + TotalOrder, D: Data, R: Semigroup> Default for InputSession<T, D, R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Timestamp + Lattice + TotalOrder, D: Data, R: Semigroup> InputSession<T, D, R> {
    /// A session at time `minimum`, not yet attached to a dataflow.
    pub fn new() -> Self {
        InputSession {
            handle: Handle::new(),
            buffer: Vec::new(),
        }
    }

    /// Creates the collection this session feeds, in `scope`.
    pub fn to_collection<'scope>(
        &mut self,
        scope: Scope<'scope, T>,
    ) -> Collection<'scope, T, D, R> {
        Collection::new(self.handle.to_stream(scope))
    }

    /// Adds `diff` copies of `data` at the current time.
    pub fn update(&mut self, data: D, diff: R) {
        let time = self.handle.time().clone();
        self.buffer.push((data, time, diff));
        if self.buffer.len() >= 1024 {
            self.flush_buffer();
        }
    }

    /// Adds `diff` copies of `data` at `time`, which must not be before the current time.
    pub fn update_at(&mut self, data: D, time: T, diff: R) {
        assert!(
            self.handle.time().less_equal(&time),
            "update_at({time:?}) is before the session time {:?}",
            self.handle.time()
        );
        self.buffer.push((data, time, diff));
        if self.buffer.len() >= 1024 {
            self.flush_buffer();
        }
    }

    /// Promises no more updates before `time`.
    pub fn advance_to(&mut self, time: T) {
        self.flush_buffer();
        self.handle.advance_to(time);
    }

    /// Sends buffered updates and progress to the dataflow.
    pub fn flush(&mut self) {
        self.flush_buffer();
        self.handle.flush();
    }

    /// The current time.
    pub fn time(&self) -> &T {
        self.handle.time()
    }

    /// Closes the input: no more updates at any time.
    pub fn close(mut self) {
        self.flush_buffer();
    }

    fn flush_buffer(&mut self) {
        if !self.buffer.is_empty() {
            self.handle.send_batch(&mut self.buffer);
            self.buffer.clear();
        }
    }
}

impl<T: Timestamp + Lattice + TotalOrder, D: Data, R: Abelian + From<i8>> InputSession<T, D, R> {
    /// Adds one copy of `data` at the current time.
    pub fn insert(&mut self, data: D) {
        self.update(data, R::from(1));
    }

    /// Removes one copy of `data` at the current time.
    pub fn remove(&mut self, data: D) {
        self.update(data, R::from(-1));
    }
}

impl<T: Timestamp, D: Data, R: Semigroup> Drop for InputSession<T, D, R> {
    fn drop(&mut self) {
        if !self.buffer.is_empty() {
            self.handle.send_batch(&mut self.buffer);
        }
    }
}
