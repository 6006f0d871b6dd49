//! The optimizer's rewrites (`optimize.rs`): each keeps what a plan computes — checked with the
//! reference interpreter on the mock data for many query shapes — and each does what it is for:
//! filters reach the inputs they read, unread columns are not computed (so they raise no
//! errors), join inputs are narrowed, a key pinned on one join side pins the other, and a
//! predicate that can fail never moves ahead of one that guards it.

use super::{catalog, try_eval, MockCatalog};
use crate::{optimize, parse, physical_plan, plan, PlannedStatement};
use kpg_types::Plan;

fn decorrelated(sql: &str, cat: &MockCatalog) -> Plan {
    match plan(&parse(sql).unwrap()[0], cat) {
        Ok(PlannedStatement::Select { plan, .. }) => plan,
        other => panic!("{sql}: {other:?}"),
    }
}

const QUERIES: &[&str] = &[
    "SELECT t.b, u.y FROM t, u WHERE t.a = u.a AND u.x > (SELECT min(u2.x) FROM u u2 WHERE u2.a = t.a)",
    "SELECT u.s FROM u WHERE u.x >= (SELECT avg(u2.x) FROM u u2 WHERE u2.a = u.a) AND u.a IN (SELECT a FROM t)",
    "SELECT t.b, u.x FROM t JOIN u ON t.a = u.a WHERE t.c > 1 AND u.y IS NOT NULL",
    "SELECT * FROM t JOIN u ON t.a = u.a WHERE t.a = 2",
    "SELECT * FROM t, u WHERE t.a = u.a AND u.s LIKE 'x%'",
    "SELECT * FROM t LEFT JOIN u ON t.a = u.a WHERE t.a > 1",
    "SELECT * FROM t LEFT JOIN u ON t.a = u.a WHERE u.x IS NULL",
    "SELECT * FROM t FULL JOIN u ON t.a = u.a WHERE coalesce(t.a, u.a) = 2",
    "SELECT * FROM (SELECT a, b FROM t UNION ALL SELECT a, s FROM u) x WHERE a = 2",
    "SELECT * FROM (SELECT a FROM t EXCEPT SELECT a FROM u) x WHERE a > 1",
    "SELECT * FROM (SELECT a FROM t INTERSECT ALL SELECT a FROM u) x WHERE a < 3",
    "SELECT a, n FROM (SELECT a, count(*) AS n FROM t GROUP BY a) g WHERE a = 2",
    "SELECT a, n FROM (SELECT a, count(*) AS n FROM t GROUP BY a) g WHERE n > 1",
    "SELECT a, s FROM (SELECT a + 1 AS a, sum(c) AS s FROM t GROUP BY a + 1) g WHERE a = 3",
    "SELECT a FROM (SELECT DISTINCT a, b FROM t) d WHERE b IS NOT NULL",
    "SELECT * FROM (SELECT a, b FROM t ORDER BY b LIMIT 2) k WHERE a > 1",
    "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a AND u.x > 15)",
    "SELECT a, (SELECT max(x) FROM u WHERE u.a = t.a) FROM t WHERE a <> 1",
    "SELECT a FROM t WHERE a IN (SELECT a FROM u WHERE y > 2)",
    "SELECT a FROM t WHERE a NOT IN (SELECT a FROM u)",
    "SELECT x.a FROM (SELECT a, b, c * 2 AS c2, d FROM t) x JOIN u ON x.a = u.a",
    "SELECT count(*) FROM (SELECT a, upper(b) AS ub, c FROM t) x",
    "SELECT u1.x, u2.x FROM u u1 JOIN u u2 ON u1.a = u2.a JOIN t ON t.a = u2.a WHERE t.b <> 'one'",
    "SELECT a, sum(x) FROM u GROUP BY a HAVING a IS NOT NULL",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) \
     SELECT n FROM r WHERE n > 2",
    "SELECT t.a, u.s FROM t CROSS JOIN u WHERE t.a = u.a + 0",
    "SELECT a FROM t WHERE c > (SELECT sum(x) * 2 FROM u WHERE y > 1)",
    "SELECT sum(c), count(*) FROM t WHERE a > 100",
    // A disjunction over both inputs: what it implies for each moves below the join.
    "SELECT t.a, u.x FROM t JOIN u ON t.a = u.a \
     WHERE (t.b = 'one' AND u.x > 15) OR (t.b IS NULL AND u.y < 3) OR (t.c > 1 AND u.x < 0)",
    "SELECT t.a, u.x FROM t, u WHERE (t.a = 1 AND u.a = 2) OR (t.a = 2 AND u.s LIKE 'x%')",
    "SELECT t.a FROM t, u WHERE t.a = u.a AND ((t.a = 1 AND u.x > 1) OR u.y > 2)",
    // Nested correlation: the physical plan shares the copies decorrelation makes.
    "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a \
     AND u.x >= (SELECT min(n) FROM v WHERE v.a = u.a AND v.n < t.a + 10)) OR a = 3",
];

