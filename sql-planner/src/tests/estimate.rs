//! Row estimates (`estimate.rs`) against the rows the plans really give: TPC-H tables generated
//! at a small scale factor, the estimates made from the specification's figures
//! (`tpch_statistics`), the true counts by evaluating the same joins over the generated rows
//! here. Foreign keys meeting primary keys, a filtered dimension, a composite key, an extra
//! equality beside a key, and a grouping joined back are each estimated within a factor of
//! the truth that the join order can rely on.

use std::collections::HashMap;

use kpg_types::{BinaryFunc, ColumnType, Datum, GlobalId, Plan, RelationDesc, ScalarExpr};

use crate::estimate::{estimate, Statistics};
use crate::{tpch_statistics, Catalog, CatalogItem, ItemKind};

const SF: f64 = 0.01;

struct Tables {
    names: Vec<&'static str>,
    rows: HashMap<&'static str, Vec<Vec<Datum>>>,
    /// Whether the statistics are the rows alone (a table loaded by COPY).
    rows_only: bool,
}

impl Tables {
    fn new(names: &[&'static str]) -> Tables {
        let rows = names
            .iter()
            .map(|t| {
                let rows = kpg_tpch::rows(t, SF, 1, 1)
                    .map(|r| r.iter().map(datum).collect())
                    .collect();
                (*t, rows)
            })
            .collect();
        Tables {
            names: names.to_vec(),
            rows,
            rows_only: false,
        }
    }

    fn id(&self, name: &str) -> GlobalId {
        self.names.iter().position(|n| *n == name).unwrap() as GlobalId + 1
    }

    fn get(&self, name: &str) -> Plan {
        Plan::Get { id: self.id(name) }
    }

    fn column(name: &str, column: &str) -> usize {
        kpg_tpch::columns(name)
            .iter()
            .position(|(c, _)| *c == column)
            .unwrap()
    }
}

fn datum(v: &kpg_tpch::Value) -> Datum {
    match v {
        kpg_tpch::Value::Int(i) | kpg_tpch::Value::Decimal(i) => Datum::Int64(*i),
        kpg_tpch::Value::Text(s) | kpg_tpch::Value::Date(s) => Datum::String(s.clone()),
    }
}

impl Catalog for Tables {
    fn resolve(&self, name: &str) -> Option<CatalogItem> {
        let columns = kpg_tpch::columns(name)
            .iter()
            .map(|(c, _)| {
                let ty = ColumnType::new(kpg_types::ScalarType::Int64, true);
                (c.to_string(), ty)
            })
            .collect();
        Some(CatalogItem {
            id: self.id(name),
            name: name.to_string(),
            kind: ItemKind::Table,
            desc: RelationDesc::new(columns),
        })
    }

    fn name_of(&self, id: GlobalId) -> Option<String> {
        Some(self.names[id as usize - 1].to_string())
    }

