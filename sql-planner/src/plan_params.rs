//! Plan parameters: `$n` of a prepared statement planned once, with its values bound later.
//!
//! While a statement is planned for Parse (`plan_prepared`), each `$n` binds to
//! `ScalarExpr::Param(n)`. A parameter whose type the client declared has that type; any other
//! is of unknown type, like an untyped string literal, until the first context that coerces it
//! (`types::coerce`) fixes its type in the statement's parameter table: later references to the
//! same `$n` have that type, so `$1 = int_col AND $1 = text_col` fails as in PostgreSQL. What
//! nothing constrains resolves to text. The table lives in a thread-local for the duration of
//! one statement's planning (which runs on one thread), as the session's zone does
//! (`session_zone.rs`): the binder reaches parameters in `expr::literal`, far from any context.
//!
//! Bind (`bind_values`) turns each value's text into the expression an unknown literal of that
//! text coerced to the parameter's type would be (the same input rules and errors as a literal,
//! including timestamptz read in the session's zone), substitutes it for every `Param` of the
//! planned statement, and folds the constants that makes. Outside `plan_prepared`, a `$n` is
//! 42P02 ("there is no parameter $n"), as PostgreSQL says for statements that take none.
//!
//! What a plan holds of its values outside its expressions is computed when they are bound:
//! a subquery's LIMIT and OFFSET (`Plan::TopK`'s counts, `bind_counts`). What a prepared
//! INSERT's VALUES read of the clock is kept and evaluated as it runs (`values_now`); a
//! date/time unit or an OID type's name given by a parameter is read as the function runs. A
//! literal that reads the clock (`'now'`, `'today'`) keeps the time of Parse, as in a
//! PostgreSQL prepared statement; a window frame's offset is computed with the window's
//! arguments. So every statement that plans at Parse is planned once (again only after DDL).
//! One that fails to plan at Parse with another error than PostgreSQL's Parse-time ones (a
//! feature kpg has not) is planned for each execution with its values (`plan_bound`), and so
//! is a portal whose catalog changed since Bind: each `$n` then binds to its value as a literal
//! would, an unknown-typed string (or NULL), cast to the type it was given where it has one.
//! The statement's syntax is planned as it was parsed; its text is never rewritten.

use std::cell::RefCell;

use kpg_types::{Datum, Plan, ScalarExpr, ScalarType};

use crate::error::PlanError;
use crate::fold;
use crate::statement::{ParsedStatement, PlannedStatement};
use crate::types::{coerce, CastContext, Typed};
use crate::Catalog;
use crate::{ConflictAction, OnConflict, ParamValue, Returning};

thread_local! {
    /// The type of each parameter of the statement being planned (`None`: not fixed yet), or
    /// `None` outside `plan_prepared`.
    static TABLE: RefCell<Option<Vec<Option<ScalarType>>>> = const { RefCell::new(None) };
    /// The values of the statement being planned by `plan_bound`, or `None`.
    static VALUES: RefCell<Option<Vec<ParamValue>>> = const { RefCell::new(None) };
}

/// What planning a statement with its parameters as `Param` expressions made of it.
#[derive(Debug)]
pub struct Prepared {
    /// The plan, with `Param` expressions, or why there is none.
    pub planned: Result<PlannedStatement, PlanError>,
    /// Every parameter's type: as declared, or fixed by its first use while planning (so far
    /// as planning went, if it failed); `None` where nothing fixed it (PostgreSQL then says
    /// text).
    pub types: Vec<Option<ScalarType>>,
}

