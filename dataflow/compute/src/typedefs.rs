//! Type aliases for the collections and traces the runtime moves, the two source operators it
//! needs beyond imports (constant rows and an empty error collection), and the arrangement of
//! an input's rows.

use kpg_engine::{Collection, InputSession, TraceAgent};
use kpg_types::{EvalError, Row};
use timely::dataflow::operators::generic::operator::empty;
use timely::dataflow::operators::generic::operator::source;
use timely::dataflow::Scope;

/// Rows of a relation at millisecond timestamps with integer multiplicities.
pub type Oks<'s> = Collection<'s, u64, Row, i64>;
/// Evaluation errors of a relation.
pub type Errs<'s> = Collection<'s, u64, EvalError, i64>;
/// The trace of a relation's rows, keyed by the whole row.
pub type RowTrace = TraceAgent<Row, (), u64, i64>;
/// The trace of an index: rows keyed by the index key.
pub type KeyedTrace = TraceAgent<Row, Row, u64, i64>;
/// Rows arranged by a key, within a dataflow.
pub type KeyedArrangement<'s> = kpg_engine::Arranged<'s, u64, Row, Row, i64>;
/// The trace of a relation's errors.
pub type ErrTrace = TraceAgent<EvalError, (), u64, i64>;

/// A collection holding `rows` from `time` on. Only worker 0 produces them, so each row
/// appears once however many workers run the dataflow.
pub fn source_rows<'s>(scope: Scope<'s, u64>, time: u64, rows: Vec<(Row, i64)>) -> Oks<'s> {
    let worker = scope.index();
    let stream = source(scope, "ConstantRows", move |capability, _info| {
        let mut capability = Some(capability);
        let mut rows = Some(rows);
        move |output| {
            if let Some(mut cap) = capability.take() {
                cap.downgrade(&time);
                if worker == 0 {
                    let data: Vec<(Row, u64, i64)> = rows
                        .take()
                        .unwrap_or_default()
                        .into_iter()
                        .map(|(r, d)| (r, time, d))
                        .collect();
                    output.session(&cap).give_iterator(data.into_iter());
                }
            }
        }
    });
    Collection::new(stream)
}

/// The collection `input` feeds, in `scope`, arranged by whole rows: how a table's or a
/// source's rows become a trace others import.
pub fn arrange_input(input: &mut InputSession<u64, Row, i64>, scope: Scope<'_, u64>) -> RowTrace {
    input
        .to_collection(scope)
        .map(|row: Row| (row, ()))
        .arrange_by_key()
        .trace
}

/// An error collection that never holds anything.
pub fn empty_errs<'s>(scope: Scope<'s, u64>) -> Errs<'s> {
    Collection::new(empty(scope))
}
