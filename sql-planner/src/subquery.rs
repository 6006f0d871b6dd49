//! Subqueries in expressions — scalar `(SELECT ...)`, `EXISTS`, `IN`, `op ANY/ALL` — planned
//! by decorrelation into joins and reductions, never by re-running a query per row.
//!
//! An expression that may hold subqueries is bound against a `Host`: the relation its row
//! comes from (the FROM/WHERE plan, or a grouped query's reduction). Each subquery becomes a
//! relation `R` with one row per *domain* value, joined to the host; the expression reads the
//! joined column. The domain of a subquery is the distinct values of the outer columns it
//! references (`D = Distinct(Project(host, U))`), found by name resolution: the subquery is
//! planned once with the host columns its text names in scope one level out, and only those a
//! reference resolved to are kept (a name its own FROM items have is its own, so
//! `l_orderkey IN (SELECT l_orderkey FROM lineitem)` over lineitem is uncorrelated). The
//! subquery is then planned again with `D` as the first relation of its FROM and D's columns
//! in its scope at level 1 (`Scope`), so its WHERE, GROUP BY (the domain columns are implicit
//! keys) and nested subqueries (which see them at level 2) compute everything per domain
//! value; its output is the domain columns followed by its own.
//!
//! A subquery in a CASE branch is computed only for the outer values of the host rows that
//! take the branch (`ExprContext::guard`: its WHEN, and every earlier WHEN not TRUE), so an
//! error inside it for other rows is never raised, as in PostgreSQL, which evaluates the
//! branch only when taken; its relation is still made total over all the host's values.
//!
//! `R` is made *total* over the domain — values missing from the subquery's output get their
//! defaults: NULL for a scalar subquery, FALSE for EXISTS — so the host needs one inner join per
//! subquery. Domain columns are compared NULL-safely (a NULL outer value is a domain value like
//! any other) by keying each on `(x IS NULL, coalesce(x, false))`, since `Plan::Join` never
//! matches NULL keys.
//!
//! The host's plan is only known after the expressions are bound (a grouped query's
//! aggregates are collected while binding), so the domain is a placeholder `Get` until
//! `Host::finish` substitutes it, and subquery columns are numbered from `SUBQUERY_COLUMNS`
//! until `finish` says where they land. The host plan is copied into every domain: the plan
//! language has no way to share a subplan, which a `Let` node in the runtime would fix.

use crate::aggregate::contains_own_aggregate;
use crate::aggregate::Grouping;
use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::join::filter;
use crate::names::fold;
use crate::ops;
use crate::query::{plan_subquery, Outer, QueryContext};
use crate::scope::{Scope, ScopeItem, UseMark};
use crate::types::Typed;
use kpg_types::{
    AggregateExpr, AggregateFunc, BinaryFunc, BoundSubquery, Datum, GlobalId, Plan, ScalarExpr,
    ScalarType, SubqueryKind, UnaryFunc, VariadicFunc, OUTER_ROW,
};
use sqlparser::ast::{BinaryOperator, Expr, GroupByExpr, Query, SelectItem, SetExpr};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

mod kinds;
pub use kinds::{exists, in_subquery, quantified, scalar};

/// Subquery value columns are numbered from here until `Host::finish` places them.
pub const SUBQUERY_COLUMNS: usize = 1 << 24;

/// Ids of domain placeholders: far above any catalog id.
static NEXT_PLACEHOLDER: AtomicU64 = AtomicU64::new(u64::MAX / 2);

/// The relation that the expressions of one clause (or one query level) are evaluated over,
/// collecting the subqueries they contain.
pub struct Host<'a> {
    cx: &'a QueryContext<'a>,
    /// For a grouped query: how the FROM scope's columns map to the reduction's.
    grouping: Option<&'a Grouping>,
    state: RefCell<HostState>,
}

