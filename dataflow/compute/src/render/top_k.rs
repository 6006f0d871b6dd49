//! Rendering `Plan::TopK`: the rows `ORDER BY ... OFFSET m LIMIT n` keeps in each group,
//! maintained by the engine's reduce, which recomputes a group's rows whenever its input changes.
//!
//! A group's reduce reads every row of the group, so a single group (a whole-query LIMIT) over
//! a large input would re-sort all of it, on one worker, at every change. With a LIMIT the
//! rows are therefore first cut down in 16 buckets per group (by a hash of the row): each bucket
//! keeps its own first `offset + limit` rows, which include every row of the group's answer, and
//! the final reduce sees at most 16 × (offset + limit) rows per group. The hash is a fixed
//! function of the row, so a row's insertion and its retraction land in the same bucket.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use kpg_types::plan::{top_k, ColumnOrder};
use kpg_types::{Datum, Row};

use super::Renderer;
use crate::typedefs::Oks;

/// Buckets per group of the first stage.
const BUCKETS: i64 = 16;

pub fn render_top_k<'s>(
    oks: Oks<'s>,
    group_key: Vec<usize>,
    order_by: Vec<ColumnOrder>,
    limit: Option<usize>,
    offset: usize,
    renderer: &mut Renderer<'_, 's>,
) -> Oks<'s> {
    let input = match limit {
        Some(limit) => {
            let key = group_key.clone();
            let bucketed = oks.map(move |row: Row| {
                let mut hasher = DefaultHasher::new();
                row.hash(&mut hasher);
                let bucket = (hasher.finish() % BUCKETS as u64) as i64;
                let mut k = row.project(&key).into_canonical().into_datums();
                k.push(Datum::Int64(bucket));
                (Row::new(k), row)
            });
            stage(
                bucketed,
                order_by.clone(),
                Some(offset.saturating_add(limit)),
                0,
                renderer,
            )
        }
        None => oks,
    };
    let key = group_key;
    stage(
        input.map(move |row: Row| (row.project(&key).into_canonical(), row)),
        order_by,
        limit,
        offset,
        renderer,
    )
}

/// One reduce keeping, per key, the rows the order, limit and offset select.
fn stage<'s>(
    keyed: kpg_engine::Collection<'s, u64, (Row, Row), i64>,
    order_by: Vec<ColumnOrder>,
    limit: Option<usize>,
    offset: usize,
    renderer: &mut Renderer<'_, 's>,
) -> Oks<'s> {
    let arranged = keyed.arrange_by_key();
    renderer.register("top-k input", "(group)".into(), &arranged.trace);
    let kept = arranged.reduce_abelian(
        "TopK",
        move |_key: &Row, vals: &[(&Row, i64)], output: &mut Vec<(Row, i64)>| {
            let kept = top_k(vals.iter().map(|(r, n)| (*r, *n)), &order_by, limit, offset);
            output.extend(kept.into_iter().map(|(r, n)| (r.clone(), n)));
            output.sort();
        },
    );
    renderer.register("top-k output", "(group)".into(), &kept.trace);
    kept.as_collection(|_key: &Row, row: &Row| row.clone())
}
