//! Join ordering (`join_order.rs`) on star and snowflake queries over a small schema with
//! indexes on the dimensions' keys: over every FROM order the reordered plan builds the fewest
//! arrangements a left-deep plan can (each intermediate result once, plus each input no index
//! serves), never more than any FROM order gets by itself, never a cross product; and it
//! computes the same rows as the plan as written (reference interpreter).

use super::{catalog, MockCatalog};
use crate::{
    new_join_arrangements, order_joins, parse, plan, use_indexes, Catalog, CatalogItem, IndexItem,
    ItemKind, PlannedStatement,
};
use kpg_types::{ColumnType, Datum, GlobalId, Plan, RelationDesc, Row, ScalarExpr, ScalarType};

/// The mock catalog plus a star: f(k1, k2, k3, k4, m) (id 21) and dimensions d1..d4 (ids
/// 22..25, columns (k, a)), with an index on (k) of each dimension in `indexed` (index ids
/// 32..35, named `d<n>_k`), and `extra` indexes.
struct StarCatalog {
    base: MockCatalog,
    indexes: Vec<IndexItem>,
}

const DIMS: [&str; 4] = ["d1", "d2", "d3", "d4"];

impl StarCatalog {
    fn new(indexed: &[usize], extra: Vec<IndexItem>) -> Self {
        let mut base = catalog();
        let int = |n: &str| (n.to_string(), ColumnType::new(ScalarType::Int32, true));
        let mut add = |id: GlobalId, name: &str, cols, rows: Vec<Vec<Datum>>| {
            base.items.insert(
                name.into(),
                CatalogItem {
                    id,
                    name: name.into(),
                    kind: ItemKind::Table,
                    desc: RelationDesc::new(cols),
                },
            );
            base.data
                .insert(id, rows.into_iter().map(Row::new).collect());
        };
        let i = |v: i32| Datum::Int32(v);
        let null = Datum::Null;
        add(
            21,
            "f",
            ["k1", "k2", "k3", "k4", "m"].map(int).to_vec(),
            vec![
                vec![i(1), i(1), i(1), i(1), i(10)],
                vec![i(1), i(2), i(3), i(1), i(20)],
                vec![i(2), i(2), i(2), i(2), i(30)],
                vec![i(2), i(2), i(2), i(2), i(30)],
                vec![i(3), null.clone(), i(1), i(2), i(40)],
                vec![i(1), i(3), i(3), i(3), null.clone()],
                vec![i(4), i(1), i(2), i(3), i(50)],
            ],
        );
        for (n, name) in DIMS.iter().enumerate() {
            add(
                22 + n as GlobalId,
                name,
                vec![int("k"), int("a")],
                vec![
                    vec![i(1), i(100 + n as i32)],
                    vec![i(2), i(200 + n as i32)],
                    vec![i(2), null.clone()],
                    vec![i(3), i(300)],
                    vec![null.clone(), i(7)],
                ],
            );
        }
        let mut indexes: Vec<IndexItem> = indexed
            .iter()
            .map(|&n| IndexItem {
                id: 31 + n as GlobalId,
                name: format!("d{n}_k"),
                on: 21 + n as GlobalId,
                key: vec![ScalarExpr::Column(0)],
            })
            .collect();
        indexes.extend(extra);
        StarCatalog { base, indexes }
    }
}

impl Catalog for StarCatalog {
    fn resolve(&self, name: &str) -> Option<CatalogItem> {
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

    fn name_of(&self, id: GlobalId) -> Option<String> {
        self.base
            .items
            .values()
            .find(|i| i.id == id)
            .map(|i| i.name.clone())
            .or_else(|| {
                self.indexes
                    .iter()
                    .find(|i| i.id == id)
                    .map(|i| i.name.clone())
            })
    }
}

fn select_plan(sql: &str, cat: &StarCatalog) -> Plan {
    match plan(&parse(sql).unwrap()[0], cat) {
        Ok(PlannedStatement::Select { plan, .. }) => plan,
        other => panic!("{sql}: {other:?}"),
    }
}

/// Every permutation of `items`.
fn permutations<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first.clone());
            out.push(p);
        }
    }
    out
}

