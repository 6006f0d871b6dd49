//! Reductions whose aggregates are all accumulable (count, exact sums, bool_and/bool_or; see
//! `kpg_types::accum`): each input row becomes its contribution, carried in the difference of a
//! `(key, ())` update, so the arrangement consolidates a group's rows into one accumulated
//! difference per time. The output then follows from that one value instead of the whole
//! group: a change costs the same for a group of ten rows and of ten million. Times are totally
//! ordered here, so the output is not arranged either: a change of a group's accumulation
//! retracts the output computed from the old value and adds the new one
//! (`Arranged::accumulate_total`, as DISTINCT does), half the state and none of the general
//! reduce's bookkeeping. Groups are SQL-equal classes of keys, their rows counted by `Members`
//! (`classes.rs`), which also tells which of the group's own keys the output shows.
//! Contributions are summed per key and time before they are exchanged and arranged (within
//! what the operator receives at once), so that a scan of many rows into few groups sorts few
//! updates.

use std::collections::hash_map::Entry;

use kpg_engine::{Abelian, Collection, Semigroup};
use kpg_types::{Accum, AggregateExpr, AggregateFunc, EvalError, Row, RowExprs, ValueRef};
use serde::{Deserialize, Serialize};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::core::OkErr;
use timely::dataflow::operators::generic::Operator;

use super::classes::Members;
use super::{GroupOutputs, Renderer};

/// The difference type of an accumulable reduction's input: how many rows, and each
/// aggregate's accumulated contribution.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Accums {
    rows: Members,
    /// Empty in the zero element (an aggregate's contribution is then zero).
    aggs: Vec<Accum>,
}

/// A difference, not a key: no sort key (the engine's default).
impl kpg_engine::SortKey for Accums {}
/// Stored as a plain clone (the default).
impl kpg_engine::ArenaCopy for Accums {}

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

/// An input row's fate in the pre-aggregation: a group's summed contribution, or an error.
type Contribution = Result<((Row, ()), u64, Accums), (EvalError, u64, i64)>;

/// Each row's contribution as a `(key, ())` update, summed per key and time over what the
/// operator receives at once (under one capability) before the arrangement exchanges and sorts
/// them: a batch of rows of a few groups travels as a few updates. The group key is evaluated
/// into a row; the aggregates' arguments are not: each is added into its group's accumulator
/// as it is read from the input row or computed (`RowExprs::eval_each`), so a row of a
/// known group makes no argument row and no contribution. A row whose key or arguments fail
/// to evaluate is an error instead, and contributes nothing.
#[allow(clippy::type_complexity)]
fn contributions<'s>(
    rows: Collection<'s, u64, Row, i64>,
    mut keys: RowExprs,
    mut args: RowExprs,
    funcs: Vec<AggregateFunc>,
) -> (
    Collection<'s, u64, (Row, ()), Accums>,
    Collection<'s, u64, EvalError, i64>,
) {
    let mut sums: foldhash::HashMap<(Row, u64), Accums> = foldhash::HashMap::default();
    let mut errors: Vec<(EvalError, u64, i64)> = Vec::new();
    let stream = rows
        .inner
        .unary::<CapacityContainerBuilder<Vec<Contribution>>, _, _, _>(
            Pipeline,
            "Preaggregate",
            move |_cap, _info| {
                move |input, output| {
                    input.for_each_stamp(|cap, containers| {
                        for data in containers {
                            for (row, time, diff) in data.drain(..) {
                                let key = match keys.eval(&row) {
                                    Ok(Some(key)) => key,
                                    Ok(None) => continue,
                                    Err(e) => {
                                        errors.push((e, time, diff));
                                        continue;
                                    }
                                };
                                let (key, members) = Members::of(key, diff);
                                let added = match sums.entry((key, time)) {
                                    // Added in place: no contribution is built.
                                    Entry::Occupied(mut e) => {
                                        let acc = e.get_mut();
                                        let added = args.eval_each(&row, |i, v| match v {
                                            ValueRef::Packed(v) => {
                                                funcs[i].accumulate_into(&mut acc.aggs[i], v, diff)
                                            }
                                            ValueRef::Owned(v) => funcs[i].accumulate_datum_into(
                                                &mut acc.aggs[i],
                                                v,
                                                diff,
                                            ),
                                        });
                                        if added.is_ok() {
                                            acc.rows.plus_equals(&members);
                                        }
                                        added
                                    }
                                    Entry::Vacant(e) => {
                                        let mut aggs = Vec::with_capacity(funcs.len());
                                        let added = args.eval_each(&row, |i, v| {
                                            aggs.push(match v {
                                                ValueRef::Packed(v) => {
                                                    funcs[i].accumulate(&v.to_datum(), diff)
                                                }
                                                ValueRef::Owned(v) => funcs[i].accumulate(v, diff),
                                            })
                                        });
                                        if added.is_ok() {
                                            e.insert(Accums {
                                                rows: members,
                                                aggs,
                                            });
                                        }
                                        added
                                    }
                                };
                                if let Err(e) = added {
                                    errors.push((e, time, diff));
                                }
                            }
                        }
                        let mut session = output.session(&cap);
                        for ((key, time), acc) in sums.drain() {
                            if !acc.is_zero() {
                                session.give(Ok(((key, ()), time, acc)));
                            }
                        }
                        for error in errors.drain(..) {
                            session.give(Err(error));
                        }
                    });
                }
            },
        );
    let (oks, errs) = stream.ok_err(|c| c);
    (Collection::new(oks), Collection::new(errs))
}

/// Groups the rows by `keys` and aggregates `args` (one argument per aggregate); each group's
/// output is the key followed by the aggregates' values, or the error computing one gave.
/// Also returns the errors evaluating keys and arguments raised.
#[allow(clippy::type_complexity)]
pub fn render_accumulable<'s>(
    rows: Collection<'s, u64, Row, i64>,
    keys: RowExprs,
    args: RowExprs,
    aggregates: Vec<AggregateExpr>,
    key_text: String,
    renderer: &mut Renderer<'_, 's>,
) -> (
    Collection<'s, u64, Result<Row, EvalError>, i64>,
    Collection<'s, u64, EvalError, i64>,
) {
    let funcs: Vec<_> = aggregates.iter().map(|a| a.func).collect();
    let (contributions, errs) = contributions(rows, keys, args, funcs.clone());
    if let Some(time) = renderer.read_once_at {
        let results = contributions
            .snapshot_reduce("ReduceAccumulable", time, move |key, vals, out| {
                if let Some((_, acc)) = vals.first() {
                    finish(&funcs, key, acc, out)
                }
            })
            .map(|(_key, val)| val);
        return (results, errs);
    }
    // Dataflow times are totally ordered here: a group's output follows from its accumulated
    // contributions alone, recomputed for the retraction when they change, so no output
    // arrangement is kept (`accumulate_total`).
    let arranged = contributions.arrange_by_key();
    renderer.register("reduce input", key_text, &arranged.trace);
    let results = arranged.accumulate_total("ReduceAccumulable", move |key, acc, out| {
        finish(&funcs, key, acc, out)
    });
    (results, errs)
}

/// A group's output row from its accumulated contributions: the key it shows, then each
/// aggregate's value (or the error computing one gave). Nothing for a group without rows.
fn finish(funcs: &[AggregateFunc], key: &Row, acc: &Accums, output: &mut GroupOutputs) {
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