/// A query with nested subqueries holds copies of its host after decorrelation; the physical
/// plan computes each once (`share.rs`) and no repeated subtree is left.
#[test]
fn physical_plans_compute_repeated_subtrees_once() {
    let cat = catalog();
    let sql = QUERIES.last().unwrap();
    let physical = physical_plan(decorrelated(sql, &cat), &cat).unwrap();
    let mut lets = 0;
    physical.visit(&mut |p| lets += matches!(p, Plan::Let { .. }) as usize);
    assert!(lets > 0, "{physical}");
    let unshared = crate::optimize::physical_plan_unshared(decorrelated(sql, &cat), &cat);
    let size = |p: &Plan| {
        let mut n = 0;
        p.visit(&mut |_| n += 1);
        n
    };
    assert!(
        size(&physical) < size(&unshared),
        "{} nodes shared, {} not",
        size(&physical),
        size(&unshared)
    );
}

/// An aggregate without GROUP BY has a row even over no input: its reduction is read for its
/// values and again to tell whether it has a row, and the physical plan computes it once.
#[test]
fn a_global_reduction_is_computed_once() {
    let cat = catalog();
    for sql in [
        "SELECT sum(c) FROM t JOIN u ON t.a = u.a",
        "SELECT a FROM t WHERE c > (SELECT sum(x) * 2 FROM u WHERE y > 1)",
    ] {
        let physical = physical_plan(decorrelated(sql, &cat), &cat).unwrap();
        let mut reduces = 0;
        physical.visit(&mut |p| reduces += matches!(p, Plan::Reduce { .. }) as usize);
        assert_eq!(reduces, 1, "{sql}: {physical}");
    }
}

/// Every query gives the same rows decorrelated, optimized and physical.
#[test]
fn rewrites_keep_results() {
    let cat = catalog();
    for sql in QUERIES {
        let p = decorrelated(sql, &cat);
        let expected = try_eval(&p, &cat).unwrap_or_else(|e| panic!("{sql}: {e}"));
        let optimized = optimize(p.clone(), &cat);
        assert_eq!(
            try_eval(&optimized, &cat),
            Ok(expected.clone()),
            "{sql}\n{p}\noptimized:\n{optimized}"
        );
        let physical = physical_plan(p, &cat).unwrap();
        assert_eq!(
            try_eval(&physical, &cat),
            Ok(expected),
            "{sql}\nphysical:\n{physical}"
        );
    }
}

/// The filters of a node, wherever it is.
fn filters_over(plan: &Plan, leaf: &dyn Fn(&Plan) -> bool) -> usize {
    let mut n = 0;
    plan.visit(&mut |p| {
        if let Plan::Filter { input, .. } = p {
            if leaf(input) {
                n += 1;
            }
        }
    });
    n
}

fn is_get(id: u64) -> impl Fn(&Plan) -> bool {
    move |p| matches!(p, Plan::Get { id: i } if *i == id)
}

