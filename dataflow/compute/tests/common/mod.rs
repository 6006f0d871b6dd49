//! Helpers the compute runtime's integration tests share (`runtime.rs`, `cluster.rs`): rows of
//! bigints, the dataflow of a one-shot peek, and the workers' answers to a peek summed.

use std::collections::BTreeMap;

use kpg_types::command::Response;
use kpg_types::{DataflowDescription, DataflowSink, Datum, Plan, Row};

pub fn row(vals: &[i64]) -> Row {
    Row::new(vals.iter().map(|v| Datum::Int64(*v)).collect())
}

/// Updates to a table, each row followed by the position a table's stored rows end with (the
/// coordinator numbers rows as they are written; here every row is at position 0, so that a
/// retraction names the row it retracts by its values alone).
pub fn stored(updates: Vec<(Row, i64)>) -> Vec<(Row, i64)> {
    let position = Row::new(vec![Datum::Int64(0)]);
    updates
        .into_iter()
        .map(|(r, n)| (r.concat(&position), n))
        .collect()
}

/// A dataflow that answers peek `id` with `plan` at `timestamp`, then is dropped.
pub fn peek_description(id: u64, plan: Plan, timestamp: u64) -> DataflowDescription {
    DataflowDescription {
        name: format!("peek-{id}"),
        plan,
        as_of: timestamp,
        sink: DataflowSink::Peek {
            peek_id: id,
            timestamp,
        },
    }
}

/// Reads responses with `next` until each of `workers` workers has answered peek `id` once:
/// their rows summed, sorted, without rows that cancel out.
pub fn collect_peek(
    workers: usize,
    id: u64,
    mut next: impl FnMut() -> Response,
) -> Vec<(Row, i64)> {
    let mut acc: BTreeMap<Row, i64> = BTreeMap::new();
    let mut answered = Vec::new();
    while answered.len() < workers {
        if let Response::PeekResult {
            peek_id,
            worker,
            result,
        } = next()
        {
            if peek_id == id {
                for (r, d) in result.expect("no errors") {
                    *acc.entry(r).or_default() += d;
                }
                answered.push(worker);
            }
        }
    }
    answered.sort();
    assert_eq!(
        answered,
        (0..workers).collect::<Vec<_>>(),
        "each worker answers once"
    );
    acc.into_iter().filter(|(_, d)| *d != 0).collect()
}
