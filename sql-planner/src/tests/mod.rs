//! Planner tests against a mock catalog, with a small reference interpreter for plans so that
//! tests can check what a plan computes, not only its shape.

mod builtins;
mod ddl_dml;
mod errors;
mod estimate;
mod explain;
mod expressions;
mod join_order;
mod join_order_tpch;
mod optimize;
mod params;
mod queries;
mod recursive;
mod session_statements;
mod sources;
mod subqueries;
mod top_k;
mod typing_fuzz;
mod using;

use crate::{parse, plan, Catalog, CatalogItem, ItemKind, PlanError, PlannedStatement};
use kpg_types::{ColumnType, Datum, EvalError, GlobalId, Plan, RelationDesc, Row, ScalarType};
use std::collections::{BTreeMap, HashMap};

pub struct MockCatalog {
    items: HashMap<String, CatalogItem>,
    pub data: HashMap<GlobalId, Vec<Row>>,
}

impl Catalog for MockCatalog {
    fn resolve(&self, name: &str) -> Option<CatalogItem> {
        self.items.get(name).cloned()
    }

    fn name_of(&self, id: GlobalId) -> Option<String> {
        self.items
            .values()
            .find(|i| i.id == id)
            .map(|i| i.name.clone())
    }
}

fn col(name: &str, scalar: ScalarType, nullable: bool) -> (String, ColumnType) {
    (name.to_string(), ColumnType::new(scalar, nullable))
}

pub fn num(s: &str) -> Datum {
    Datum::Numeric(s.parse().unwrap())
}

pub fn text(s: &str) -> Datum {
    Datum::String(s.to_string())
}

/// t(a int4 not null, b text, c numeric(10,2), d date) = id 1
/// u(a int4, x int8, y float8, s varchar(5)) = id 2
/// v(a int4, n int8) materialized view = id 3
pub fn catalog() -> MockCatalog {
    let mut items = HashMap::new();
    let mut add = |id, name: &str, kind, cols| {
        items.insert(
            name.to_string(),
            CatalogItem {
                id,
                name: name.to_string(),
                kind,
                desc: RelationDesc::new(cols),
            },
        );
    };
    add(
        1,
        "t",
        ItemKind::Table,
        vec![
            col("a", ScalarType::Int32, false),
            col("b", ScalarType::Text, true),
            col(
                "c",
                ScalarType::Numeric {
                    precision: Some(10),
                    scale: Some(2),
                },
                true,
            ),
            col("d", ScalarType::Date, true),
        ],
    );
    add(
        2,
        "u",
        ItemKind::Table,
        vec![
            col("a", ScalarType::Int32, true),
            col("x", ScalarType::Int64, true),
            col("y", ScalarType::Float64, true),
            col(
                "s",
                ScalarType::VarChar {
                    max_length: Some(5),
                },
                true,
            ),
        ],
    );
    add(
        3,
        "v",
        ItemKind::MaterializedView,
        vec![
            col("a", ScalarType::Int32, true),
            col("n", ScalarType::Int64, false),
        ],
    );
    let date = |s: &str| Datum::parse_text(s, &ScalarType::Date).unwrap();
    let mut data = HashMap::new();
    data.insert(
        1,
        vec![
            Row::new(vec![
                Datum::Int32(1),
                text("one"),
                num("1.50"),
                date("2024-01-01"),
            ]),
            Row::new(vec![
                Datum::Int32(2),
                text("two"),
                num("2.25"),
                date("2024-02-01"),
            ]),
            Row::new(vec![Datum::Int32(3), Datum::Null, Datum::Null, Datum::Null]),
            Row::new(vec![
                Datum::Int32(2),
                text("deux"),
                num("10.00"),
                date("2024-03-01"),
            ]),
        ],
    );
    data.insert(
        2,
        vec![
            Row::new(vec![
                Datum::Int32(1),
                Datum::Int64(10),
                Datum::Float64(1.5.into()),
                text("x"),
            ]),
            Row::new(vec![
                Datum::Int32(2),
                Datum::Int64(20),
                Datum::Float64(2.5.into()),
                text("y"),
            ]),
            Row::new(vec![
                Datum::Int32(2),
                Datum::Int64(21),
                Datum::Null,
                Datum::Null,
            ]),
            Row::new(vec![Datum::Null, Datum::Int64(30), Datum::Null, text("z")]),
        ],
    );
    data.insert(3, vec![]);
    MockCatalog { items, data }
}

