//! Golden tests of EXPLAIN against the mock catalog plus an index and a view: each stage's
//! text is compared with a reviewed snapshot (`snapshots/`, managed by `insta`; after an
//! intended change, `cargo insta review` or `INSTA_UPDATE=always` rewrites them).

use super::{catalog, MockCatalog};
use crate::{parse, plan, Catalog, CatalogItem, IndexItem, ItemKind, PlannedStatement};
use kpg_types::{GlobalId, Plan, RelationDesc, ScalarExpr};

const VIEW_SQL: &str = "SELECT a, count(*) AS n FROM t GROUP BY a";

/// The mock catalog, plus `u_a` (an index on u(a), id 10), `w` (a view, id 11: per-`a` counts
/// of t) and `w_a` (an index on w(a), id 12) when `index_view`.
struct ExplainCatalog {
    base: MockCatalog,
    view: (CatalogItem, Plan),
    indexes: Vec<IndexItem>,
}

impl ExplainCatalog {
    fn new(index_view: bool) -> Self {
        let base = catalog();
        let Ok(PlannedStatement::Select { plan, desc, .. }) =
            plan(&parse(VIEW_SQL).unwrap()[0], &base)
        else {
            panic!("view definition plans")
        };
        let view = CatalogItem {
            id: 11,
            name: "w".into(),
            kind: ItemKind::View,
            desc: RelationDesc::new(desc.columns),
        };
        let mut indexes = vec![IndexItem {
            id: 10,
            name: "u_a".into(),
            on: 2,
            key: vec![ScalarExpr::Column(0)],
        }];
        if index_view {
            indexes.push(IndexItem {
                id: 12,
                name: "w_a".into(),
                on: 11,
                key: vec![ScalarExpr::Column(0)],
            });
        }
        ExplainCatalog {
            base,
            view: (view, plan),
            indexes,
        }
    }
}

impl Catalog for ExplainCatalog {
    fn resolve(&self, name: &str) -> Option<CatalogItem> {
        if name == "w" {
            return Some(self.view.0.clone());
        }
        self.base.resolve(name)
    }

    fn resolve_index(&self, name: &str) -> Option<IndexItem> {
        self.indexes.iter().find(|i| i.name == name).cloned()
    }

    fn indexes_on(&self, id: GlobalId) -> Vec<IndexItem> {
        self.indexes
            .iter()
            .filter(|i| i.on == id)
            .cloned()
            .collect()
    }

    fn definition(&self, id: GlobalId) -> Option<Plan> {
        (id == 11).then(|| self.view.1.clone())
    }

    fn definition_sql(&self, id: GlobalId) -> Option<String> {
        (id == 11).then(|| VIEW_SQL.to_string())
    }

    fn name_of(&self, id: GlobalId) -> Option<String> {
        let names = ["t", "u", "v", "w"];
        names
            .iter()
            .filter_map(|n| self.resolve(n))
            .find(|i| i.id == id)
            .map(|i| i.name)
            .or_else(|| {
                self.indexes
                    .iter()
                    .find(|i| i.id == id)
                    .map(|i| i.name.clone())
            })
    }
}

/// The EXPLAIN text for `sql` (header line: the column name).
fn explain(sql: &str, cat: &ExplainCatalog) -> String {
    match plan(&parse(sql).unwrap()[0], cat) {
        Ok(PlannedStatement::Explain { column, text }) => format!("{column}\n{text}"),
        other => panic!("{sql}: {other:?}"),
    }
}

const JOIN: &str = "SELECT t.b, u.x FROM t JOIN u ON t.a = u.a WHERE t.c > 1 AND u.y IS NOT NULL";

