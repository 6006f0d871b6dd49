//! Subqueries: the decorrelated plans compute what PostgreSQL computes (results checked by
//! hand against PostgreSQL's rules).

use super::*;

fn i(v: i32) -> Datum {
    Datum::Int32(v)
}

fn l(v: i64) -> Datum {
    Datum::Int64(v)
}

fn b(v: bool) -> Datum {
    Datum::Bool(v)
}

#[test]
fn correlated_scalar_counts_default_to_zero() {
    assert_eq!(
        query("SELECT a, (SELECT count(*) FROM u WHERE u.a = t.a) FROM t"),
        vec![
            vec![i(1), l(1)],
            vec![i(2), l(2)],
            vec![i(3), l(0)],
            vec![i(2), l(2)]
        ]
    );
    assert_eq!(
        query("SELECT a, (SELECT max(x) FROM u WHERE u.a > t.a) FROM t"),
        vec![
            vec![i(1), l(21)],
            vec![i(2), Datum::Null],
            vec![i(3), Datum::Null],
            vec![i(2), Datum::Null]
        ]
    );
    assert_eq!(query("SELECT (SELECT max(x) FROM u)"), vec![vec![l(30)]]);
}

#[test]
fn scalar_subquery_with_several_rows_is_an_error() {
    let cat = catalog();
    let PlannedStatement::Select { plan, .. } =
        plan_one("SELECT (SELECT a FROM u) FROM t").unwrap()
    else {
        panic!("not a select")
    };
    assert_eq!(try_eval(&plan, &cat).unwrap_err().sqlstate(), "21000");
}

#[test]
fn exists_and_not_exists() {
    assert_eq!(
        query("SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a)"),
        vec![vec![i(1)], vec![i(2)], vec![i(2)]]
    );
    assert_eq!(
        query("SELECT a FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.a = t.a)"),
        vec![vec![i(3)]]
    );
}

#[test]
fn in_and_not_in_follow_null_rules() {
    assert_eq!(
        query("SELECT a, a IN (SELECT a FROM u) FROM t"),
        vec![
            vec![i(1), b(true)],
            vec![i(2), b(true)],
            vec![i(3), Datum::Null],
            vec![i(2), b(true)]
        ]
    );
    assert_eq!(
        query("SELECT a, a NOT IN (SELECT a FROM u WHERE a IS NOT NULL) FROM t WHERE a <> 2"),
        vec![vec![i(1), b(false)], vec![i(3), b(true)]]
    );
    assert_eq!(
        query("SELECT NULL::int IN (SELECT a FROM u), NULL::int IN (SELECT a FROM u WHERE false)"),
        vec![vec![Datum::Null, b(false)]]
    );
}

#[test]
fn any_and_all() {
    assert_eq!(
        query("SELECT a FROM t WHERE a > ALL (SELECT a FROM u WHERE a IS NOT NULL)"),
        vec![vec![i(3)]]
    );
    assert_eq!(
        query("SELECT a, a < ANY (SELECT a FROM u) FROM t"),
        vec![
            vec![i(1), b(true)],
            vec![i(2), Datum::Null],
            vec![i(3), Datum::Null],
            vec![i(2), Datum::Null]
        ]
    );
}

#[test]
fn nested_correlation_reaches_the_outermost_query() {
    assert_eq!(
        query(
            "SELECT b FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.x > 15 AND \
             EXISTS (SELECT 1 FROM u AS w WHERE w.a = t.a AND w.x = u.x))"
        ),
        vec![vec![text("two")], vec![text("deux")]]
    );
}

#[test]
fn correlated_subquery_in_having() {
    assert_eq!(
        query(
            "SELECT a, count(*) FROM t GROUP BY a \
             HAVING count(*) = (SELECT count(*) FROM u WHERE u.a = t.a)"
        ),
        vec![vec![i(1), l(1)], vec![i(2), l(2)]]
    );
}

