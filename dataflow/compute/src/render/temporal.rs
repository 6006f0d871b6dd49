//! Rendering `Plan::TemporalFilter`: each update of a row is moved to the times the row's
//! bounds say it is present (`kpg_types::temporal::presence`), as an insertion at the time it
//! enters and, with an upper bound, a retraction at the time it leaves.
//!
//! An update `(row, t, d)` whose row is present over `[from, until)` becomes `(row, max(t,
//! from), d)` and `(row, until, -d)`, or nothing when `max(t, from) >= until`; a retraction of
//! the row (negative `d`) undoes exactly what its insertion scheduled. The new times are never
//! earlier than the update's own, so they are at or after the capability the update travels
//! with: downstream operators buffer them until their input frontier passes them (the arrange
//! batcher, the subscribe and peek sinks all seal by frontier), and nothing is rescanned when
//! time moves on. The stream's frontier is the input's: a time becomes complete when the
//! coordinator advances the inputs' frontiers past it, as it does even when nothing is
//! written. A bound that fails to evaluate is an error at the update's time, for as long as
//! the row is in the input.

use kpg_engine::Collection;
use kpg_types::temporal::presence;
use kpg_types::{EvalError, Row, ScalarExpr};
use timely::dataflow::operators::vec::Map;

use super::Rendered;

pub fn render_temporal_filter<'s>(
    input: Rendered<'s>,
    lower: Vec<ScalarExpr>,
    upper: Vec<ScalarExpr>,
) -> Rendered<'s> {
    let results = input
        .oks
        .inner
        .flat_map(move |(row, time, diff): (Row, u64, i64)| {
            let mut out: Vec<(Result<Row, EvalError>, u64, i64)> = Vec::new();
            match presence(&lower, &upper, &row.datums()) {
                Err(e) => out.push((Err(e), time, diff)),
                Ok(None) => {}
                Ok(Some((from, until))) => {
                    let enter = time.max(from);
                    match until {
                        None => out.push((Ok(row), enter, diff)),
                        Some(leave) if enter < leave => {
                            out.push((Ok(row.clone()), enter, diff));
                            out.push((Ok(row), leave, -diff));
                        }
                        Some(_) => {}
                    }
                }
            }
            out
        });
    let results = Collection::new(results);
    let oks = results.clone().flat_map(|r: Result<Row, EvalError>| r.ok());
    let errs = results.flat_map(|r: Result<Row, EvalError>| r.err());
    Rendered {
        oks,
        errs: input.errs.concat(errs),
    }
}