pub fn plan_one(sql: &str) -> Result<PlannedStatement, PlanError> {
    let cat = catalog();
    let stmts = parse(sql)?;
    assert_eq!(stmts.len(), 1, "{sql}");
    plan(&stmts[0], &cat)
}

pub fn err(sql: &str) -> PlanError {
    match plan_one(sql) {
        Ok(p) => panic!("{sql} planned: {p:?}"),
        Err(e) => e,
    }
}

pub fn code(sql: &str) -> &'static str {
    err(sql).code
}

/// Evaluates a plan over the mock data: rows with nonzero multiplicity, sorted.
pub fn eval(p: &Plan, cat: &MockCatalog) -> Vec<(Row, i64)> {
    try_eval(p, cat).unwrap_or_else(|e| panic!("evaluation failed: {e}"))
}

thread_local! {
    /// The working table of each `Recursive` being evaluated, by id.
    static RECURSIVE: std::cell::RefCell<HashMap<u64, Vec<(Row, i64)>>> = Default::default();
    /// The value of each `Let` being evaluated, by id.
    static LOCALS: std::cell::RefCell<HashMap<u64, Vec<(Row, i64)>>> = Default::default();
}

/// `eval`, returning evaluation errors (division by zero, bad casts) instead of panicking.
pub fn try_eval(p: &Plan, cat: &MockCatalog) -> Result<Vec<(Row, i64)>, EvalError> {
    let mut acc: BTreeMap<Row, i64> = BTreeMap::new();
    for (r, d) in eval_raw(p, cat)? {
        *acc.entry(r).or_insert(0) += d;
    }
    Ok(acc.into_iter().filter(|(_, d)| *d != 0).collect())
}

