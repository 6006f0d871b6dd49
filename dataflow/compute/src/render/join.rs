//! Rendering a join of two arrangements, with the map/filter/project chain above it fused into
//! the join's output.
//!
//! Unfused, every matching pair is packed into a concatenated row (`Row::concat`), and the chain
//! above reads that row and packs its own output: two rows built per pair, one of them thrown
//! away at once. Fused, the chain reads the pair's two rows side by side in a buffer reused
//! across pairs (`MapFilterProject::apply_concat`) and packs one row, or none when a filter
//! drops the pair. The chain's errors leave the join operator as records and are split off
//! into the error collection by one operator, as `render_mfp` does. Pairs whose key holds a NULL
//! never match (index arrangements hold rows with NULL keys too; NULL never equals NULL).
//! A one-shot read joins its inputs' keyed rows through a hash table instead
//! (`render_snapshot_join`, the engine's `snapshot_join`), with the chain fused the same way.

use kpg_engine::Collection;
use kpg_types::{EvalError, MapFilterProject, Row};

use super::mfp::fallible_flat_map;
use crate::typedefs::{Errs, KeyedArrangement, Oks};

/// The rows of `left` and `right` matching on their keys, as `left`'s columns then `right`'s,
/// through `mfp` (the identity for a bare join); `None` for the errors when `mfp` cannot raise
/// any (it is the identity).
pub(super) fn render_join<'s>(
    left: &KeyedArrangement<'s>,
    right: &KeyedArrangement<'s>,
    mut mfp: MapFilterProject,
) -> (Oks<'s>, Option<Errs<'s>>) {
    if mfp.is_identity() {
        let oks = left.join_core(right, |key: &Row, l: &Row, r: &Row| {
            (!key.iter().any(|d| d.is_null())).then(|| l.concat(r))
        });
        return (oks, None);
    }
    let results = left.join_core(right, move |key: &Row, l: &Row, r: &Row| {
        if key.iter().any(|d| d.is_null()) {
            return None;
        }
        mfp.apply_concat(l, r)
    });
    let (oks, errs) = fallible_flat_map(results, |result: Result<Row, EvalError>| Some(result));
    (oks, Some(errs))
}

/// `render_join` for a one-shot read at `time`: the keyed rows (NULL keys already dropped)
/// joined through a hash table (`snapshot_join`), correct read at `time` only.
pub(super) fn render_snapshot_join<'s>(
    left: Collection<'s, u64, (Row, Row)>,
    right: Collection<'s, u64, (Row, Row)>,
    time: u64,
    mut mfp: MapFilterProject,
) -> (Oks<'s>, Option<Errs<'s>>) {
    if mfp.is_identity() {
        let oks = left.snapshot_join(right, time, |_key: &Row, l: &Row, r: &Row| {
            Some(l.concat(r))
        });
        return (oks, None);
    }
    let results = left.snapshot_join(right, time, move |_key: &Row, l: &Row, r: &Row| {
        mfp.apply_concat(l, r)
    });
    let (oks, errs) = fallible_flat_map(results, |result: Result<Row, EvalError>| Some(result));
    (oks, Some(errs))
}