#[test]
fn join_optimized_and_physical() {
    let cat = ExplainCatalog::new(false);
    let optimized = explain(&format!("EXPLAIN OPTIMIZED PLAN FOR {JOIN}"), &cat);
    insta::assert_snapshot!("join_optimized", optimized);
    // Plain EXPLAIN is the optimized plan. The binder already put each filter on the input
    // it reads, so here DECORRELATED is the same tree (`tests/optimize.rs` has queries whose
    // plans the optimizer does change).
    assert_eq!(explain(&format!("EXPLAIN {JOIN}"), &cat), optimized);
    assert_eq!(
        explain(&format!("EXPLAIN DECORRELATED PLAN FOR {JOIN}"), &cat).replacen(
            "Decorrelated",
            "Optimized",
            1
        ),
        optimized
    );
    // u is read through its index u_a (keyed by the join key); t is arranged anew.
    insta::assert_snapshot!(
        "join_physical",
        explain(&format!("EXPLAIN PHYSICAL PLAN FOR {JOIN}"), &cat)
    );
}

#[test]
fn views_are_planned_in_place_until_indexed() {
    let cat = ExplainCatalog::new(false);
    let q = "EXPLAIN PHYSICAL PLAN FOR SELECT u.x, w.n FROM u JOIN w ON u.a = w.a";
    insta::assert_snapshot!("view_in_place_physical", explain(q, &cat));
    insta::assert_snapshot!("view_definition", explain("EXPLAIN PLAN FOR VIEW w", &cat));
    let indexed = ExplainCatalog::new(true);
    // Both join inputs are imported indexes: nothing new is arranged.
    insta::assert_snapshot!("view_indexed_physical", explain(q, &indexed));
    insta::assert_snapshot!(
        "view_index_physical",
        explain("EXPLAIN PHYSICAL PLAN FOR INDEX w_a", &indexed)
    );
}

#[test]
fn expressions_subqueries_and_set_operations() {
    let cat = ExplainCatalog::new(false);
    insta::assert_snapshot!(
        "expressions",
        explain(
            "EXPLAIN SELECT CASE WHEN a > 1 THEN 'big' ELSE b END, coalesce(c, 0) * 2, \
             d + 1, -a, NOT (b LIKE 'x%') FROM t WHERE b IS NULL OR a <> 3",
            &cat
        )
    );
    insta::assert_snapshot!(
        "exists_and_union",
        explain(
            "EXPLAIN PHYSICAL PLAN FOR SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a) \
             UNION SELECT a FROM v",
            &cat
        )
    );
    // Three subqueries correlated on the same column: the joins that read one shared value by
    // one key share its arrangement (marked, and not counted as new).
    let shared = explain(
        "EXPLAIN PHYSICAL PLAN FOR SELECT a, (SELECT count(*) FROM u WHERE u.a < t.a), \
         (SELECT max(x) FROM u WHERE u.a < t.a) FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a < t.a)",
        &cat,
    );
    assert!(shared.contains("[shared with an earlier join]"), "{shared}");
    insta::assert_snapshot!("subqueries_share_arrangements", shared);
}

/// RAW keeps each subquery in its expression, its plan below the operator reading a `Get
/// outer row` leaf; the decorrelated plan of the same query has joins instead. A query
/// without subqueries binds to the same tree either way.
#[test]
fn raw_plans_nest_subqueries() {
    let cat = ExplainCatalog::new(false);
    let q = "SELECT a, (SELECT max(x) FROM u WHERE u.a = t.a) AS m FROM t \
             WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a AND u.x > t.c) \
             AND b NOT IN (SELECT b FROM v WHERE v.a <> t.a) AND c > ALL (SELECT x FROM u)";
    let raw = explain(&format!("EXPLAIN RAW PLAN FOR {q}"), &cat);
    insta::assert_snapshot!("raw_subqueries", raw);
    let decorrelated = explain(&format!("EXPLAIN DECORRELATED PLAN FOR {q}"), &cat);
    assert!(!decorrelated.contains("outer row") && !decorrelated.contains("Subquery"));
    // Nested: the inner subquery reads a column two levels out through its own outer row.
    insta::assert_snapshot!(
        "raw_nested",
        explain(
            "EXPLAIN RAW PLAN FOR SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a \
             AND u.x = (SELECT max(v.n) FROM v WHERE v.a < t.a))",
            &cat
        )
    );
    insta::assert_snapshot!("raw_view", explain("EXPLAIN RAW PLAN FOR VIEW w", &cat));
    for q in [
        JOIN,
        "SELECT a, count(*) FROM t GROUP BY a HAVING count(*) > 1",
    ] {
        assert_eq!(
            explain(&format!("EXPLAIN RAW PLAN FOR {q}"), &cat).replacen("Raw", "Decorrelated", 1),
            explain(&format!("EXPLAIN DECORRELATED PLAN FOR {q}"), &cat)
        );
    }
}

