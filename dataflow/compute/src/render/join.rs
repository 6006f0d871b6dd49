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
