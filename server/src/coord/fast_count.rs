//! `SELECT count(*)` of a relation that the fast path reads (`fast_path.rs`: an arrangement
//! whole, or an index's rows for literal keys, with filters), answered from the arrangement
//! with no dataflow built: the workers read the rows at the read time, projected to no column,
//! and the coordinator adds up their multiplicities. The usual way to ask whether a view is
//! ready and how big it is, so it should cost a read, not the build of a reduction on every
//! worker (a few tenths of a ms and several rounds between the workers, the larger part of a
//! view's install time once its inputs are shared).
//!
//! Recognized: the plan the planner makes for a global `count(*)` (`aggregate::reduce_plan`),
//! after physical planning: `Union[Reduce(count(*)), Constant(0), Negate(Project(Map(0,
//! Reduce)))]` (a reduction over no rows still gives one row, `0`), the reduction bound once by
//! a `Let` when it is shared. The same answer as the dataflow's: errors of the relation fail
//! the read as any fast read's do, and only positive multiplicities count, as `count` does.

use kpg_types::{AggregateFunc, Datum, Plan, Row, ScalarExpr};

use super::fast_path::{fast_peek, FastPeek};
use crate::catalog::Catalog;

/// The fast read of `plan` if it is `SELECT count(*)` of a relation the fast path reads.
pub fn count_peek(plan: &Plan, catalog: &Catalog) -> Option<FastPeek> {
    let (bound, body) = match plan {
        Plan::Let { id, value, body } => (Some((*id, value.as_ref())), body.as_ref()),
        other => (None, other),
    };
    let resolve = |p: &'_ Plan| -> Plan {
        match (p, bound) {
            (Plan::LocalGet { id }, Some((b, value))) if *id == b => value.clone(),
            _ => p.clone(),
        }
    };
    let Plan::Union { inputs } = body else {
        return None;
    };
    let [reduce, constant, negate] = inputs.as_slice() else {
        return None;
    };
    let reduce = resolve(reduce);
    let Plan::Reduce {
        input,
        group_key,
        aggregates,
    } = &reduce
    else {
        return None;
    };
    let [agg] = aggregates.as_slice() else {
        return None;
    };
    let counts_rows = agg.func == AggregateFunc::Count
        && !agg.distinct
        && matches!(&agg.expr, ScalarExpr::Literal(d) if !d.is_null());
    if !group_key.is_empty() || !counts_rows {
        return None;
    }
    let zero = Row::new(vec![Datum::Int64(0)]);
    match constant {
        Plan::Constant { rows } if rows.len() == 1 && rows[0] == (zero, 1) => {}
        _ => return None,
    }
    let Plan::Negate { input: defaults } = negate else {
        return None;
    };
    let Plan::Project {
        input: mapped,
        outputs,
    } = defaults.as_ref()
    else {
        return None;
    };
    let Plan::Map {
        input: again,
        exprs,
    } = mapped.as_ref()
    else {
        return None;
    };
    if outputs.as_slice() != [1]
        || exprs.as_slice() != [ScalarExpr::Literal(Datum::Int64(0))]
        || resolve(again) != reduce
    {
        return None;
    }
    let mut peek = fast_peek(input, catalog)?;
    // No column is read: the rows' positions (or the NULL standing in for them) do not matter.
    peek.null_position = false;
    peek.projection = Some(Vec::new());
    peek.count = true;
    Some(peek)
}

/// `count(*)` of the rows the workers read: one row, their positive multiplicities added up.
pub fn counted(rows: Vec<(Row, i64)>) -> Vec<(Row, i64)> {
    let n: i64 = rows.iter().map(|(_, n)| *n).filter(|n| *n > 0).sum();
    vec![(Row::new(vec![Datum::Int64(n)]), 1)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use kpg_sql::PlannedStatement;
    use kpg_types::command::PeekTarget;
    use kpg_types::{ColumnType, RelationDesc, ScalarType};

    /// The physical plan of `sql`'s SELECT against `catalog`.
    fn physical(sql: &str, catalog: &Catalog) -> Plan {
        let stmt = kpg_sql::parse(sql).unwrap().remove(0);
        let PlannedStatement::Select { plan, .. } = kpg_sql::plan(&stmt, catalog).unwrap() else {
            panic!("{sql} is not a SELECT");
        };
        kpg_sql::physical_plan(plan, catalog).unwrap()
    }

    #[test]
    fn global_counts_of_fast_reads_are_recognized_and_nothing_else() {
        let desc = RelationDesc::new(vec![
            ("k".into(), ColumnType::new(ScalarType::Int32, true)),
            ("v".into(), ColumnType::new(ScalarType::Text, true)),
        ]);
        let catalog = Catalog::with_indexed_table(desc, "t_k", 0);
        let peek = count_peek(&physical("SELECT count(*) FROM t", &catalog), &catalog).unwrap();
        assert_eq!(peek.target, PeekTarget::Collection(1));
        assert_eq!(peek.worker_projection(), Some(vec![]));
        assert!(peek.count);
        let rows = vec![(Row::new(vec![]), 2), (Row::new(vec![]), 3)];
        assert_eq!(
            peek.finish(rows),
            vec![(Row::new(vec![Datum::Int64(5)]), 1)]
        );
        assert_eq!(
            peek.finish(Vec::new()),
            vec![(Row::new(vec![Datum::Int64(0)]), 1)]
        );
        // Filters go to the workers; a literal key is looked up in the index.
        let sql = "SELECT count(*) FROM t WHERE k = 7 AND v <> 'x'";
        let peek = count_peek(&physical(sql, &catalog), &catalog).unwrap();
        assert!(matches!(peek.target, PeekTarget::Index { id: 2, .. }));
        assert!(!peek.predicates.is_empty());
        // Not a global count(*) of one relation: the dataflow computes it.
        for sql in [
            "SELECT count(v) FROM t",
            "SELECT count(DISTINCT v) FROM t",
            "SELECT count(*) FROM t GROUP BY k",
            "SELECT count(*), sum(k) FROM t",
            "SELECT count(*) + 1 FROM t",
            "SELECT count(*) FILTER (WHERE k > 1) FROM t",
            "SELECT count(*) FROM t a JOIN t b ON a.k = b.k",
            "SELECT count(*) FROM (SELECT DISTINCT k FROM t) d",
        ] {
            assert!(
                count_peek(&physical(sql, &catalog), &catalog).is_none(),
                "{sql}"
            );
        }
    }
}