    fn statistics(&self, id: GlobalId) -> Option<Statistics> {
        let stats = tpch_statistics(self.names[id as usize - 1], SF);
        Some(match self.rows_only {
            true => Statistics {
                rows: stats.rows,
                ..Statistics::default()
            },
            false => stats,
        })
    }
}

/// Rows of `left` joined to rows of `right` on the column pairs (counted, not built).
fn true_join(left: &[Vec<Datum>], right: &[Vec<Datum>], pairs: &[(usize, usize)]) -> usize {
    let mut by_key: HashMap<Vec<&Datum>, usize> = HashMap::new();
    for r in right {
        *by_key
            .entry(pairs.iter().map(|(_, c)| &r[*c]).collect())
            .or_default() += 1;
    }
    left.iter()
        .map(|l| {
            let key: Vec<&Datum> = pairs.iter().map(|(c, _)| &l[*c]).collect();
            by_key.get(&key).copied().unwrap_or(0)
        })
        .sum()
}

fn eq_join(left: Plan, right: Plan, pairs: &[(usize, usize)]) -> Plan {
    Plan::Join {
        left: Box::new(left),
        right: Box::new(right),
        left_key: pairs.iter().map(|(l, _)| ScalarExpr::Column(*l)).collect(),
        right_key: pairs.iter().map(|(_, r)| ScalarExpr::Column(*r)).collect(),
    }
}

/// The estimate of `left` joined to `right` on the column pairs is within `factor` of the
/// rows the join really gives.
fn join_close(t: &Tables, (left, right): (&str, &str), pairs: &[(usize, usize)], factor: f64) {
    let plan = eq_join(t.get(left), t.get(right), pairs);
    let truth = true_join(&t.rows[left], &t.rows[right], pairs);
    let what = format!("{left}-{right}");
    close(&what, estimate(&plan, t).unwrap().rows, truth, factor);
}

/// `estimate` is within `factor` of `truth` either way.
fn close(what: &str, estimated: f64, truth: usize, factor: f64) {
    let truth = truth.max(1) as f64;
    assert!(
        estimated <= truth * factor && estimated >= truth / factor,
        "{what}: estimated {estimated}, really {truth}"
    );
}

#[test]
fn foreign_keys_meeting_primary_keys() {
    let t = Tables::new(&["lineitem", "orders", "supplier", "partsupp", "nation"]);
    let col = Tables::column;
    // lineitem to orders by l_orderkey: one order per line.
    let pairs = [(col("lineitem", "l_orderkey"), col("orders", "o_orderkey"))];
    join_close(&t, ("lineitem", "orders"), &pairs, 1.1);

    // A composite key: lineitem to partsupp by (partkey, suppkey), one row each.
    let pairs = [
        (col("lineitem", "l_partkey"), col("partsupp", "ps_partkey")),
        (col("lineitem", "l_suppkey"), col("partsupp", "ps_suppkey")),
    ];
    join_close(&t, ("lineitem", "partsupp"), &pairs, 1.1);

    // A filtered dimension keeps its share of the facts: suppliers of one nation.
    let nation = Plan::Filter {
        input: Box::new(t.get("nation")),
        predicates: vec![ScalarExpr::Column(0).call_binary(BinaryFunc::Eq, lit(7))],
    };
    let pairs = [(col("supplier", "s_nationkey"), 0)];
    let plan = eq_join(t.get("supplier"), nation, &pairs);
    let one_nation: Vec<Vec<Datum>> = t.rows["nation"]
        .iter()
        .filter(|r| r[0] == Datum::Int64(7))
        .cloned()
        .collect();
    let truth = true_join(&t.rows["supplier"], &one_nation, &pairs);
    close(
        "supplier-nation 7",
        estimate(&plan, &t).unwrap().rows,
        truth,
        2.0,
    );
}

#[test]
fn an_equality_beside_a_key_filters_further() {
    // supplier joined to lineitem's suppliers by key, and also requiring equal nations with
    // a second supplier copy: s1.s_suppkey = s2.s_suppkey and s1.s_nationkey = s2.s_nationkey
    // is one row per supplier; lineitem x supplier by (l_suppkey, l_linenumber = s_nationkey)
    // is the key's rows thinned by the second equality.
    let t = Tables::new(&["lineitem", "supplier"]);
    let col = Tables::column;
    let pairs = [
        (col("lineitem", "l_suppkey"), col("supplier", "s_suppkey")),
        (
            col("lineitem", "l_linenumber"),
            col("supplier", "s_nationkey"),
        ),
    ];
    let plan = eq_join(t.get("lineitem"), t.get("supplier"), &pairs);
    let key_only = t.rows["lineitem"].len();
    let estimated = estimate(&plan, &t).unwrap().rows;
    assert!(estimated < key_only as f64 / 3.0, "{estimated}");
    join_close(&t, ("lineitem", "supplier"), &pairs, 4.0);
}

#[test]
fn rows_alone_take_equal_columns_over_the_smaller_domain() {
    // Nothing known but the rows: supplier meets nation by nation's key (the smaller side's
    // column taken as its key), and customer then meets supplier's nation column, which now
    // ranges over the 25 nations, not the suppliers: every customer of a supplier's nation.
    let mut t = Tables::new(&["nation", "supplier", "customer"]);
    t.rows_only = true;
    let col = Tables::column;
    let (s_nation, c_nation) = (
        col("supplier", "s_nationkey"),
        col("customer", "c_nationkey"),
    );
    let nation_arity = kpg_tpch::columns("nation").len();
    let with_supplier = eq_join(t.get("nation"), t.get("supplier"), &[(0, s_nation)]);
    let plan = eq_join(
        with_supplier,
        t.get("customer"),
        &[(nation_arity + s_nation, c_nation)],
    );
    let truth = true_join(
        &t.rows["supplier"],
        &t.rows["customer"],
        &[(s_nation, c_nation)],
    );
    close(
        "nation-supplier-customer",
        estimate(&plan, &t).unwrap().rows,
        truth,
        1.5,
    );
}

#[test]
fn rows_alone_take_two_unknown_pairs_as_one_key() {
    // lineitem meets partsupp by (partkey, suppkey) with nothing known but the rows: the
    // pairs' guessed domains multiply no further than partsupp's rows (one line, one row).
    let mut t = Tables::new(&["lineitem", "partsupp"]);
    t.rows_only = true;
    let col = Tables::column;
    let pairs = [
        (col("lineitem", "l_partkey"), col("partsupp", "ps_partkey")),
        (col("lineitem", "l_suppkey"), col("partsupp", "ps_suppkey")),
    ];
    join_close(&t, ("lineitem", "partsupp"), &pairs, 2.0);
}

#[test]
fn a_grouping_joined_back_by_its_key() {
    // The distinct order keys of urgent orders, joined back to lineitem: the grouping's key is
    // some of the order keys' domain, so lineitem keeps that share.
    let t = Tables::new(&["lineitem", "orders"]);
    let col = Tables::column;
    let priority = col("orders", "o_orderpriority");
    let urgent = t.rows["orders"]
        .iter()
        .find(|r| matches!(&r[priority], Datum::String(s) if s.contains("URGENT")))
        .unwrap()[priority]
        .clone();
    let keys = Plan::Distinct {
        input: Box::new(Plan::Project {
            input: Box::new(Plan::Filter {
                input: Box::new(t.get("orders")),
                predicates: vec![ScalarExpr::Column(priority)
                    .call_binary(BinaryFunc::Eq, ScalarExpr::Literal(urgent.clone()))],
            }),
            outputs: vec![col("orders", "o_orderkey")],
        }),
    };
    let pairs = [(col("lineitem", "l_orderkey"), 0)];
    let plan = eq_join(t.get("lineitem"), keys, &pairs);
    let urgent_keys: Vec<Vec<Datum>> = t.rows["orders"]
        .iter()
        .filter(|r| r[priority] == urgent)
        .map(|r| vec![r[0].clone()])
        .collect();
    let truth = true_join(&t.rows["lineitem"], &urgent_keys, &pairs);
    close(
        "lineitem-urgent keys",
        estimate(&plan, &t).unwrap().rows,
        truth,
        1.5,
    );
}

#[test]
fn nothing_known_is_no_estimate() {
    struct Bare;
    impl Catalog for Bare {
        fn resolve(&self, _: &str) -> Option<CatalogItem> {
            None
        }
    }
    assert_eq!(estimate(&Plan::Get { id: 1 }, &Bare), None);
    // A join with an input not known is not known.
    let t = Tables::new(&["nation"]);
    let plan = eq_join(t.get("nation"), Plan::Get { id: 99 }, &[(0, 0)]);
    struct Partial<'a>(&'a Tables);
    impl Catalog for Partial<'_> {
        fn resolve(&self, name: &str) -> Option<CatalogItem> {
            self.0.resolve(name)
        }
        fn name_of(&self, id: GlobalId) -> Option<String> {
            (id == 1).then(|| "nation".to_string())
        }
        fn statistics(&self, id: GlobalId) -> Option<Statistics> {
            (id == 1).then(|| tpch_statistics("nation", SF))
        }
    }
    assert!(estimate(&t.get("nation"), &Partial(&t)).is_some());
    assert_eq!(estimate(&plan, &Partial(&t)), None);
}

fn lit(i: i64) -> ScalarExpr {
    ScalarExpr::Literal(Datum::Int64(i))
}
