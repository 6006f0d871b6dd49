//! Rendering `Plan::Recursive` (WITH RECURSIVE) with the engine's iterate: the rows are a
//! `Variable` of a nested scope whose times are `(t, round)`; each round computes
//! `base + step(rows)` (then `distinct` for UNION) and feeds it back as the next round's rows,
//! until a round changes nothing. Leaving the scope sums every round, which is the fixed point;
//! when the inputs change at a later `t`, only the rounds that change are recomputed.
//!
//! The planner guarantees (sql-planner `recursive.rs`) that every node of the step above its
//! read of the rows is a `Map`, `Filter`, `Project`, `Join`, `Union` or `Distinct`; only those
//! are rendered inside the loop. Every part of the step that does not read the rows — a table
//! it joins with, an aggregate of another table — is rendered once, outside the loop, by the
//! ordinary renderer and entered into the loop; a join input among them is arranged outside
//! and enters as an arrangement, so no round rebuilds it. The loop's result is consolidated
//! before it is fed back, so updates that cancel do not circulate forever.

use kpg_engine::{Collection, Variable};
use kpg_types::{EvalError, Plan, Row, ScalarExpr};
use timely::dataflow::operators::generic::operator::empty;
use timely::dataflow::Scope;
use timely::order::Product;

use super::{MissingCollection, Rendered, Renderer};
use crate::typedefs::{Errs, KeyedArrangement};

/// Times inside the loop: (outer time, round).
type Round = Product<u64, u64>;
type LoopOks<'i> = Collection<'i, Round, Row, i64>;
type LoopErrs<'i> = Collection<'i, Round, EvalError, i64>;

/// A part of the step that does not read the rows, rendered outside the loop.
enum Outside<'s> {
    Rows(Rendered<'s>),
    /// A join input, arranged by its join key.
    Arranged(KeyedArrangement<'s>, Errs<'s>),
}

pub(super) fn render_recursive<'s>(
    renderer: &mut Renderer<'_, 's>,
    id: u64,
    base: &Plan,
    step: &Plan,
    distinct: bool,
) -> Result<Rendered<'s>, MissingCollection> {
    let base = renderer.render(base)?;
    let mut outside = Vec::new();
    render_outside(renderer, step, id, &mut outside)?;
    let outer = renderer.scope;
    let (oks, errs) = outer.iterative::<u64, _, _>(|inner| {
        let rows = Variable::new(inner, Product::new(0, 1));
        let mut outside = outside.into_iter();
        let (stepped, step_errs) = render_loop(step, id, rows.collection(), inner, &mut outside)?;
        let result = base.oks.clone().enter(inner).concat(stepped);
        let result = if distinct {
            super::classes::distinct(result)
        } else {
            result.consolidate()
        };
        rows.set(&result);
        Ok((result.leave(outer), step_errs.leave(outer)))
    })?;
    Ok(Rendered {
        oks,
        errs: base.errs.concat(errs),
    })
}

fn reads(plan: &Plan, id: u64) -> bool {
    let mut found = false;
    plan.visit(&mut |p| found |= matches!(p, Plan::RecursiveGet { id: i } if *i == id));
    found
}

/// Renders, left to right, the parts of `plan` that do not read the rows (the order in which
/// `render_loop` takes them).
fn render_outside<'s>(
    renderer: &mut Renderer<'_, 's>,
    plan: &Plan,
    id: u64,
    out: &mut Vec<Outside<'s>>,
) -> Result<(), MissingCollection> {
    if !reads(plan, id) {
        out.push(Outside::Rows(renderer.render(plan)?));
        return Ok(());
    }
    match plan {
        Plan::Join {
            left,
            right,
            left_key,
            right_key,
        } => {
            for (side, key) in [(left, left_key), (right, right_key)] {
                if reads(side, id) {
                    render_outside(renderer, side, id, out)?;
                } else {
                    let (arranged, errs) = renderer.arranged(side, key)?;
                    out.push(Outside::Arranged(arranged, errs));
                }
            }
        }
        Plan::Map { input, .. }
        | Plan::Filter { input, .. }
        | Plan::Project { input, .. }
        | Plan::Distinct { input } => render_outside(renderer, input, id, out)?,
        Plan::Union { inputs } => {
            for i in inputs {
                render_outside(renderer, i, id, out)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Renders `plan` inside the loop, reading the rows so far from `rows`.
fn render_loop<'s, 'i>(
    plan: &Plan,
    id: u64,
    rows: &LoopOks<'i>,
    inner: Scope<'i, Round>,
    outside: &mut impl Iterator<Item = Outside<'s>>,
) -> Result<(LoopOks<'i>, LoopErrs<'i>), MissingCollection> {
    if !reads(plan, id) {
        return match outside.next() {
            Some(Outside::Rows(r)) => Ok((r.oks.enter(inner), r.errs.enter(inner))),
            _ => Err(broken(id, "a part outside the loop is missing")),
        };
    }
    Ok(match plan {
        Plan::RecursiveGet { .. } => (rows.clone(), Collection::new(empty(inner))),
        Plan::Map { .. } | Plan::Filter { .. } | Plan::Project { .. } => {
            let (input, mfp) = super::mfp::peel(plan).expect("a map, filter or project node");
            let (oks, errs) = render_loop(input, id, rows, inner, outside)?;
            let (oks, new_errs) = super::mfp::render_mfp(oks, mfp);
            (oks, errs.concat(new_errs))
        }
        Plan::Distinct { input } => {
            let (oks, errs) = render_loop(input, id, rows, inner, outside)?;
            (super::classes::distinct(oks), errs)
        }
        Plan::Union { inputs } => {
            let mut oks: Option<LoopOks<'i>> = None;
            let mut errs: LoopErrs<'i> = Collection::new(empty(inner));
            for i in inputs {
                let (o, e) = render_loop(i, id, rows, inner, outside)?;
                oks = Some(match oks {
                    Some(acc) => acc.concat(o),
                    None => o,
                });
                errs = errs.concat(e);
            }
            (oks.ok_or_else(|| broken(id, "a union of nothing"))?, errs)
        }
        Plan::Join {
            left,
            right,
            left_key,
            right_key,
        } => {
            let mut side = |plan: &Plan, key: &[ScalarExpr]| {
                if reads(plan, id) {
                    let (oks, errs) = render_loop(plan, id, rows, inner, outside)?;
                    // Rows with a NULL in the key never match.
                    let (pairs, key_errs) = super::keyed_rows(oks, key.to_vec(), true);
                    Ok((pairs.arrange_by_key(), errs.concat(key_errs)))
                } else {
                    match outside.next() {
                        Some(Outside::Arranged(arranged, errs)) => {
                            Ok((arranged.enter(inner), errs.enter(inner)))
                        }
                        _ => Err(broken(id, "a join input arranged outside is missing")),
                    }
                }
            };
            let (l, l_errs) = side(left, left_key)?;
            let (r, r_errs) = side(right, right_key)?;
            // Index arrangements hold rows with NULL keys too; NULL never equals NULL.
            let oks = l.join_core(&r, |key: &Row, l: &Row, r: &Row| {
                (!key.iter().any(|d| d.is_null())).then(|| l.concat(r))
            });
            (oks, l_errs.concat(r_errs))
        }
        other => {
            return Err(broken(
                id,
                &format!("{} cannot be iterated", other.to_string().trim()),
            ))
        }
    })
}

/// A plan the planner should not have built: logged, and the dataflow is not built.
fn broken(id: u64, what: &str) -> MissingCollection {
    tracing::error!("recursive query r{id}: {what}");
    MissingCollection(id)
}
