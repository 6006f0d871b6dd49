//! USING and NATURAL joins: PostgreSQL's output columns (merged first, once), qualified
//! references to each side's own column, and what the joins compute (against the same join
//! written with ON and COALESCE, run by the reference interpreter).

use super::{code, plan_one, query};
use crate::PlannedStatement;

fn columns(sql: &str) -> Vec<String> {
    let PlannedStatement::Select { desc, .. } = plan_one(sql).unwrap_or_else(|e| panic!("{e:?}"))
    else {
        panic!("not a select")
    };
    desc.columns.iter().map(|(n, _)| n.clone()).collect()
}

fn sorted(mut rows: Vec<Vec<kpg_types::Datum>>) -> Vec<Vec<kpg_types::Datum>> {
    rows.sort();
    rows
}

#[test]
fn merged_columns_come_first() {
    // t(a, b, c, d), u(a, x, y, s)
    assert_eq!(
        columns("SELECT * FROM t JOIN u USING (a)"),
        ["a", "b", "c", "d", "x", "y", "s"]
    );
    assert_eq!(
        columns("SELECT * FROM t NATURAL JOIN u"),
        columns("SELECT * FROM t JOIN u USING (a)")
    );
    assert_eq!(
        columns("SELECT t.*, u.a FROM t JOIN u USING (a)"),
        ["a", "b", "c", "d", "a"]
    );
    assert_eq!(code("SELECT * FROM t JOIN u USING (b)"), "42703");
    assert_eq!(code("SELECT * FROM t JOIN u USING (a, a)"), "42701");
}

#[test]
fn using_joins_compute_the_on_joins() {
    for (using, on) in [
        (
            "SELECT a, b, x FROM t JOIN u USING (a)",
            "SELECT t.a, b, x FROM t JOIN u ON t.a = u.a",
        ),
        (
            "SELECT a, t.a, u.a, x FROM t FULL JOIN u USING (a)",
            "SELECT coalesce(t.a, u.a), t.a, u.a, x FROM t FULL JOIN u ON t.a = u.a",
        ),
        (
            "SELECT a, x FROM t RIGHT JOIN u USING (a)",
            "SELECT u.a, x FROM t RIGHT JOIN u ON t.a = u.a",
        ),
    ] {
        assert_eq!(sorted(query(using)), sorted(query(on)), "{using}");
    }
}
