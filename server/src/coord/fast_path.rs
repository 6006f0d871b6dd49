//! The fast path for reads: a SELECT that reads one arrangement whole, or looks up literal
//! values of an index's key, is answered straight from the arrangement (`PeekTarget`) with no
//! dataflow built.
//!
//! Recognized shapes: `Get` or `GetWithPosition`, optionally under a `Filter` (predicates
//! evaluated on each row read) and a `Project`. When an index on the collection is keyed by
//! columns that the filter pins to literals (`col = literal` conjuncts), the read seeks that key
//! in the index instead of scanning. A table's arrangement holds its rows with their positions:
//! a `Get` of it drops them, and a lookup in an index (whose rows have none) reads NULL as the
//! position, so such rows come in the index's order, as a PostgreSQL index scan's do.

use kpg_sql::{Catalog as _, ItemKind};
use kpg_types::command::PeekTarget;
use kpg_types::{BinaryFunc, Datum, Plan, Row, ScalarExpr};

use crate::catalog::Catalog;

/// A read that needs no dataflow.
pub struct FastPeek {
    pub target: PeekTarget,
    pub predicates: Vec<ScalarExpr>,
    pub projection: Option<Vec<usize>>,
    /// Whether the rows read lack the position the plan reads last: it is NULL, and
    /// `projection` applies after it is added (see `FastPeek::finish`).
    pub null_position: bool,
    /// Whether the read answers `count(*)` of the rows read (`fast_count.rs`).
    pub count: bool,
}

impl FastPeek {
    /// The projection the workers apply to the rows they read.
    pub fn worker_projection(&self) -> Option<Vec<usize>> {
        match self.null_position {
            true => None,
            false => self.projection.clone(),
        }
    }

    /// The rows the plan produces, from the rows the workers sent.
    pub fn finish(&self, rows: Vec<(Row, i64)>) -> Vec<(Row, i64)> {
        if self.count {
            return super::fast_count::counted(rows);
        }
        if !self.null_position {
            return rows;
        }
        rows.into_iter()
            .map(|(mut row, n)| {
                row.push(Datum::Null);
                match &self.projection {
                    Some(p) => (row.project(p), n),
                    None => (row, n),
                }
            })
            .collect()
    }
}

/// The fast-path read for `plan`, if it has one of the recognized shapes.
pub fn fast_peek(plan: &Plan, catalog: &Catalog) -> Option<FastPeek> {
    let (inner, projection) = match plan {
        Plan::Project { input, outputs } => (input.as_ref(), Some(outputs.clone())),
        other => (other, None),
    };
    let (get, predicates) = match inner {
        Plan::Filter { input, predicates } => (input.as_ref(), predicates.clone()),
        other => (other, Vec::new()),
    };
    let (target, projection, null_position) = match get {
        Plan::Get { id } => match index_lookup(*id, &predicates, catalog) {
            Some(lookup) => (lookup, projection, false),
            None => {
                let target = PeekTarget::Collection(*id);
                match catalog.get(*id) {
                    // Leave out the position each stored row ends with.
                    Some(e) if e.item.kind == ItemKind::Table => {
                        let all = || (0..e.item.desc.arity()).collect();
                        (target, Some(projection.unwrap_or_else(all)), false)
                    }
                    _ => (target, projection, false),
                }
            }
        },
        Plan::GetWithPosition { id } => match index_lookup(*id, &predicates, catalog) {
            Some(lookup) => (lookup, projection, true),
            None => (PeekTarget::Collection(*id), projection, false),
        },
        // An indexed view, which has no collection but its indexes.
        Plan::IndexedGet { id, index, .. } => (
            index_lookup(*id, &predicates, catalog).unwrap_or(PeekTarget::Index {
                id: *index,
                keys: None,
            }),
            projection,
            false,
        ),
        _ => return None,
    };
    Some(FastPeek {
        target,
        predicates,
        projection,
        null_position,
        count: false,
    })
}