#[test]
fn filters_reach_union_inputs_and_grouped_inputs() {
    let cat = catalog();
    let union = "SELECT * FROM (SELECT a, b FROM t UNION ALL SELECT a, s FROM u) x WHERE a = 2";
    let p = optimize(decorrelated(union, &cat), &cat);
    assert_eq!(filters_over(&p, &is_get(1)), 1, "{p}");
    assert_eq!(filters_over(&p, &is_get(2)), 1, "{p}");
    assert_eq!(
        filters_over(&p, &|i| matches!(i, Plan::Union { .. })),
        0,
        "{p}"
    );
    let grouped = "SELECT a, n FROM (SELECT a, count(*) AS n FROM t GROUP BY a) g WHERE a = 2";
    let p = optimize(decorrelated(grouped, &cat), &cat);
    assert_eq!(filters_over(&p, &is_get(1)), 1, "{p}");
}

#[test]
fn a_disjunction_over_both_inputs_filters_each_first() {
    let cat = catalog();
    let sql = "SELECT t.a, u.x FROM t JOIN u ON t.a = u.a \
               WHERE (t.b = 'one' AND u.x > 15) OR (t.b = 'two' AND u.x < 3)";
    let p = optimize(decorrelated(sql, &cat), &cat);
    // t.b = 'one' OR t.b = 'two' below the join, u.x > 15 OR u.x < 3 too, the OR above.
    assert_eq!(filters_over(&p, &is_get(1)), 1, "{p}");
    assert_eq!(filters_over(&p, &is_get(2)), 1, "{p}");
    assert_eq!(
        filters_over(&p, &|i| matches!(i, Plan::Join { .. })),
        1,
        "{p}"
    );
    // A disjunct that says nothing of u: nothing is implied for u.
    let sql = "SELECT t.a FROM t JOIN u ON t.a = u.a WHERE (t.b = 'one' AND u.x > 15) OR t.c > 1";
    let p = optimize(decorrelated(sql, &cat), &cat);
    assert_eq!(filters_over(&p, &is_get(1)), 1, "{p}");
    assert_eq!(filters_over(&p, &is_get(2)), 0, "{p}");
}

#[test]
fn pinned_join_key_pins_the_other_side() {
    let cat = catalog();
    let p = optimize(
        decorrelated("SELECT * FROM t JOIN u ON t.a = u.a WHERE t.a = 2", &cat),
        &cat,
    );
    // Both inputs filtered to a = 2 before the join.
    assert_eq!(filters_over(&p, &is_get(1)), 1, "{p}");
    assert_eq!(filters_over(&p, &is_get(2)), 1, "{p}");
}

#[test]
fn unread_columns_are_not_computed() {
    let cat = catalog();
    // t has a = 2: the unread column divides by zero. PostgreSQL never computes it either.
    let sql = "SELECT a FROM (SELECT a, 10 / (a - 2) AS bad FROM t) s";
    let p = decorrelated(sql, &cat);
    assert_eq!(try_eval(&p, &cat).unwrap_err().sqlstate(), "22012");
    let optimized = optimize(p, &cat);
    assert_eq!(
        try_eval(&optimized, &cat).map(|r| r.len()),
        Ok(3),
        "{optimized}"
    );
    // Read, it fails.
    let p = optimize(
        decorrelated(
            "SELECT bad FROM (SELECT a, 10 / (a - 2) AS bad FROM t) s",
            &cat,
        ),
        &cat,
    );
    assert!(try_eval(&p, &cat).is_err(), "{p}");
    // An unread aggregate of a global reduction is not computed either, in neither of the
    // reduction's copies (`aggregate::reduce_plan`), and the two are computed once.
    let sql = "SELECT count(*) FROM (SELECT sum(10 / (a - 2)) AS bad FROM t) s";
    let p = physical_plan(decorrelated(sql, &cat), &cat).unwrap();
    assert_eq!(try_eval(&p, &cat).map(|r| r.len()), Ok(1), "{p}");
    let mut reduces = 0;
    p.visit(&mut |p| reduces += matches!(p, Plan::Reduce { .. }) as usize);
    assert_eq!(reduces, 2, "{p}");
    let read = "SELECT count(*) FROM (SELECT sum(10 / (a - 2)) AS bad FROM t) s WHERE bad > 0";
    let p = physical_plan(decorrelated(read, &cat), &cat).unwrap();
    assert!(try_eval(&p, &cat).is_err(), "{p}");
}