#[test]
fn explain_errors() {
    let cat = ExplainCatalog::new(false);
    let err = |sql: &str| match plan(&parse(sql).unwrap()[0], &cat) {
        Err(e) => e.code,
        Ok(p) => panic!("{sql} planned: {p:?}"),
    };
    assert_eq!(err("EXPLAIN PLAN FOR VIEW nope"), "42P01");
    assert_eq!(err("EXPLAIN PLAN FOR VIEW t"), "42809");
    assert_eq!(err("EXPLAIN PLAN FOR MATERIALIZED VIEW w"), "42809");
    assert_eq!(err("EXPLAIN PLAN FOR INDEX nope"), "42704");
    assert_eq!(err("EXPLAIN PLAN FOR SELECT * FROM nope"), "42P01");
    assert!(
        parse("EXPLAIN OPTIMIZED SELECT 1").is_err(),
        "PLAN FOR is required"
    );
}

/// Index selection changes how a plan runs, never what it computes: each query's plan and its
/// rewritten plan give the same rows on the mock data (the reference interpreter reads an
/// `IndexedGet` as its collection), and the rewrite does read the index where the key fits,
/// with the input's filters and projections lifted above the join.
#[test]
fn index_selection_preserves_results() {
    // The view stays unindexed: the interpreter has no rows for an indexed view.
    let cat = ExplainCatalog::new(false);
    let queries = [
        ("SELECT t.b, u.x FROM t JOIN u ON t.a = u.a WHERE u.y IS NOT NULL", true),
        ("SELECT * FROM t JOIN u ON t.a = u.a WHERE u.x > 1 AND t.c > 0", true),
        ("SELECT t.a, s.z FROM t JOIN (SELECT x AS z, a AS k FROM u WHERE x <> 7) s ON t.a = s.k", true),
        ("SELECT s.a FROM (SELECT y, a FROM u) s JOIN t ON s.a = t.a", true),
        ("SELECT u.x, w.n FROM u JOIN w ON u.a = w.a WHERE w.n > 1", true),
        ("SELECT * FROM u u1 JOIN u u2 ON u1.a = u2.a", true),
        ("SELECT * FROM t JOIN u ON t.a = u.x", false),
        ("SELECT * FROM t, u WHERE t.b IS NULL", false),
    ];
    for (sql, uses_index) in queries {
        let Ok(PlannedStatement::Select { plan: p, .. }) = plan(&parse(sql).unwrap()[0], &cat)
        else {
            panic!("{sql} plans")
        };
        let rewritten = crate::use_indexes(p.clone(), &cat);
        assert_eq!(
            !rewritten.index_imports().is_empty(),
            uses_index,
            "{sql}:\n{rewritten}"
        );
        assert_eq!(
            super::eval(&p, &cat.base),
            super::eval(&rewritten, &cat.base),
            "{sql}:\n{p}\nrewritten:\n{rewritten}"
        );
    }
}

/// A recursive query's arrangements: each round is consolidated (one arrangement) or, for
/// UNION, made distinct in the loop's times (input and output); a DISTINCT over the recursion
/// inside the step keeps its output too, one over a table the step reads is rendered outside
/// the loop and keeps its input only.
#[test]
fn recursive_arrangement_counts() {
    let cat = ExplainCatalog::new(false);
    let q = "EXPLAIN PHYSICAL PLAN FOR WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT r.n + 1 \
             FROM (SELECT DISTINCT n FROM r) r JOIN (SELECT DISTINCT a FROM t) d ON d.a = r.n) \
             SELECT n FROM r";
    insta::assert_snapshot!("recursive_physical", explain(q, &cat));
}
