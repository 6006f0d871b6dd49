//! A worker's table inputs, and when each one is advanced through time.
//!
//! Tables move through time together (`Command::AdvanceTables`), but advancing an input costs
//! its dataflow a round of progress tracking and its arrangement a (mostly empty) batch; done
//! for every table at every commit, a single-row INSERT cost more the more tables there were
//! (20 idle tables cut 8-client INSERTs from 17.8k to 13.6k a second). So an input is advanced
//! at once only if its table was written since the last move, or is imported by an installed
//! dataflow (whose output has to keep up with all of its inputs). The others lag until
//! something reads them: a peek, or a dataflow installed over them, calls `catch_up` first.
//!
//! Every worker decides alike, from the commands alone (all of them apply the same commands in
//! the same order, and each `Append` reaches every worker, its rows only worker 0), so a table's
//! inputs on all workers lag and catch up together, and a peek that waits for a table's
//! frontier waits for inputs that are all being advanced.

use std::collections::{HashMap, HashSet};

use kpg_engine::InputSession;
use kpg_types::command::DataflowId;
use kpg_types::{GlobalId, Row};

pub(crate) type TableInput = InputSession<u64, Row, i64>;

#[derive(Default)]
pub(crate) struct TableInputs {
    inputs: HashMap<GlobalId, TableInput>,
    /// The time tables have been moved to (the lagging inputs are behind it).
    time: u64,
    /// Tables whose inputs are behind `time`.
    lagging: HashSet<GlobalId>,
    /// Tables appended to since the last move.
    written: HashSet<GlobalId>,
    /// The collections each installed dataflow imports, and how many dataflows import each.
    imports: HashMap<DataflowId, Vec<GlobalId>>,
    readers: HashMap<GlobalId, usize>,
}

impl TableInputs {
    /// The time tables have been moved to.
    pub fn time(&self) -> u64 {
        self.time
    }

    /// Adds table `id`'s input (attached to its dataflow), at `since` or table time if later.
    pub fn insert(&mut self, id: GlobalId, mut input: TableInput, since: u64) {
        input.advance_to(since.max(self.time));
        input.flush();
        self.inputs.insert(id, input);
    }

    /// Records an append to `id` at `time`; `rows` are fed to its input (worker 0 has them,
    /// the others get an empty list). Not flushed: the rows are final once `advance` passes
    /// their time, and it flushes, so a commit group's appends reach a table as one batch.
    pub fn append(&mut self, id: GlobalId, time: u64, rows: Vec<(Row, i64)>) {
        self.written.insert(id);
        if let Some(input) = self.inputs.get_mut(&id) {
            for (row, diff) in rows {
                input.update_at(row, time, diff);
            }
        }
    }

    /// Moves table time to `time` (if later): advances the inputs of tables written since the
    /// last move or read by a dataflow, and leaves the others lagging.
    pub fn advance(&mut self, time: u64) {
        self.time = self.time.max(time);
        for (id, input) in self.inputs.iter_mut() {
            if self.written.contains(id) || self.readers.contains_key(id) {
                input.advance_to(self.time);
                input.flush();
                self.lagging.remove(id);
            } else if *input.time() < self.time {
                self.lagging.insert(*id);
            }
        }
        self.written.clear();
    }

    /// Brings `id`'s input up to table time if it lags (something is about to read it).
    pub fn catch_up(&mut self, id: GlobalId) {
        if self.lagging.remove(&id) {
            if let Some(input) = self.inputs.get_mut(&id) {
                input.advance_to(self.time);
                input.flush();
            }
        }
    }

    /// Dataflow `dataflow`, importing `imports`, is being installed: those tables keep up
    /// from now on.
    pub fn add_reader(&mut self, dataflow: DataflowId, imports: Vec<GlobalId>) {
        for id in &imports {
            *self.readers.entry(*id).or_default() += 1;
            self.catch_up(*id);
        }
        self.imports.insert(dataflow, imports);
    }

    /// Dataflow `dataflow` is dropped: what it imported may lag again.
    pub fn remove_reader(&mut self, dataflow: DataflowId) {
        for id in self.imports.remove(&dataflow).unwrap_or_default() {
            if let Some(n) = self.readers.get_mut(&id) {
                *n -= 1;
                if *n == 0 {
                    self.readers.remove(&id);
                }
            }
        }
    }

    /// Drops table `id`'s input (if `id` is a table).
    pub fn remove(&mut self, id: GlobalId) {
        self.inputs.remove(&id);
        self.lagging.remove(&id);
        self.written.remove(&id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input_time(tables: &TableInputs, id: GlobalId) -> u64 {
        *tables.inputs[&id].time()
    }

    #[test]
    fn only_written_or_read_tables_keep_up() {
        let mut tables = TableInputs::default();
        for id in [1, 2, 3] {
            tables.insert(id, TableInput::new(), 1);
        }
        tables.advance(2);
        assert!((1..=3).all(|id| input_time(&tables, id) == 1));
        // Table 3 is read by a dataflow: it catches up at once and keeps up from then on.
        tables.add_reader(100, vec![3]);
        assert_eq!(input_time(&tables, 3), 2);
        for time in 3..10 {
            tables.append(1, time - 1, vec![(Row::new(Vec::new()), 1)]);
            tables.advance(time);
        }
        assert_eq!(input_time(&tables, 1), 9);
        assert_eq!(
            input_time(&tables, 2),
            1,
            "never written, never read: it lags"
        );
        assert_eq!(input_time(&tables, 3), 9);
        // A peek of table 2 brings it up to table time.
        tables.catch_up(2);
        assert_eq!(input_time(&tables, 2), 9);
        // Its reader gone, table 3 lags again; table 1, no longer written, too.
        tables.remove_reader(100);
        tables.advance(12);
        assert_eq!(
            (1..=3)
                .map(|id| input_time(&tables, id))
                .collect::<Vec<_>>(),
            [9, 9, 9]
        );
        // Two readers of one table: it keeps up until both are gone.
        tables.add_reader(101, vec![2]);
        tables.add_reader(102, vec![2, 2]);
        tables.remove_reader(101);
        tables.advance(13);
        assert_eq!(input_time(&tables, 2), 13);
        tables.remove_reader(102);
        tables.advance(14);
        assert_eq!(input_time(&tables, 2), 13);
        // A table created now starts at table time.
        tables.insert(4, TableInput::new(), 1);
        assert_eq!(input_time(&tables, 4), 14);
        tables.remove(2);
        tables.catch_up(2);
        assert!(!tables.inputs.contains_key(&2));
    }
}