/// Plans `stmt` with its parameters as `Param` expressions; `declared` holds the types the
/// client declared (`None` for unspecified).
pub fn plan_prepared(
    stmt: &ParsedStatement,
    catalog: &dyn Catalog,
    declared: &[Option<ScalarType>],
) -> Prepared {
    let table = declared
        .iter()
        .map(|t| t.map(|t| t.without_modifiers()))
        .collect();
    let previous = TABLE.with(|t| t.replace(Some(table)));
    // The table is put back even if planning panics (the caller catches panics).
    let planned =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| crate::plan(stmt, catalog)));
    let table = TABLE.with(|t| t.replace(previous)).unwrap_or_default();
    let planned = planned.unwrap_or_else(|p| std::panic::resume_unwind(p));
    Prepared {
        planned,
        types: table,
    }
}

/// Whether `plan_prepared` is planning a statement (its plan is kept for many executions).
pub fn preparing() -> bool {
    TABLE.with(|t| t.borrow().is_some())
}

/// Plans `stmt` with `values` bound to its parameters as literals (see the module's note).
pub fn plan_bound(
    stmt: &ParsedStatement,
    catalog: &dyn Catalog,
    values: &[ParamValue],
) -> Result<PlannedStatement, PlanError> {
    let previous = VALUES.with(|v| v.replace(Some(values.to_vec())));
    let planned =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| crate::plan(stmt, catalog)));
    VALUES.with(|v| *v.borrow_mut() = previous);
    planned.unwrap_or_else(|p| std::panic::resume_unwind(p))
}

/// The expression a bound value stands for: an unknown-typed string or NULL, as a literal of
/// its text, cast to the type it was given.
fn value_literal(value: &ParamValue) -> Result<Typed, PlanError> {
    let unknown = Typed {
        nullable: value.text.is_none(),
        expr: ScalarExpr::Literal(match &value.text {
            Some(text) => Datum::String(text.clone()),
            None => Datum::Null,
        }),
        ty: None,
    };
    match &value.declared {
        None => Ok(unknown),
        Some(ty) => Ok(coerce(unknown, ty, CastContext::Explicit)?
            .expect("an unknown literal converts to any type")),
    }
}

fn no_parameter(p: &str) -> PlanError {
    PlanError::new("42P02", format!("there is no parameter {p}"))
}

/// The expression a `$n` placeholder binds to.
pub fn reference(p: &str) -> Result<Typed, PlanError> {
    let n = p
        .strip_prefix('$')
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|n| *n >= 1)
        .ok_or_else(|| no_parameter(p))?;
    let bound = VALUES.with(|v| v.borrow().as_ref().map(|values| values.get(n - 1).cloned()));
    if let Some(value) = bound {
        return value_literal(&value.ok_or_else(|| no_parameter(p))?);
    }
    let ty = TABLE.with(|t| {
        let mut t = t.borrow_mut();
        let table = t.as_mut().ok_or_else(|| no_parameter(p))?;
        if table.len() < n {
            table.resize(n, None);
        }
        Ok::<_, PlanError>(table[n - 1])
    })?;
    Ok(Typed {
        expr: ScalarExpr::Param(n),
        ty,
        nullable: true,
    })
}

/// Fixes the type of parameter `n`, still unknown, as the type `to` a context coerces it to;
/// returns the parameter typed as it now is (a parameter fixed earlier keeps its type).
pub fn fix(n: usize, to: &ScalarType) -> Typed {
    let ty = TABLE.with(|t| {
        let mut t = t.borrow_mut();
        let slot = t
            .as_mut()
            .and_then(|table| table.get_mut(n - 1))
            .expect("a parameter is referenced before it is coerced");
        *slot.get_or_insert(to.without_modifiers())
    });
    Typed::new(ScalarExpr::Param(n), ty, true)
}

