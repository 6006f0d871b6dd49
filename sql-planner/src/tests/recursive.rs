//! WITH RECURSIVE: the plans (`Recursive` with its step reading `RecursiveGet`), what they
//! compute under PostgreSQL's working-table iteration (the reference interpreter runs it), and
//! the shapes that are refused, with PostgreSQL's SQLSTATEs where PostgreSQL refuses them too.

use super::{code, err, plan_one, query};
use crate::PlannedStatement;
use kpg_types::{Datum, Plan};

fn recursive_nodes(sql: &str) -> Vec<bool> {
    let PlannedStatement::Select { plan, .. } = plan_one(sql).unwrap_or_else(|e| panic!("{e:?}"))
    else {
        panic!("not a select")
    };
    let mut out = Vec::new();
    plan.visit(&mut |p| {
        if let Plan::Recursive { distinct, .. } = p {
            out.push(*distinct);
        }
    });
    // A plan may copy a subplan (a global aggregate reads its input twice).
    out.dedup();
    out
}

#[test]
fn counter_and_closure_plans() {
    let counter = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100) \
                   SELECT count(*), sum(n), max(n) FROM c";
    assert_eq!(recursive_nodes(counter), vec![false]);
    let rows = query(counter);
    assert_eq!(rows[0][0], Datum::Int64(100));
    assert_eq!(rows[0][2], Datum::Int32(100));
    // u.a -> t.a edges (2 -> 2 is a cycle): UNION stops where ALL would not.
    let closure =
        "WITH RECURSIVE r(a) AS (SELECT 1 UNION SELECT t.a + 1 FROM r JOIN t ON t.a = r.a) \
                   SELECT a FROM r";
    assert_eq!(recursive_nodes(closure), vec![true]);
    let reached: Vec<Datum> = query(closure).into_iter().map(|r| r[0].clone()).collect();
    assert_eq!(reached, [1, 2, 3, 4].map(Datum::Int32).to_vec());
    // A WITH RECURSIVE query that does not read itself is an ordinary WITH query.
    assert!(recursive_nodes("WITH RECURSIVE w AS (SELECT a FROM t) SELECT * FROM w").is_empty());
}

#[test]
fn column_types_come_from_the_non_recursive_term() {
    // bigint + int stays bigint; an int non-recursive term cannot widen (42804).
    assert_eq!(
        query(
            "WITH RECURSIVE c(n) AS (SELECT 1::int8 UNION ALL SELECT n + 1 FROM c WHERE n < 3) \
             SELECT n FROM c"
        ),
        vec![[Datum::Int64(1)], [Datum::Int64(2)], [Datum::Int64(3)]]
    );
    let e = err(
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n::int8 + 1 FROM c WHERE n < 3) \
                 SELECT n FROM c",
    );
    assert_eq!(e.code, "42804");
    assert_eq!(
        e.message,
        "recursive query \"c\" column 1 has type integer in non-recursive term but type bigint overall"
    );
}

#[test]
fn refused_shapes() {
    let r = |body: &str| format!("WITH RECURSIVE r(n) AS ({body}) SELECT * FROM r");
    // PostgreSQL refuses these too, with these codes.
    assert_eq!(
        code(&r("SELECT 1 UNION ALL SELECT count(*) FROM r")),
        "42P19"
    );
    assert_eq!(
        code(&r(
            "SELECT 1 UNION ALL SELECT a.n FROM r a, r b WHERE a.n < 3"
        )),
        "42P19"
    );
    assert_eq!(
        code(&r("SELECT n FROM r UNION ALL SELECT 1")),
        "42P19",
        "a reference in the non-recursive term"
    );
    assert_eq!(
        code(&r(
            "SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3 ORDER BY 1"
        )),
        "0A000"
    );
    // Shapes whose iteration would differ from a fixed point: refused, not approximated.
    for body in [
        "SELECT 1 UNION ALL SELECT t.a FROM t LEFT JOIN r ON r.n = t.a",
        "SELECT 1 UNION ALL SELECT DISTINCT n + 1 FROM r WHERE n < 3",
        "SELECT 1 UNION ALL (SELECT n + 1 FROM r WHERE n < 3 EXCEPT SELECT a FROM t)",
    ] {
        assert!(
            ["0A000", "42P19"].contains(&code(&r(body))),
            "{body}: {:?}",
            err(&r(body))
        );
    }
}