/// An index lookup for the literal key values the predicates pin, if an index fits.
fn index_lookup(id: u64, predicates: &[ScalarExpr], catalog: &Catalog) -> Option<PeekTarget> {
    let pinned = |column: usize| {
        predicates.iter().find_map(|p| match p {
            ScalarExpr::Binary {
                func: BinaryFunc::Eq,
                left,
                right,
            } => match (left.as_ref(), right.as_ref()) {
                (ScalarExpr::Column(c), ScalarExpr::Literal(d))
                | (ScalarExpr::Literal(d), ScalarExpr::Column(c))
                    if *c == column && !d.is_null() =>
                {
                    Some(d.clone())
                }
                _ => None,
            },
            _ => None,
        })
    };
    catalog.indexes_on(id).into_iter().find_map(|index| {
        let key: Option<Vec<Datum>> = index
            .key
            .iter()
            .map(|e| match e {
                ScalarExpr::Column(c) => pinned(*c),
                _ => None,
            })
            .collect();
        key.map(|key| PeekTarget::Index {
            id: index.id,
            keys: Some(vec![Row::new(key)]),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kpg_types::{ColumnType, RelationDesc, ScalarType};

    #[test]
    fn shapes_and_index_lookups() {
        let catalog = Catalog::with_indexed_table(RelationDesc::default(), "t_idx", 1);
        let get = Plan::Get { id: 1 };
        assert!(matches!(
            fast_peek(&get, &catalog).unwrap().target,
            PeekTarget::Collection(1)
        ));
        let eq =
            ScalarExpr::Column(1).call_binary(BinaryFunc::Eq, ScalarExpr::Literal(Datum::Int32(7)));
        let filtered = Plan::Project {
            input: Box::new(Plan::Filter {
                input: Box::new(get.clone()),
                predicates: vec![eq],
            }),
            outputs: vec![0],
        };
        let peek = fast_peek(&filtered, &catalog).unwrap();
        assert_eq!(
            peek.target,
            PeekTarget::Index {
                id: 2,
                keys: Some(vec![Row::new(vec![Datum::Int32(7)])])
            }
        );
        assert_eq!(peek.projection, Some(vec![0]));
        let join = Plan::Join {
            left: Box::new(get.clone()),
            right: Box::new(get),
            left_key: vec![],
            right_key: vec![],
        };
        assert!(fast_peek(&join, &catalog).is_none());
    }

    #[test]
    fn positions_are_dropped_kept_or_read_as_null() {
        let desc = RelationDesc::new(vec![
            ("k".into(), ColumnType::new(ScalarType::Int32, true)),
            ("v".into(), ColumnType::new(ScalarType::Text, true)),
        ]);
        let catalog = Catalog::with_indexed_table(desc, "t_k", 0);
        // A plain read of the table leaves out the position its stored rows end with.
        let peek = fast_peek(&Plan::Get { id: 1 }, &catalog).unwrap();
        assert_eq!(peek.target, PeekTarget::Collection(1));
        assert_eq!(peek.worker_projection(), Some(vec![0, 1]));
        // A read with positions keeps it.
        let positioned = Plan::GetWithPosition { id: 1 };
        let peek = fast_peek(&positioned, &catalog).unwrap();
        assert_eq!(peek.worker_projection(), None);
        assert!(!peek.null_position);
        // Through an index the rows have no position: NULL stands in for it, before the
        // projection (which reads it as column 2).
        let eq =
            ScalarExpr::Column(0).call_binary(BinaryFunc::Eq, ScalarExpr::Literal(Datum::Int32(7)));
        let lookup = Plan::Project {
            input: Box::new(Plan::Filter {
                input: Box::new(positioned),
                predicates: vec![eq],
            }),
            outputs: vec![1, 2],
        };
        let peek = fast_peek(&lookup, &catalog).unwrap();
        assert!(matches!(peek.target, PeekTarget::Index { id: 2, .. }));
        assert_eq!(peek.worker_projection(), None);
        let found = vec![(
            Row::new(vec![Datum::Int32(7), Datum::String("x".into())]),
            2,
        )];
        assert_eq!(
            peek.finish(found),
            vec![(Row::new(vec![Datum::String("x".into()), Datum::Null]), 2)]
        );
    }
}