fn eval_raw(p: &Plan, cat: &MockCatalog) -> Result<Vec<(Row, i64)>, EvalError> {
    Ok(match p {
        Plan::Get { id } => cat.data[id].iter().map(|r| (r.clone(), 1)).collect(),
        Plan::GetWithPosition { id } => cat.data[id]
            .iter()
            .enumerate()
            .map(|(i, r)| (r.concat(&Row::new(vec![Datum::Int64(i as i64)])), 1))
            .collect(),
        Plan::Constant { rows } => rows.clone(),
        Plan::Map { input, exprs } => {
            let mut out = Vec::new();
            for (r, d) in try_eval(input, cat)? {
                let mut datums = r.into_datums();
                for e in exprs {
                    let v = e.eval(&datums)?;
                    datums.push(v);
                }
                out.push((Row::new(datums), d));
            }
            out
        }
        Plan::Filter { input, predicates } => {
            let mut out = Vec::new();
            'rows: for (r, d) in try_eval(input, cat)? {
                for p in predicates {
                    if !p.eval_predicate(&r.datums())? {
                        continue 'rows;
                    }
                }
                out.push((r, d));
            }
            out
        }
        // Rows present at a logical time; these tests evaluate plans at no time
        // (`temporal.rs` tests its bounds itself).
        Plan::TemporalFilter { .. } => panic!("the reference evaluator has no logical time"),
        Plan::Project { input, outputs } => try_eval(input, cat)?
            .into_iter()
            .map(|(r, d)| (r.project(outputs), d))
            .collect(),
        Plan::Join {
            left,
            right,
            left_key,
            right_key,
        } => {
            let (l, r) = (try_eval(left, cat)?, try_eval(right, cat)?);
            let mut out = Vec::new();
            for (lr, ld) in &l {
                let lk = left_key
                    .iter()
                    .map(|e| e.eval(&lr.datums()))
                    .collect::<Result<Vec<_>, _>>()?;
                if lk.iter().any(Datum::is_null) {
                    continue;
                }
                for (rr, rd) in &r {
                    let rk = right_key
                        .iter()
                        .map(|e| e.eval(&rr.datums()))
                        .collect::<Result<Vec<_>, _>>()?;
                    if lk == rk {
                        out.push((lr.concat(rr), ld * rd));
                    }
                }
            }
            out
        }
        Plan::Reduce {
            input,
            group_key,
            aggregates,
        } => {
            let mut groups: BTreeMap<Row, Vec<(Row, i64)>> = BTreeMap::new();
            for (r, d) in try_eval(input, cat)? {
                let k = group_key
                    .iter()
                    .map(|e| e.eval(&r.datums()))
                    .collect::<Result<Vec<_>, _>>()?;
                groups.entry(Row::new(k)).or_default().push((r, d));
            }
            let mut out = Vec::new();
            for (k, rows) in groups {
                let mut datums = k.into_datums();
                for a in aggregates {
                    let mut vals: BTreeMap<Datum, i64> = BTreeMap::new();
                    for (r, d) in &rows {
                        *vals.entry(a.expr.eval(&r.datums())?).or_insert(0) += d;
                    }
                    datums.push(a.func.eval(vals.iter().map(|(v, d)| (v, *d)), a.distinct)?);
                }
                out.push((Row::new(datums), 1));
            }
            out
        }
        Plan::Recursive {
            id,
            base,
            step,
            distinct,
        } => {
            // PostgreSQL's own algorithm: iterate the step over the rows the last round added.
            let base = try_eval(base, cat)?;
            let mut result: BTreeMap<Row, i64> = BTreeMap::new();
            let mut working = Vec::new();
            for (r, d) in base {
                if !*distinct || !result.contains_key(&r) {
                    let n = if *distinct { 1 } else { d };
                    *result.entry(r.clone()).or_insert(0) += n;
                    working.push((r, n));
                }
            }
            for _round in 0..10_000 {
                if working.is_empty() {
                    break;
                }
                RECURSIVE.with(|m| m.borrow_mut().insert(*id, std::mem::take(&mut working)));
                for (r, d) in try_eval(step, cat)? {
                    if !*distinct || !result.contains_key(&r) {
                        let n = if *distinct { 1 } else { d };
                        *result.entry(r.clone()).or_insert(0) += n;
                        working.push((r, n));
                    }
                }
            }
            assert!(working.is_empty(), "recursion did not end in 10000 rounds");
            result.into_iter().collect()
        }
        Plan::RecursiveGet { id } => {
            RECURSIVE.with(|m| m.borrow().get(id).cloned().expect("inside its step"))
        }
        Plan::Let { id, value, body } => {
            let value = try_eval(value, cat)?;
            LOCALS.with(|m| m.borrow_mut().insert(*id, value));
            let body = try_eval(body, cat);
            LOCALS.with(|m| m.borrow_mut().remove(id));
            body?
        }
        Plan::LocalGet { id } => {
            LOCALS.with(|m| m.borrow().get(id).cloned().expect("inside its Let"))
        }
        Plan::Distinct { input } => try_eval(input, cat)?
            .into_iter()
            .filter(|(_, d)| *d > 0)
            .map(|(r, _)| (r, 1))
            .collect(),
        Plan::Union { inputs } => {
            let mut out = Vec::new();
            for i in inputs {
                out.extend(try_eval(i, cat)?);
            }
            out
        }
        Plan::Negate { input } => try_eval(input, cat)?
            .into_iter()
            .map(|(r, d)| (r, -d))
            .collect(),
        Plan::IndexedGet { id, .. } => try_eval(&Plan::Get { id: *id }, cat)?,
        Plan::Threshold { input } => try_eval(input, cat)?
            .into_iter()
            .filter(|(_, d)| *d > 0)
            .collect(),
        Plan::FlatMap {
            input,
            func,
            exprs,
            ordinality,
        } => {
            let mut out = Vec::new();
            for (r, d) in try_eval(input, cat)? {
                let args = exprs
                    .iter()
                    .map(|e| e.eval(&r.datums()))
                    .collect::<Result<Vec<_>, _>>()?;
                for (i, v) in func.eval(&args)?.into_iter().enumerate() {
                    let mut datums = r.datums().to_vec();
                    func.append(v, &mut datums)?;
                    if *ordinality {
                        datums.push(Datum::Int64(i as i64 + 1));
                    }
                    out.push((Row::new(datums), d));
                }
            }
            out
        }
        Plan::Window {
            input,
            partition_by,
            order_by,
            funcs,
        } => {
            let mut groups: BTreeMap<Row, BTreeMap<Row, i64>> = BTreeMap::new();
            for (r, d) in try_eval(input, cat)? {
                *groups
                    .entry(r.project(partition_by))
                    .or_default()
                    .entry(r)
                    .or_insert(0) += d;
            }
            let mut out = Vec::new();
            for rows in groups.into_values() {
                let rows = kpg_types::window::evaluate(rows, order_by, funcs)?;
                out.extend(rows.into_iter().map(|r| (r, 1)));
            }
            out
        }
        Plan::TopK {
            input,
            group_key,
            order_by,
            limit,
            offset,
            ..
        } => {
            let mut groups: BTreeMap<Row, BTreeMap<Row, i64>> = BTreeMap::new();
            for (r, d) in try_eval(input, cat)? {
                *groups
                    .entry(r.project(group_key))
                    .or_default()
                    .entry(r)
                    .or_insert(0) += d;
            }
            let mut out = Vec::new();
            for rows in groups.values() {
                let kept = kpg_types::plan::top_k(
                    rows.iter().map(|(r, d)| (r, *d)),
                    order_by,
                    *limit,
                    *offset,
                );
                out.extend(kept.into_iter().map(|(r, d)| (r.clone(), d)));
            }
            out
        }
    })
}