#[derive(Default)]
struct HostState {
    /// Placeholder id → the expressions over the host whose distinct values it stands for.
    domains: Vec<(GlobalId, Domain)>,
    joins: Vec<SubqueryJoin>,
    /// Subquery value columns allocated so far.
    columns: usize,
}

/// The distinct values of `exprs` over the host's rows, or only over those where `guard` is
/// TRUE.
#[derive(Clone)]
struct Domain {
    exprs: Vec<ScalarExpr>,
    guard: Option<ScalarExpr>,
}

/// A relation keyed by its first `keys.len()` columns (unique, total over the host's values
/// of `keys`), whose next `values` columns are joined to the host.
struct SubqueryJoin {
    keys: Vec<ScalarExpr>,
    rel: Plan,
    values: usize,
}

impl<'a> Host<'a> {
    pub fn new(cx: &'a QueryContext<'a>, grouping: Option<&'a Grouping>) -> Self {
        Host {
            cx,
            grouping,
            state: RefCell::new(HostState::default()),
        }
    }

    /// A new host over the same query, without grouping: subqueries bound against it leave
    /// this host unchanged (for binding an expression only to learn what it reads).
    pub fn probe(&self) -> Host<'a> {
        Host::new(self.cx, None)
    }

    /// The catalog the host query is planned against.
    pub fn catalog(&self) -> &'a dyn crate::catalog::Catalog {
        self.cx.catalog
    }

    /// A placeholder for the distinct values of `exprs` over the host.
    fn domain(&self, exprs: Vec<ScalarExpr>) -> Plan {
        self.guarded_domain(exprs, None)
    }

    /// A placeholder for the distinct values of `exprs` over the host's rows where `guard`
    /// (when given) is TRUE.
    fn guarded_domain(&self, exprs: Vec<ScalarExpr>, guard: Option<ScalarExpr>) -> Plan {
        let id = NEXT_PLACEHOLDER.fetch_add(1, Ordering::Relaxed);
        self.state
            .borrow_mut()
            .domains
            .push((id, Domain { exprs, guard }));
        Plan::Get { id }
    }

    /// Joins `rel` (keyed by its first `keys.len()` columns, one row per host key value) to
    /// the host; returns the expressions reading its `values` columns.
    fn join(&self, keys: Vec<ScalarExpr>, rel: Plan, values: usize) -> Vec<ScalarExpr> {
        let mut st = self.state.borrow_mut();
        let first = SUBQUERY_COLUMNS + st.columns;
        st.columns += values;
        st.joins.push(SubqueryJoin { keys, rel, values });
        (first..first + values).map(ScalarExpr::Column).collect()
    }

    /// Joins the subqueries' relations to `base` (of arity `arity`). Returns the plan, whose
    /// columns are `base`'s followed by the subquery values, and its arity; expressions bound
    /// against this host must be passed through `place` to read that plan.
    pub fn finish(&self, base: Plan, arity: usize) -> (Plan, usize) {
        let st = self.state.take();
        let mut acc = base.clone();
        let mut acc_arity = arity;
        for j in st.joins {
            let rel = substitute(j.rel, &st.domains, &base, arity);
            let nk = j.keys.len();
            let left_key = null_safe(
                j.keys
                    .into_iter()
                    .map(|mut k| {
                        place(&mut k, arity);
                        k
                    })
                    .collect(),
            );
            let right_key = null_safe((0..nk).map(ScalarExpr::Column).collect());
            let joined = Plan::Join {
                left: Box::new(acc),
                right: Box::new(rel),
                left_key,
                right_key,
            };
            let outputs = (0..acc_arity)
                .chain(acc_arity + nk..acc_arity + nk + j.values)
                .collect();
            acc = Plan::Project {
                input: Box::new(joined),
                outputs,
            };
            acc_arity += j.values;
        }
        (acc, acc_arity)
    }

    /// The host column holding scope column `c`, if the host has it (a grouped query has only
    /// its grouping keys).
    fn host_column(&self, c: usize) -> Option<ScalarExpr> {
        match self.grouping {
            None => Some(ScalarExpr::Column(c)),
            Some(g) => g.key_column(&ScalarExpr::Column(c)).map(|t| t.expr),
        }
    }
}