#[test]
fn outer_joins_pad_unmatched_rows() {
    let n = Datum::Null;
    assert_eq!(
        query("SELECT t.a, u.x FROM t LEFT JOIN u ON t.a = u.a"),
        vec![
            vec![i(1), l(10)],
            vec![i(2), l(20)],
            vec![i(2), l(20)],
            vec![i(2), l(21)],
            vec![i(2), l(21)],
            vec![i(3), n.clone()]
        ]
    );
    assert_eq!(
        query("SELECT t.a, u.x FROM t RIGHT JOIN u ON t.a = u.a AND u.x > 20"),
        vec![
            vec![n.clone(), l(10)],
            vec![n.clone(), l(20)],
            vec![n.clone(), l(30)],
            vec![i(2), l(21)],
            vec![i(2), l(21)]
        ]
    );
    assert_eq!(
        query("SELECT t.a, u.x FROM t FULL JOIN u ON t.a = u.a AND u.x > 20 WHERE t.a IS NULL OR t.a <> 2"),
        vec![
            vec![n.clone(), l(10)],
            vec![n.clone(), l(20)],
            vec![n.clone(), l(30)],
            vec![i(1), n.clone()],
            vec![i(3), n]
        ]
    );
}

#[test]
fn with_queries() {
    assert_eq!(
        query("WITH w AS (SELECT a, count(*) AS n FROM t GROUP BY a) SELECT a FROM w WHERE n > 1"),
        vec![vec![i(2)]]
    );
    assert_eq!(
        query(
            "WITH w(m) AS (SELECT max(a) FROM t), w2 AS (SELECT m + 0 AS m FROM w) \
             SELECT a FROM t WHERE a = (SELECT m FROM w2)"
        ),
        vec![vec![i(3)]]
    );
}

/// How many times the plan of `sql` reads collection `id`.
fn reads_of(sql: &str, id: u64) -> usize {
    let PlannedStatement::Select { plan, .. } = plan_one(sql).unwrap() else {
        panic!("not a select")
    };
    let text = format!("{plan:?}");
    text.matches(&format!("Get {{ id: {id} }}")).count()
        + text
            .matches(&format!("GetWithPosition {{ id: {id} }}"))
            .count()
}

#[test]
fn names_resolving_inside_the_subquery_are_not_outer_references() {
    // TPC-H Q18's shape: the subquery's `a` and `c` are its own t's, so it is uncorrelated: it
    // reads t where the same subquery over another table reads that table, and the host is
    // read no more often.
    let own = "SELECT b FROM t WHERE a IN (SELECT a FROM t WHERE c > 1)";
    let other = "SELECT b FROM t WHERE a IN (SELECT a FROM v)";
    assert_eq!(reads_of(own, 1), reads_of(other, 1) + reads_of(other, 3));
    // A qualified outer reference still correlates: the host is read again for the domain.
    let correlated = "SELECT b FROM t WHERE a IN (SELECT a FROM t AS t2 WHERE t2.c > t.c)";
    assert!(reads_of(correlated, 1) > reads_of(own, 1));
    let cat = catalog();
    let PlannedStatement::Select { plan, .. } = plan_one(own).unwrap() else {
        panic!("not a select")
    };
    let rows = eval(&plan, &cat);
    let PlannedStatement::Select { plan, .. } =
        plan_one("SELECT b FROM t WHERE a IN (SELECT t2.a FROM t AS t2 WHERE t2.c > 1)").unwrap()
    else {
        panic!("not a select")
    };
    assert_eq!(rows, eval(&plan, &cat));
}

/// Found by the random-query test: an outer join's ON condition reading a correlated
/// subquery's outer column failed with 42P01 ("missing FROM-clause entry"); it was then
/// refused, and is now planned per outer value (`tests/subqueries.rs` checks the rows against
/// PostgreSQL).
#[test]
fn outer_join_condition_with_outer_column_plans() {
    for kind in ["LEFT", "RIGHT", "FULL"] {
        let sql = format!(
            "SELECT x.a FROM t x WHERE EXISTS (SELECT 1 FROM u {kind} JOIN t y ON y.a = x.a)"
        );
        assert!(plan_one(&sql).is_ok(), "{sql}");
    }
    assert!(
        plan_one("SELECT x.a FROM t x WHERE EXISTS (SELECT 1 FROM u JOIN t y ON y.a = x.a)")
            .is_ok()
    );
    assert!(plan_one(
        "SELECT x.a FROM t x WHERE EXISTS (SELECT 1 FROM u LEFT JOIN t y ON y.a = u.a)"
    )
    .is_ok());
    // A column that exists nowhere is still a name error.
    assert_eq!(
        code("SELECT x.a FROM t x WHERE EXISTS (SELECT 1 FROM u LEFT JOIN t y ON y.a = x.nope)"),
        "42703"
    );
}