#[test]
fn join_inputs_are_narrowed_in_the_physical_plan() {
    let cat = catalog();
    let p = physical_plan(
        decorrelated("SELECT t.b FROM t JOIN u ON t.a = u.a", &cat),
        &cat,
    )
    .unwrap();
    let Plan::Project { input, .. } = &p else {
        panic!("{p}")
    };
    let Plan::Join { left, right, .. } = input.as_ref() else {
        panic!("{p}")
    };
    assert!(
        matches!(left.as_ref(), Plan::Project { outputs, .. } if outputs == &[0, 1]),
        "{p}"
    );
    assert!(
        matches!(right.as_ref(), Plan::Project { outputs, .. } if outputs == &[0]),
        "{p}"
    );
}

#[test]
fn predicates_that_can_fail_stay_behind_their_guards() {
    let cat = catalog();
    // `z = 1` reads a computed column, so it stays above the Map; it is never TRUE, so the
    // division is never evaluated. Moved below the Map, the division would fail on a = 2.
    let sql = "SELECT * FROM (SELECT a, a * 0 AS z FROM t) x WHERE z = 1 AND 10 / (a - 2) > 1";
    let p = decorrelated(sql, &cat);
    assert_eq!(try_eval(&p, &cat), Ok(vec![]));
    let optimized = optimize(p.clone(), &cat);
    assert_eq!(try_eval(&optimized, &cat), Ok(vec![]), "{optimized}");
    // A predicate that cannot fail does move ahead.
    let sql = "SELECT * FROM (SELECT a, a * 0 AS z FROM t) x WHERE z = 1 AND a > 1";
    let optimized = optimize(decorrelated(sql, &cat), &cat);
    assert_eq!(filters_over(&optimized, &is_get(1)), 1, "{optimized}");
}

/// A table that a decorrelated subquery reads again by the outer query's join key, with other
/// columns, is arranged once for both joins (`widen.rs`): fewer new arrangements, the same
/// rows.
#[test]
fn join_inputs_reading_one_table_by_one_key_share_an_arrangement() {
    use crate::new_join_arrangements;
    let cat = catalog();
    for sql in [QUERIES[0], QUERIES[1]] {
        let p = decorrelated(sql, &cat);
        let expected = try_eval(&p, &cat).unwrap();
        assert!(!expected.is_empty(), "{sql}: the mock data answer it");
        let narrow = crate::optimize::narrowed(p, &cat);
        let wide = crate::widen::share_join_arrangements(narrow.clone(), &cat);
        let (narrow, wide) = (
            crate::share::share_common(narrow),
            crate::share::share_common(wide),
        );
        assert!(
            new_join_arrangements(&wide) < new_join_arrangements(&narrow),
            "{sql}\nnarrow:\n{narrow}\nwide:\n{wide}"
        );
        assert_eq!(try_eval(&wide, &cat), Ok(expected), "{sql}\n{wide}");
    }
}

/// A projection above a union is moved into its inputs: an outer join's branches build only
/// the columns a grouping above reads, not the join's full width (its NULL padding).
#[test]
fn unions_build_only_the_kept_columns() {
    use crate::index_reuse::plan_arity;
    let cat = catalog();
    let sql = "SELECT t.a, count(u.x) FROM t LEFT JOIN u ON t.a = u.a GROUP BY t.a";
    let p = decorrelated(sql, &cat);
    let expected = try_eval(&p, &cat).unwrap();
    let physical = physical_plan(p, &cat).unwrap();
    // The outer join's union (the first one, under the grouping): both inputs two columns
    // wide, the joined rows' and the padded unmatched rows'.
    let mut widths = None;
    physical.visit(&mut |node| {
        if let (Plan::Union { inputs }, None) = (node, &widths) {
            widths = Some(
                inputs
                    .iter()
                    .map(|i| plan_arity(i, &cat))
                    .collect::<Vec<_>>(),
            );
        }
    });
    assert_eq!(widths, Some(vec![Some(2), Some(2)]), "{physical}");
    assert_eq!(try_eval(&physical, &cat), Ok(expected));
}