/// Moves subquery columns (numbered from `SUBQUERY_COLUMNS`) to follow a host of `arity`.
pub fn place(e: &mut ScalarExpr, arity: usize) {
    e.map_columns(&|c| {
        if c >= SUBQUERY_COLUMNS {
            arity + (c - SUBQUERY_COLUMNS)
        } else {
            c
        }
    });
}

/// Whether `e` reads a subquery column not yet placed.
pub fn reads_subquery(e: &ScalarExpr) -> bool {
    e.support().iter().any(|&c| c >= SUBQUERY_COLUMNS)
}

/// Replaces domain placeholders by the distinct values of their expressions over `base`.
fn substitute(p: Plan, domains: &[(GlobalId, Domain)], base: &Plan, arity: usize) -> Plan {
    match p {
        Plan::Get { id } => match domains.iter().find(|(d, _)| *d == id) {
            Some((_, d)) => Plan::Distinct {
                input: Box::new(crate::query::project_exprs(
                    filter(base.clone(), d.guard.iter().cloned().collect()),
                    arity,
                    d.exprs.clone(),
                )),
            },
            None => Plan::Get { id },
        },
        other => other.map_inputs(|i| substitute(i, domains, base, arity)),
    }
}

/// Join keys that match NULL with NULL: `(x IS NULL, coalesce(x, false))` for each `x`.
pub fn null_safe(keys: Vec<ScalarExpr>) -> Vec<ScalarExpr> {
    keys.into_iter()
        .flat_map(|k| {
            [
                k.clone().call_unary(UnaryFunc::IsNull),
                ScalarExpr::Variadic {
                    func: VariadicFunc::Coalesce,
                    exprs: vec![k, ScalarExpr::Literal(Datum::Bool(false))],
                },
            ]
        })
        .collect()
}

fn columns(range: std::ops::Range<usize>) -> Vec<ScalarExpr> {
    range.map(ScalarExpr::Column).collect()
}

/// `rel` (keyed by its first `k` columns, unique) extended with a row of `defaults` for every
/// key of `domain` (distinct, a superset of `rel`'s keys) that `rel` lacks.
fn totalize(rel: Plan, k: usize, domain: Plan, defaults: Vec<Datum>) -> Plan {
    let missing = Plan::Union {
        inputs: vec![
            domain,
            Plan::Negate {
                input: Box::new(Plan::Project {
                    input: Box::new(rel.clone()),
                    outputs: (0..k).collect(),
                }),
            },
        ],
    };
    Plan::Union {
        inputs: vec![
            rel,
            Plan::Map {
                input: Box::new(missing),
                exprs: defaults.into_iter().map(ScalarExpr::Literal).collect(),
            },
        ],
    }
}

/// A subquery planned for a host: `plan` yields the domain columns, then `outputs`.
struct Planned {
    plan: Plan,
    /// Number of domain columns.
    nd: usize,
    outputs: Scope,
    /// The host expressions the domain columns stand for.
    keys: Vec<ScalarExpr>,
    /// The domain the subquery is computed for: the distinct values of `keys` over the
    /// host's rows (only those that evaluate it, under a CASE branch's guard).
    domain: Plan,
    /// The distinct values of `keys` over all the host's rows, which the subquery's relation
    /// must cover (a row that does not evaluate it still joins it, and never reads it).
    full_domain: Plan,
}

fn host<'a>(cx: &ExprContext<'a>) -> Result<&'a Host<'a>, PlanError> {
    cx.host
        .ok_or_else(|| PlanError::subqueries_not_allowed(cx.clause))
}

