//! ORDER BY ... LIMIT/OFFSET below the top level: planned as `Plan::TopK` (per outer row for a
//! correlated subquery), and computing what the top-level finishing computes for the same
//! query (the reference interpreter evaluates `TopK` with `kpg_types::plan::top_k`).

use super::{plan_one, query};
use crate::PlannedStatement;
use kpg_types::Plan;

fn plan_of(sql: &str) -> Plan {
    match plan_one(sql).unwrap_or_else(|e| panic!("{sql}: {e:?}")) {
        PlannedStatement::Select { plan, .. } | PlannedStatement::CreateView { plan, .. } => plan,
        other => panic!("{sql}: {other:?}"),
    }
}

fn top_ks(plan: &Plan) -> Vec<(Vec<usize>, Option<usize>, usize)> {
    let mut out = Vec::new();
    plan.visit(&mut |p| {
        if let Plan::TopK {
            group_key,
            limit,
            offset,
            ..
        } = p
        {
            out.push((group_key.clone(), *limit, *offset));
        }
    });
    out
}

fn sorted(mut rows: Vec<Vec<kpg_types::Datum>>) -> Vec<Vec<kpg_types::Datum>> {
    rows.sort();
    rows
}

#[test]
fn from_subquery_limit_equals_top_level_limit() {
    for inner in [
        "SELECT b, a FROM t ORDER BY a DESC, b LIMIT 2 OFFSET 1",
        "SELECT b FROM t ORDER BY a DESC, b LIMIT 2",
        "SELECT b FROM t ORDER BY b NULLS FIRST LIMIT 1",
        "SELECT b FROM t ORDER BY b DESC LIMIT 3",
        "SELECT a, x FROM u ORDER BY y DESC NULLS LAST, x OFFSET 1",
        "SELECT a FROM t ORDER BY a LIMIT 0",
        "SELECT a FROM t ORDER BY a LIMIT NULL OFFSET 2",
        "SELECT a, count(*) FROM u GROUP BY a ORDER BY 2 DESC, 1 NULLS FIRST LIMIT 2",
        "SELECT a FROM t UNION ALL SELECT a FROM u ORDER BY 1 DESC LIMIT 4",
    ] {
        let nested = format!("SELECT * FROM ({inner}) s");
        assert_eq!(
            top_ks(&plan_of(&nested)).len(),
            1,
            "{nested} plans one TopK"
        );
        assert_eq!(sorted(query(&nested)), sorted(query(inner)), "{nested}");
    }
}

#[test]
fn views_and_ctes_with_limit() {
    let plan = plan_of("CREATE MATERIALIZED VIEW w AS SELECT a, b FROM t ORDER BY a LIMIT 2");
    assert_eq!(top_ks(&plan), vec![(vec![], Some(2), 0)]);
    assert_eq!(
        sorted(query(
            "WITH top AS (SELECT a, b FROM t ORDER BY c DESC NULLS LAST LIMIT 2) SELECT b FROM top"
        )),
        sorted(query("SELECT b FROM t ORDER BY c DESC NULLS LAST LIMIT 2"))
    );
    // ORDER BY without LIMIT in a subquery is still no operator at all.
    assert!(top_ks(&plan_of("SELECT * FROM (SELECT a FROM t ORDER BY a) s")).is_empty());
}

#[test]
fn correlated_limit_is_per_outer_row() {
    // The largest x of u for each t.a, by ORDER BY ... LIMIT 1 and by max().
    let by_limit =
        "SELECT t.a, t.b, (SELECT u.x FROM u WHERE u.a = t.a ORDER BY u.x DESC LIMIT 1) FROM t";
    let plan = plan_of(by_limit);
    let tks = top_ks(&plan);
    assert!(!tks.is_empty(), "{plan}");
    assert!(tks.iter().all(|t| t.0 == vec![0]), "{plan}");
    assert_eq!(
        sorted(query(by_limit)),
        sorted(query(
            "SELECT t.a, t.b, (SELECT max(u.x) FROM u WHERE u.a = t.a) FROM t"
        ))
    );
    // EXISTS over an OFFSET: outer rows with at least two partners.
    assert_eq!(
        sorted(query(
            "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a ORDER BY x OFFSET 1)"
        )),
        sorted(query(
            "SELECT a FROM t WHERE (SELECT count(*) FROM u WHERE u.a = t.a) >= 2"
        ))
    );
    // An outer column only in ORDER BY makes the subquery correlated.
    let plan =
        plan_of("SELECT a, (SELECT u.x FROM u ORDER BY abs(u.x - t.a * 10), u.x LIMIT 1) FROM t");
    assert_eq!(top_ks(&plan)[0].0, vec![0], "{plan}");
}

#[test]
fn uncorrelated_scalar_and_in_subqueries_with_limit() {
    assert_eq!(
        sorted(query(
            "SELECT a FROM t WHERE a IN (SELECT a FROM u ORDER BY x DESC LIMIT 2)"
        )),
        sorted(query(
            "SELECT a FROM t WHERE a IN (SELECT a FROM u WHERE x >= 21)"
        ))
    );
    assert_eq!(
        query("SELECT (SELECT b FROM t ORDER BY a DESC LIMIT 1)"),
        query("SELECT b FROM t ORDER BY a DESC LIMIT 1")
    );
}