/// The planned statement with `values` (each parameter's text, `None` for NULL) bound in
/// place of its parameters, whose types are `types`. `zone` is the session's zone, in which a
/// timestamptz value is read.
pub fn bind_values(
    planned: &PlannedStatement,
    types: &[ScalarType],
    values: &[Option<String>],
    zone: String,
) -> Result<PlannedStatement, PlanError> {
    // A cursor's values are its query's.
    if let PlannedStatement::Declare {
        name,
        options,
        target,
        plan,
    } = planned
    {
        let plan = match plan {
            Ok(query) => Ok(Box::new(bind_values(query, types, values, zone)?)),
            Err(e) => Err(e.clone()),
        };
        return Ok(PlannedStatement::Declare {
            name: name.clone(),
            options: *options,
            target: target.clone(),
            plan,
        });
    }
    crate::session_zone::with_zone(zone, None, || {
        let mut exprs = Vec::with_capacity(values.len());
        for (value, ty) in values.iter().zip(types) {
            let literal = match value {
                Some(text) => Datum::String(text.clone()),
                None => Datum::Null,
            };
            let unknown = Typed {
                nullable: literal.is_null(),
                expr: ScalarExpr::Literal(literal),
                ty: None,
            };
            let typed = coerce(unknown, ty, CastContext::Explicit)?
                .expect("an unknown literal converts to any type");
            exprs.push(typed.expr);
        }
        let mut bound = planned.clone();
        let mut failed = None;
        bound.visit_exprs_mut(&mut |e| {
            if failed.is_none() {
                if let Err(err) = substitute(e, &exprs) {
                    failed = Some(err);
                }
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        if let PlannedStatement::Select { finishing, .. }
        | PlannedStatement::CreateTableAs { finishing, .. } = &mut bound
        {
            if let Some(counts) = finishing.counts.take() {
                let [mut limit, mut offset] = *counts;
                for e in limit.iter_mut().chain(offset.iter_mut()) {
                    substitute(e, &exprs)?;
                }
                (finishing.limit, finishing.offset) = crate::query::count_values(limit, offset)?;
            }
        }
        // A subquery's LIMIT and OFFSET, in the dataflow.
        let mut failed = None;
        bound.visit_plans_mut(&mut |p| {
            let taken = std::mem::replace(p, Plan::Constant { rows: Vec::new() });
            *p = bind_counts(taken, &mut failed);
        });
        if let Some(e) = failed {
            return Err(e);
        }
        // VALUES rows and SELECTs without FROM become constant rows again.
        if let PlannedStatement::Select { plan, .. } | PlannedStatement::Insert { plan, .. } =
            &mut bound
        {
            let taken = std::mem::replace(plan, Plan::Constant { rows: Vec::new() });
            *plan = fold_rows(taken)?;
        }
        Ok(bound)
    })
}

/// `plan` with the LIMIT and OFFSET of each top-k computed from its counts' expressions, whose
/// parameters are bound (the first error is kept in `failed`).
fn bind_counts(mut plan: Plan, failed: &mut Option<PlanError>) -> Plan {
    if let Plan::TopK {
        limit,
        offset,
        counts,
        ..
    } = &mut plan
    {
        if let Some(counts) = counts.take() {
            let [l, o] = *counts;
            match crate::query::count_values(l, o) {
                Ok(values) => (*limit, *offset) = values,
                Err(e) => {
                    failed.get_or_insert(e);
                }
            }
        }
    }
    plan.map_inputs(|input| bind_counts(input, failed))
}

/// Replaces every `Param` of `e` with its value, folding the nodes above it.
fn substitute(e: &mut ScalarExpr, values: &[ScalarExpr]) -> Result<(), PlanError> {
    if !has_param(e) {
        return Ok(());
    }
    let taken = std::mem::replace(e, ScalarExpr::Literal(Datum::Null));
    *e = rebuild(taken, values)?;
    Ok(())
}

/// Whether `e` reads a parameter.
pub fn has_param(e: &ScalarExpr) -> bool {
    let mut found = false;
    e.visit(&mut |e| found |= matches!(e, ScalarExpr::Param(_)));
    found
}

/// `e` with its parameters replaced, each node folded once its children are (`fold::node`).
fn rebuild(e: ScalarExpr, values: &[ScalarExpr]) -> Result<ScalarExpr, PlanError> {
    if !has_param(&e) {
        return Ok(e);
    }
    let e = match e {
        ScalarExpr::Param(n) => {
            return values
                .get(n - 1)
                .cloned()
                .ok_or_else(|| no_parameter(&format!("${n}")))
        }
        ScalarExpr::Unary { func, expr } => ScalarExpr::Unary {
            func,
            expr: Box::new(rebuild(*expr, values)?),
        },
        ScalarExpr::Binary { func, left, right } => ScalarExpr::Binary {
            func,
            left: Box::new(rebuild(*left, values)?),
            right: Box::new(rebuild(*right, values)?),
        },
        ScalarExpr::Variadic { func, exprs } => ScalarExpr::Variadic {
            func,
            exprs: exprs
                .into_iter()
                .map(|e| rebuild(e, values))
                .collect::<Result<_, _>>()?,
        },
        ScalarExpr::If { cond, then, els } => ScalarExpr::If {
            cond: Box::new(rebuild(*cond, values)?),
            then: Box::new(rebuild(*then, values)?),
            els: Box::new(rebuild(*els, values)?),
        },
        ScalarExpr::Subquery(mut s) => {
            for o in s.operands_mut() {
                substitute(o, values)?;
            }
            return Ok(ScalarExpr::Subquery(s));
        }
        other @ (ScalarExpr::Column(_) | ScalarExpr::Literal(_)) => return Ok(other),
    };
    fold::node(e)
}

impl PlannedStatement {
    /// Calls `f` on every expression of the statement: its plans' and its own (predicates,
    /// assignments, RETURNING, ON CONFLICT).
    pub fn visit_exprs_mut(&mut self, f: &mut dyn FnMut(&mut ScalarExpr)) {
        let plan = |p: &mut Plan, f: &mut dyn FnMut(&mut ScalarExpr)| p.visit_exprs_mut(f);
        match self {
            PlannedStatement::Select { plan: p, .. }
            | PlannedStatement::Subscribe { plan: p, .. }
            | PlannedStatement::CreateTableAs { plan: p, .. }
            | PlannedStatement::CreateView { plan: p, .. } => plan(p, f),
            PlannedStatement::Insert {
                plan: p,
                returning,
                on_conflict,
                ..
            } => {
                plan(p, f);
                returning_exprs(returning, f);
                if let Some(OnConflict {
                    action:
                        ConflictAction::Update {
                            assignments,
                            predicate,
                        },
                    ..
                }) = on_conflict
                {
                    assignments.iter_mut().chain(predicate).for_each(&mut *f);
                }
            }
            PlannedStatement::Update {
                predicates,
                assignments,
                returning,
                ..
            } => {
                predicates.iter_mut().for_each(&mut *f);
                assignments.iter_mut().for_each(&mut *f);
                returning_exprs(returning, f);
            }
            PlannedStatement::Delete {
                predicates,
                returning,
                ..
            } => {
                predicates.iter_mut().for_each(&mut *f);
                returning_exprs(returning, f);
            }
            PlannedStatement::JoinedWrite {
                plan: p, returning, ..
            } => {
                plan(p, f);
                returning_exprs(returning, f);
            }
            _ => {}
        }
    }
}

impl PlannedStatement {
    /// Calls `f` on every plan the statement runs: its own (or its cursor's or COPY's query's),
    /// then those of the subqueries in its expressions — an UPDATE's predicates, and also
    /// those inside its plans, so `f` may see a subquery's plan twice (alone, and within the
    /// plan it was given).
    pub fn visit_plans_mut(&mut self, f: &mut dyn FnMut(&mut Plan)) {
        match self {
            PlannedStatement::Declare {
                plan: Ok(query), ..
            } => return query.visit_plans_mut(f),
            PlannedStatement::CopyTo { query, .. } => return query.visit_plans_mut(f),
            PlannedStatement::Select { plan, .. }
            | PlannedStatement::Subscribe { plan, .. }
            | PlannedStatement::CreateTableAs { plan, .. }
            | PlannedStatement::CreateView { plan, .. }
            | PlannedStatement::Insert { plan, .. }
            | PlannedStatement::JoinedWrite { plan, .. } => f(plan),
            _ => {}
        }
        self.visit_exprs_mut(&mut |e| {
            e.visit_mut(&mut |e| {
                if let ScalarExpr::Subquery(s) = e {
                    f(&mut s.plan)
                }
            })
        });
    }
}

fn returning_exprs(r: &mut Option<Returning>, f: &mut dyn FnMut(&mut ScalarExpr)) {
    if let Some(r) = r {
        r.exprs.iter_mut().for_each(f);
    }
}

/// A VALUES row some of whose values (`exprs`, by column) read parameters or the clock: the
/// constant row `datums` with those columns computed once the parameters are bound
/// (`bind_values` folds it into a constant row again) and the statement runs (`values_now`).
pub fn values_row(datums: Vec<Datum>, exprs: Vec<(usize, ScalarExpr)>) -> Plan {
    let width = datums.len();
    let mut outputs: Vec<usize> = (0..width).collect();
    let mut computed = Vec::with_capacity(exprs.len());
    for (c, e) in exprs {
        outputs[c] = width + computed.len();
        computed.push(e);
    }
    Plan::Project {
        input: Box::new(Plan::Map {
            input: Box::new(Plan::Constant {
                rows: vec![(kpg_types::Row::new(datums), 1)],
            }),
            exprs: computed,
        }),
        outputs,
    }
}

/// Folds a plan of constant rows; for a prepared INSERT's VALUES (a union of rows in order,
/// `values_row`), into one `Constant` of them all.
fn fold_rows(p: Plan) -> Result<Plan, PlanError> {
    let Plan::Union { inputs } = p else {
        return fold::plan(p);
    };
    let inputs = inputs
        .into_iter()
        .map(fold::plan)
        .collect::<Result<Vec<_>, _>>()?;
    if inputs.iter().all(|p| matches!(p, Plan::Constant { .. })) {
        let rows = inputs
            .into_iter()
            .flat_map(|p| match p {
                Plan::Constant { rows } => rows,
                _ => Vec::new(),
            })
            .collect();
        return Ok(Plan::Constant { rows });
    }
    Ok(Plan::Union { inputs })
}

/// Evaluates what a prepared INSERT's VALUES rows left for the statement's run (`now()`, a
/// column's `DEFAULT now()`, `random()`: `values_row`), the statement's time and zone bound
/// into them, into constant rows: a transaction block holds back constant rows, and no
/// dataflow is needed to compute them.
pub fn values_now(planned: &mut PlannedStatement) -> Result<(), PlanError> {
    let PlannedStatement::Insert { plan, .. } = planned else {
        return Ok(());
    };
    let inputs = match &*plan {
        Plan::Constant { .. } => return Ok(()),
        Plan::Union { inputs } => inputs.iter().collect(),
        row => vec![row],
    };
    let mut rows = Vec::new();
    for input in inputs {
        match input {
            Plan::Constant { rows: constant } => rows.extend(constant.iter().cloned()),
            Plan::Project { input, outputs } => {
                let Plan::Map { input, exprs } = input.as_ref() else {
                    return Ok(());
                };
                let Plan::Constant { rows: constant } = input.as_ref() else {
                    return Ok(());
                };
                for (row, n) in constant {
                    let mut datums = row.datums();
                    for e in exprs {
                        datums.push(e.eval(&datums)?);
                    }
                    let row = outputs.iter().map(|&c| datums[c].clone()).collect();
                    rows.push((kpg_types::Row::new(row), *n));
                }
            }
            // Not VALUES rows (an INSERT ... SELECT): run as a query.
            _ => return Ok(()),
        }
    }
    *plan = Plan::Constant { rows };
    Ok(())
}