/// The host scope's columns whose name appears in the subquery's text as a word: a cheap
/// over-approximation of its outer references, narrowed by `outer_references`.
fn named_in_text(q: &Query, scope: &Scope) -> Vec<usize> {
    let text = q.to_string();
    let tokens = Tokenizer::new(&PostgreSqlDialect {}, &text)
        .tokenize()
        .unwrap_or_default();
    let words: Vec<String> = tokens
        .iter()
        .filter_map(|t| match t {
            Token::Word(w) => Some(fold(&sqlparser::ast::Ident {
                value: w.value.clone(),
                quote_style: w.quote_style,
                span: sqlparser::tokenizer::Span::empty(),
            })),
            _ => None,
        })
        .collect();
    (0..scope.len())
        .filter(|&i| {
            let name = &scope.items[i].name;
            words.contains(name)
                || name
                    .strip_prefix(crate::aggregate::OUTER_AGGREGATE)
                    .is_some_and(|call| text.contains(call))
        })
        .collect()
}

/// The host columns the subquery references, by name resolution: the subquery is planned
/// once with every candidate column in its scope one level out, and a candidate counts only
/// if some reference resolved to it (a name its own FROM items have resolves there first, as
/// in PostgreSQL). The candidates' marks are also set in the host scope, so that an enclosing
/// subquery learns which of its own outer columns are needed further in.
fn outer_references(
    cx: &ExprContext<'_>,
    host: &Host<'_>,
    q: &Query,
) -> Result<Vec<usize>, PlanError> {
    // In a grouped query every column is a candidate, but only grouping keys (and the
    // aggregates subqueries take from it) can be read: an ungrouped column only inside an
    // aggregate of this query, which `aggregate::outer_aggregate` turns into a column.
    let candidates: Vec<usize> = named_in_text(q, cx.scope);
    if candidates.is_empty() {
        return Ok(candidates);
    }
    let items = candidates
        .iter()
        .map(|&c| {
            let item = &cx.scope.items[c];
            ScopeItem {
                level: item.level + 1,
                ..item.clone()
            }
        })
        .collect();
    let placeholder = Plan::Get {
        id: NEXT_PLACEHOLDER.fetch_add(1, Ordering::Relaxed),
    };
    let read = reads_of(host.cx, placeholder, items, q)?;
    let used: Vec<usize> = candidates
        .into_iter()
        .zip(read)
        .filter(|(_, read)| *read)
        .map(|(c, _)| c)
        .collect();
    for &c in &used {
        if host.host_column(c).is_none() {
            return Err(PlanError::grouping(format!(
                "subquery uses ungrouped column \"{}\" from outer query",
                cx.scope.qualified_name(c)
            )));
        }
        cx.scope.items[c].used.set();
    }
    Ok(used)
}

/// Which of `items` the query `q` reads when planned with them as its outer scope (over
/// `plan`): `q` is planned once, each item's uses tracked.
pub fn reads_of(
    cx: &QueryContext<'_>,
    plan: Plan,
    items: Vec<ScopeItem>,
    q: &Query,
) -> Result<Vec<bool>, PlanError> {
    let marks: Vec<UseMark> = items.iter().map(|_| UseMark::tracked()).collect();
    let items = items
        .into_iter()
        .zip(&marks)
        .map(|(item, mark)| ScopeItem {
            used: mark.clone(),
            ..item
        })
        .collect();
    let probe = QueryContext {
        catalog: cx.catalog,
        ctes: cx.ctes.clone(),
        raw: cx.raw,
        outer: Some(Outer {
            plan,
            scope: Scope { items },
        }),
    };
    plan_subquery(&probe, q)?;
    Ok(marks.iter().map(UseMark::is_set).collect())
}

/// The number of columns the subquery returns (planned for the host, the plan dropped).
pub fn output_width(cx: &ExprContext<'_>, q: &Query) -> Result<usize, PlanError> {
    Ok(plan_for_host(cx, q)?.outputs.len())
}