/// Whether some join of `plan` has no key (a cross product).
fn has_cross_product(plan: &Plan) -> bool {
    let mut cross = false;
    plan.visit(&mut |p| {
        if let Plan::Join { left_key, .. } = p {
            cross |= left_key.is_empty();
        }
    });
    cross
}

/// Plans `sql` as written and with join ordering; checks both compute the same rows and the
/// ordered plan has no cross product; returns the new arrangements (as written, ordered).
fn check(sql: &str, cat: &StarCatalog) -> (usize, usize) {
    let p = select_plan(sql, cat);
    let written = use_indexes(p.clone(), cat);
    let ordered = use_indexes(order_joins(p.clone(), cat), cat);
    assert!(!has_cross_product(&ordered), "{sql}:\n{ordered}");
    assert_eq!(
        super::eval(&p, &cat.base),
        super::eval(&ordered, &cat.base),
        "{sql}:\n{p}\nordered:\n{ordered}"
    );
    (
        new_join_arrangements(&written),
        new_join_arrangements(&ordered),
    )
}

/// A star query over f and the dimensions `dims` (numbers 1..=4), FROM items in `order`
/// (indexes into f + dims), conjuncts rotated by `rotate`, with `extra` conjuncts.
fn star_sql(dims: &[usize], order: &[usize], rotate: usize, extra: &[&str]) -> String {
    let names: Vec<String> = std::iter::once("f".to_string())
        .chain(dims.iter().map(|d| format!("d{d}")))
        .collect();
    let from: Vec<&str> = order.iter().map(|&i| names[i].as_str()).collect();
    let mut conds: Vec<String> = dims.iter().map(|d| format!("f.k{d} = d{d}.k")).collect();
    conds.extend(extra.iter().map(|s| s.to_string()));
    let len = conds.len();
    conds.rotate_left(rotate % len);
    format!(
        "SELECT * FROM {} WHERE {}",
        from.join(", "),
        conds.join(" AND ")
    )
}

#[test]
fn star_queries_read_every_indexed_dimension_through_its_index() {
    // Which dimensions are indexed, over every FROM order of f and four dimensions.
    for indexed in [vec![1, 2, 3, 4], vec![1, 3], vec![], vec![2]] {
        let cat = StarCatalog::new(&indexed, vec![]);
        let dims = [1, 2, 3, 4];
        let inputs = dims.len() + 1;
        // n - 2 intermediate results, f (not indexed by any key it joins on), and each
        // dimension without an index.
        let minimal = (inputs - 2) + 1 + (dims.len() - indexed.len());
        let orders = permutations(&(0..inputs).collect::<Vec<_>>());
        let mut best_written = usize::MAX;
        for (n, order) in orders.iter().enumerate() {
            let sql = star_sql(&dims, order, n, &[]);
            let (written, ordered) = check(&sql, &cat);
            assert_eq!(ordered, minimal, "{sql} with indexes on {indexed:?}");
            assert!(ordered <= written, "{sql}");
            best_written = best_written.min(written);
        }
        // The best any FROM order achieves as written is what ordering reaches from all.
        assert_eq!(best_written, minimal, "indexes on {indexed:?}");
    }
}

#[test]
fn star_queries_with_filters_compute_the_same_rows() {
    let cat = StarCatalog::new(&[1, 2, 3], vec![]);
    let extras: [&[&str]; 5] = [
        &["d1.a IS NOT NULL"],
        &["f.m > d2.a", "d3.a <> 7"],
        &["(d1.a = d2.a OR f.m IS NULL)"],
        &["f.k1 = f.k2", "d2.a < 250"],
        &["coalesce(d3.a, 0) >= f.k4"],
    ];
    let orders = permutations(&[0, 1, 2, 3]);
    for (n, order) in orders.iter().enumerate() {
        let extra = extras[n % extras.len()];
        let sql = star_sql(&[1, 2, 3], order, n, extra);
        let (written, ordered) = check(&sql, &cat);
        assert!(ordered <= written, "{sql}");
        assert_eq!(ordered, 2 + 1, "{sql}");
        // The same, as a projection and an aggregate.
        let sql = sql.replacen("SELECT *", "SELECT d2.a, f.m, d1.k", 1);
        check(&sql, &cat);
        let sql = format!(
            "SELECT d1.a, count(*), sum(f.m) FROM {} GROUP BY d1.a",
            sql.split_once(" FROM ").unwrap().1
        );
        check(&sql, &cat);
    }
}

