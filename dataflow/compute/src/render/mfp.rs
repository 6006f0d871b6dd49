//! Rendering a chain of `Map`, `Filter` and `Project` nodes as one operator
//! (`kpg_types::MapFilterProject`), so that a row is read in place and packed once per chain
//! instead of unpacked and repacked at every node. The plan keeps its node-per-operation form
//! (the planner and EXPLAIN see no change); the renderer peels the chain off the plan. One
//! operator evaluates the chain and sends rows and errors to two outputs, so no row is cloned
//! to split them (`fallible_flat_map`, which key extraction uses too).

use kpg_engine::{Collection, Lattice};
use kpg_types::{EvalError, MapFilterProject, Plan, Row};
use timely::dataflow::operators::core::OkErr;
use timely::dataflow::operators::vec::Map;
use timely::progress::Timestamp;

/// The chain of map, filter and project nodes at the top of `plan` and the plan below it, or
/// `None` when `plan` is not one of them.
pub(super) fn peel(plan: &Plan) -> Option<(&Plan, MapFilterProject)> {
    let mut chain = Vec::new();
    let mut at = plan;
    while let Plan::Map { input, .. } | Plan::Filter { input, .. } | Plan::Project { input, .. } =
        at
    {
        chain.push(at);
        at = input;
    }
    if chain.is_empty() {
        return None;
    }
    let mfp = chain
        .iter()
        .rev()
        .fold(MapFilterProject::new(), |mfp, node| match node {
            Plan::Map { exprs, .. } => mfp.map(exprs.clone()),
            Plan::Filter { predicates, .. } => mfp.filter(predicates.clone()),
            Plan::Project { outputs, .. } => mfp.project(outputs.clone()),
            _ => unreachable!("the chain holds only map, filter and project nodes"),
        });
    Some((at, mfp))
}

/// The chain applied to every row: the rows it outputs, and the errors it raises.
#[allow(clippy::type_complexity)]
pub fn render_mfp<'s, T: Timestamp + Lattice>(
    oks: Collection<'s, T, Row, i64>,
    mut mfp: MapFilterProject,
) -> (
    Collection<'s, T, Row, i64>,
    Collection<'s, T, EvalError, i64>,
) {
    fallible_flat_map(oks, move |row| mfp.apply(row))
}

/// `logic` applied to every record, which it drops (`None`), replaces, or turns into an error:
/// the records and the errors as two collections, from one operator.
#[allow(clippy::type_complexity)]
pub fn fallible_flat_map<'s, T, D, D2>(
    input: Collection<'s, T, D, i64>,
    mut logic: impl FnMut(D) -> Option<Result<D2, EvalError>> + 'static,
) -> (
    Collection<'s, T, D2, i64>,
    Collection<'s, T, EvalError, i64>,
)
where
    T: Timestamp + Lattice,
    D: kpg_engine::Data,
    D2: kpg_engine::Data,
{
    let (oks, errs) = input
        .inner
        .flat_map(move |(d, t, r)| logic(d).map(|res| (res, t, r)))
        .ok_err(|(res, t, r)| match res {
            Ok(d) => Ok((d, t, r)),
            Err(e) => Err((e, t, r)),
        });
    (Collection::new(oks), Collection::new(errs))
}