/// Runs a SELECT over the mock data and returns its visible rows, with multiplicities
/// expanded, in finishing order (or sorted, without ORDER BY). A SELECT that reads one table
/// row by row without ORDER BY is ordered by the rows' positions: their order in the mock
/// data.
pub fn query(sql: &str) -> Vec<Vec<Datum>> {
    let cat = catalog();
    let stmts = parse(sql).unwrap();
    let planned = plan(&stmts[0], &cat).unwrap_or_else(|e| panic!("{sql}: {e:?}"));
    let PlannedStatement::Select {
        plan,
        finishing,
        desc,
    } = planned
    else {
        panic!("not a select")
    };
    let mut rows: Vec<Row> = Vec::new();
    for (r, d) in eval(&plan, &cat) {
        assert!(d > 0, "negative multiplicity for {r} in {sql}");
        for _ in 0..d {
            rows.push(r.clone());
        }
    }
    rows.sort_by(|a, b| {
        for o in &finishing.order_by {
            let (x, y) = (a.get(o.column), b.get(o.column));
            let ord = match (x.is_null(), y.is_null()) {
                (true, true) => std::cmp::Ordering::Equal,
                (true, false) => {
                    if o.nulls_last {
                        std::cmp::Ordering::Greater
                    } else {
                        std::cmp::Ordering::Less
                    }
                }
                (false, true) => {
                    if o.nulls_last {
                        std::cmp::Ordering::Less
                    } else {
                        std::cmp::Ordering::Greater
                    }
                }
                (false, false) => {
                    if o.desc {
                        y.cmp(&x)
                    } else {
                        x.cmp(&y)
                    }
                }
            };
            if ord != std::cmp::Ordering::Equal {
                return ord;
            }
        }
        std::cmp::Ordering::Equal
    });
    let out: Vec<Vec<Datum>> = rows
        .into_iter()
        .skip(finishing.offset)
        .take(finishing.limit.unwrap_or(usize::MAX))
        .map(|r| r.project(&finishing.project).into_datums())
        .collect();
    for r in &out {
        assert_eq!(r.len(), desc.arity());
    }
    out
}

/// The output column names and types of a SELECT.
pub fn describe(sql: &str) -> Vec<(String, ColumnType)> {
    match plan_one(sql).unwrap() {
        PlannedStatement::Select { desc, .. } => desc.columns,
        other => panic!("{other:?}"),
    }
}