/// A snowflake with a redundant equality that keeps the written key from matching an index
/// (like TPC-H Q5's `c_nationkey = s_nationkey`): ordering picks the key an index serves and
/// filters by the other equality, doing better than every FROM order as written.
#[test]
fn snowflake_keys_follow_the_indexes() {
    let cat = StarCatalog::new(&[1, 2, 3, 4], vec![]);
    // f -> d1 -> d2 (d1.a = d2.k), f -> d3, with f.k4 = d3.a as a second equality to d3.
    let conds = [
        "f.k1 = d1.k",
        "d1.a = d2.k",
        "f.k3 = d3.k",
        "f.k4 = d3.a",
        "d4.k = d2.a",
    ];
    let names = ["f", "d1", "d2", "d3", "d4"];
    let mut best_written = usize::MAX;
    for (n, order) in permutations(&[0, 1, 2, 3, 4]).iter().enumerate() {
        let from: Vec<&str> = order.iter().map(|&i| names[i]).collect();
        let mut conds = conds.to_vec();
        let len = conds.len();
        conds.rotate_left(n % len);
        let sql = format!(
            "SELECT * FROM {} WHERE {}",
            from.join(", "),
            conds.join(" AND ")
        );
        let (written, ordered) = check(&sql, &cat);
        // Three intermediates and f; every dimension through its index.
        assert_eq!(ordered, 3 + 1, "{sql}");
        best_written = best_written.min(written);
    }
    assert!(best_written > 4, "no FROM order as written reaches 4");
}

/// Two inputs both indexed by the key they join on: nothing is arranged.
#[test]
fn both_inputs_indexed_arrange_nothing() {
    let f_k1 = IndexItem {
        id: 40,
        name: "f_k1".into(),
        on: 21,
        key: vec![ScalarExpr::Column(0)],
    };
    let cat = StarCatalog::new(&[1, 2], vec![f_k1]);
    // d2 first: as written d2 joins f on k2 (f arranged anew).
    let sql = "SELECT * FROM d2, f, d1 WHERE f.k2 = d2.k AND f.k1 = d1.k";
    let (written, ordered) = check(sql, &cat);
    assert_eq!(
        (written, ordered),
        (2, 1),
        "f joins d1 first, both imported"
    );
}

/// The text of `EXPLAIN PHYSICAL PLAN FOR sql`.
fn physical(sql: &str, cat: &StarCatalog) -> String {
    match plan(
        &parse(&format!("EXPLAIN PHYSICAL PLAN FOR {sql}")).unwrap()[0],
        cat,
    ) {
        Ok(PlannedStatement::Explain { column, text }) => format!("{column}\n{text}"),
        other => panic!("{sql}: {other:?}"),
    }
}

const STAR: &str = "SELECT d1.a, d2.a, d3.a, f.m FROM d1, d2, f, d3 \
                    WHERE f.k1 = d1.k AND f.k2 = d2.k AND f.k3 = d3.k AND d3.a > 100";

#[test]
fn star_physical_plan_before_and_after_indexes() {
    let without = physical(STAR, &StarCatalog::new(&[], vec![]));
    insta::assert_snapshot!("star_physical_no_indexes", without);
    let with = physical(STAR, &StarCatalog::new(&[1, 2, 3], vec![]));
    insta::assert_snapshot!("star_physical_dimension_indexes", with);
    assert!(with.ends_with("New arrangements: 3\n"), "{with}");
    // As written, d1 x d2 is a cross product and nothing reads the indexes it could.
    let cat = StarCatalog::new(&[1, 2, 3], vec![]);
    let written = use_indexes(select_plan(STAR, &cat), &cat);
    assert_eq!(new_join_arrangements(&written), 5, "{written}");
}
