//! Reductions whose aggregates are all accumulable (count, exact sums, bool_and/bool_or; see
//! `kpg_types::accum`): each input row becomes its contribution, carried in the difference of a
//! `(key, ())` update, so the arrangement consolidates a group's rows into one accumulated
//! difference per time. The reduce then reads that one value instead of the whole group: a
//! change costs the same for a group of ten rows and of ten million. Groups are SQL-equal
//! classes of keys, their rows counted by `Members` (`classes.rs`), which also tells which of
//! the group's own keys the output shows. Contributions are summed per key and time before
//! they are exchanged and arranged (within what the operator receives at once), so that a scan
//! of many rows into few groups sorts few updates.

use std::collections::hash_map::{Entry, HashMap};

use kpg_engine::{Abelian, Collection, Semigroup};
use kpg_types::{Accum, AggregateExpr, AggregateFunc, EvalError, Row};
use serde::{Deserialize, Serialize};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::generic::Operator;

use super::classes::Members;
use super::{GroupOutputs, Renderer};

/// The difference type of an accumulable reduction's input: how many rows, and each
/// aggregate's accumulated contribution.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Accums {
    rows: Members,
    /// Empty in the zero element (an aggregate's contribution is then zero).
    aggs: Vec<Accum>,
}

impl Semigroup for Accums {
    fn is_zero(&self) -> bool {
        self.rows.is_zero() && self.aggs.iter().all(Accum::is_zero)
    }

    fn plus_equals(&mut self, rhs: &Self) {
        self.rows.plus_equals(&rhs.rows);
        if self.aggs.is_empty() {
            self.aggs = rhs.aggs.clone();
        } else {
            for (a, b) in self.aggs.iter_mut().zip(&rhs.aggs) {
                a.plus_equals(b);
            }
        }
    }
}

impl Abelian for Accums {
    fn negate(&mut self) {
        self.rows.negate();
        self.aggs.iter_mut().for_each(Accum::negate);
    }

    fn zero() -> Self {
        Accums {
            rows: Members::zero(),
            aggs: Vec::new(),
        }
    }
}

/// Whether `render_accumulable` can compute these aggregates.
pub fn accumulable(aggregates: &[AggregateExpr]) -> bool {
    !aggregates.is_empty()
        && aggregates
            .iter()
            .all(|a| a.func.accumulable() && !a.distinct)
}

/// Each row's contribution as a `(key, ())` update, summed per key and time over what the
/// operator receives at once (under one capability) before the arrangement exchanges and sorts
/// them: a batch of rows of a few groups travels as a few updates.
fn contributions<'s>(
    pairs: Collection<'s, u64, (Row, Row), i64>,
    funcs: Vec<AggregateFunc>,
) -> Collection<'s, u64, (Row, ()), Accums> {
    let mut sums: HashMap<(Row, u64), Accums> = HashMap::new();
    let stream = pairs
        .inner
        .unary::<CapacityContainerBuilder<Vec<((Row, ()), u64, Accums)>>, _, _, _>(
            Pipeline,
            "Preaggregate",
            move |_cap, _info| {
                move |input, output| {
                    input.for_each_stamp(|cap, containers| {
                        for data in containers {
                            for ((key, args), time, diff) in data.drain(..) {
                                let (key, rows) = Members::of(key, diff);
                                match sums.entry((key, time)) {
                                    // Added in place: no contribution is built.
                                    Entry::Occupied(mut e) => {
                                        let acc = e.get_mut();
                                        acc.rows.plus_equals(&rows);
                                        let each = funcs.iter().zip(&mut acc.aggs).zip(args.iter());
                                        for ((f, a), v) in each {
                                            f.accumulate_into(a, v, diff);
                                        }
                                    }
                                    Entry::Vacant(e) => {
                                        let aggs = funcs
                                            .iter()
                                            .zip(args.iter())
                                            .map(|(f, v)| f.accumulate(&v.to_datum(), diff))
                                            .collect();
                                        e.insert(Accums { rows, aggs });
                                    }
                                }
                            }
                        }
                        let mut session = output.session(&cap);
                        for ((key, time), acc) in sums.drain() {
                            if !acc.is_zero() {
                                session.give(((key, ()), time, acc));
                            }
                        }
                    });
                }
            },
        );
    Collection::new(stream)
}

/// Groups `(key, aggregate arguments)` pairs by key; each group's output is the key followed by
/// the aggregates' values, or the error computing one gave.
pub fn render_accumulable<'s>(
    pairs: Collection<'s, u64, (Row, Row), i64>,
    aggregates: Vec<AggregateExpr>,
    key_text: String,
    renderer: &mut Renderer<'_, 's>,
) -> Collection<'s, u64, Result<Row, EvalError>, i64> {
    let funcs: Vec<_> = aggregates.iter().map(|a| a.func).collect();
    let contributions = contributions(pairs, funcs.clone());
    if let Some(time) = renderer.read_once_at {
        return contributions
            .snapshot_reduce("ReduceAccumulable", time, finish(funcs))
            .map(|(_key, val)| val);
    }
    let arranged = contributions.arrange_by_key();
    renderer.register("reduce input", key_text.clone(), &arranged.trace);
    let reduced = arranged.reduce_abelian("ReduceAccumulable", finish(funcs));
    renderer.register("reduce output", key_text, &reduced.trace);
    reduced.as_collection(|_key: &Row, val: &Result<Row, EvalError>| val.clone())
}

/// A group's output row from its accumulated contributions: the key it shows, then each
/// aggregate's value (or the error computing one gave).
fn finish(
    funcs: Vec<AggregateFunc>,
) -> impl FnMut(&Row, &[(&(), Accums)], &mut GroupOutputs) + 'static {
    move |key, vals, output| {
        let Some((_, acc)) = vals.first() else { return };
        if acc.rows.count() <= 0 {
            return;
        }
        let Some(shown) = acc.rows.representative(key) else {
            return;
        };
        let values = funcs
            .iter()
            .zip(&acc.aggs)
            .map(|(f, a)| f.finish(a))
            .collect::<Result<Vec<_>, _>>();
        output.push((values.map(|v| shown.concat(&Row::new(v))), 1));
    }
}