fn plan_for_host(cx: &ExprContext<'_>, q: &Query) -> Result<Planned, PlanError> {
    let host = host(cx)?;
    let mut keys = Vec::new();
    let mut items = Vec::new();
    for c in outer_references(cx, host, q)? {
        keys.push(host.host_column(c).expect("candidates are host columns"));
        let item = &cx.scope.items[c];
        items.push(ScopeItem {
            level: item.level + 1,
            ..item.clone()
        });
    }
    if !host.cx.raw {
        add_texts(&mut keys, &mut items);
    }
    // Bound raw, the subquery reads the one outer row it is evaluated for. Under a guard it
    // is computed for the rows that evaluate it (a guard reading another subquery's value
    // cannot filter the host's rows before the joins, so it is not used).
    let guard = cx.guard.filter(|g| !reads_subquery(g)).cloned();
    let (domain, full_domain) = if host.cx.raw {
        (Plan::Get { id: OUTER_ROW }, Plan::Get { id: OUTER_ROW })
    } else {
        let full = host.domain(keys.clone());
        match guard.clone() {
            Some(g) => (host.guarded_domain(keys.clone(), Some(g)), full),
            None => (full.clone(), full),
        }
    };
    let nd = keys.len();
    // Uncorrelated and unguarded, it is computed once; under a guard it is computed for the
    // guard's (empty or one-row) domain, so not at all when no row takes the branch.
    let (plan, scope) = if nd == 0 && (guard.is_none() || host.cx.raw) {
        plan_subquery(&host.cx.uncorrelated(), q)?
    } else {
        let inner = QueryContext {
            catalog: host.cx.catalog,
            ctes: host.cx.ctes.clone(),
            raw: host.cx.raw,
            outer: Some(Outer {
                plan: domain.clone(),
                scope: Scope { items },
            }),
        };
        plan_subquery(&inner, q)?
    };
    let outputs = Scope {
        items: scope.items[nd..].to_vec(),
    };
    Ok(Planned {
        plan,
        nd,
        outputs,
        keys,
        domain,
        full_domain,
    })
}

/// For each outer value whose text may differ between SQL-equal values
/// (`ScalarType::equal_values_differ_in_text`), its text as a further domain column that no name
/// reaches. The domain is distinct by SQL equality (see `kpg_types::datum`), so without it the
/// subquery would run once for `3` and `3.00` and show one text to both rows, where PostgreSQL
/// runs it per row (`SELECT (SELECT o.x)` keeps each row's own text).
pub(crate) fn add_texts(keys: &mut Vec<ScalarExpr>, items: &mut Vec<ScopeItem>) {
    for i in 0..keys.len() {
        let ty = &items[i].ty;
        if ty.scalar.equal_values_differ_in_text() {
            keys.push(
                keys[i]
                    .clone()
                    .call_unary(UnaryFunc::Cast(ScalarType::Text)),
            );
            items.push(ScopeItem {
                table: None,
                // Not a name SQL can write (identifiers never hold NUL).
                name: "\0text".into(),
                ty: kpg_types::ColumnType::new(ScalarType::Text, ty.nullable),
                level: items[i].level,
                used: UseMark::default(),
            });
        }
    }
}

/// A subquery left nested in its expression, as bound (`QueryContext::raw`).
fn raw(kind: SubqueryKind, p: Planned) -> ScalarExpr {
    ScalarExpr::Subquery(Box::new(BoundSubquery {
        kind,
        outer: p.keys,
        plan: p.plan,
    }))
}

/// Applies `predicates` that may read subquery columns to the host's finished plan and keeps
/// only the base columns.
pub fn filter_host(
    plan: Plan,
    arity: usize,
    base_arity: usize,
    predicates: Vec<ScalarExpr>,
) -> Plan {
    let plan = filter(plan, predicates);
    if arity == base_arity {
        plan
    } else {
        Plan::Project {
            input: Box::new(plan),
            outputs: (0..base_arity).collect(),
        }
    }
}
