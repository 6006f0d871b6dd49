//! INSERT, UPDATE and DELETE: writes to tables, with PostgreSQL's assignment casts.
//!
//! Every value written to a column is converted to the column's type with an assignment cast
//! (numeric rounding to the column's scale, varchar length checks, integer range checks), and
//! a type that cannot be assigned is 42804 `column "a" is of type integer but expression is of
//! type boolean`. INSERT ... VALUES converts each row's values directly to the target columns
//! (so `'2024-01-01'` goes into a date column), and, being constant, is evaluated at plan time
//! into a `Constant` plan; a NULL there for a NOT NULL column is 23502 at plan time. The server
//! checks NOT NULL again on the rows it writes. Only tables may be written (42809 otherwise).
//! Columns a write leaves out, and `DEFAULT` in VALUES and SET, take the column's DEFAULT
//! (`defaults.rs`). The other clauses have files of their own: `dml/returning.rs`,
//! `dml/joined.rs` (UPDATE ... FROM, DELETE ... USING), `dml/on_conflict.rs` and
//! `dml/truncate.rs`.

mod joined;
mod on_conflict;
mod returning;
mod truncate;

use crate::catalog::{Catalog, CatalogItem};
use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::fold as folding;
use crate::join::conjuncts;
use crate::names::{fold, resolve_table_for_write};
use crate::query::{plan_subquery_with_unknowns, project_exprs, QueryContext};
use crate::scope::Scope;
use crate::statement::PlannedStatement;
use crate::types::{coerce, CastContext, Typed};
use kpg_types::{ColumnType, Datum, Plan, Row, ScalarExpr};
pub use on_conflict::{Arbiter, ConflictAction, OnConflict};
pub use returning::Returning;
pub use truncate::plan_truncate;

use sqlparser::ast::{
    Assignment, AssignmentTarget, Delete, Expr, FromTable, Insert, ObjectName, SetExpr, TableAlias,
    TableFactor, TableObject, TableWithJoins, Update, UpdateTableFromKind,
};

/// Converts `t` for storage in column `name` of type `ty`.
fn assign(t: Typed, name: &str, ty: &ColumnType) -> Result<Typed, PlanError> {
    let from = t.type_name();
    coerce(t, &ty.scalar, CastContext::Assignment)?.ok_or_else(|| {
        PlanError::datatype_mismatch(format!(
            "column \"{name}\" is of type {} but expression is of type {from}",
            ty.scalar
        ))
    })
}

fn no_such_column(col: &str, table: &str) -> PlanError {
    PlanError::new(
        "42703",
        format!("column \"{col}\" of relation \"{table}\" does not exist"),
    )
}

fn column_name(name: &ObjectName, table: &str) -> Result<String, PlanError> {
    match name.0.as_slice() {
        [sqlparser::ast::ObjectNamePart::Identifier(i)] => Ok(fold(i)),
        _ => Err(no_such_column(&name.to_string(), table)),
    }
}

pub fn plan_insert(ins: &Insert, catalog: &dyn Catalog) -> Result<PlannedStatement, PlanError> {
    if ins.or.is_some()
        || ins.ignore
        || ins.overwrite
        || ins.partitioned.is_some()
        || !ins.after_columns.is_empty()
        || !ins.assignments.is_empty()
        || ins.replace_into
        || ins.priority.is_some()
        || ins.insert_alias.is_some()
        || !ins.optimizer_hints.is_empty()
        || ins.settings.is_some()
        || ins.format_clause.is_some()
        || ins.multi_table_insert_type.is_some()
        || ins.output.is_some()
    {
        return Err(PlanError::unsupported(format!("INSERT form {ins}")));
    }
    let TableObject::TableName(name) = &ins.table else {
        return Err(PlanError::unsupported("INSERT into a table function"));
    };
    let table = resolve_table_for_write(catalog, name)?;
    let cols = &table.desc.columns;
    let mut targets: Vec<usize> = Vec::with_capacity(ins.columns.len());
    for c in &ins.columns {
        let col = column_name(c, &table.name)?;
        let i = cols
            .iter()
            .position(|(n, _)| *n == col)
            .ok_or_else(|| no_such_column(&col, &table.name))?;
        if targets.contains(&i) {
            return Err(PlanError::new(
                "42701",
                format!("column \"{col}\" specified more than once"),
            ));
        }
        targets.push(i);
    }
    let explicit = !ins.columns.is_empty();
    let defaults = column_defaults(catalog, &table);
    let arity_check = |n: usize, targets: &mut Vec<usize>| -> Result<(), PlanError> {
        if !explicit {
            if n > cols.len() {
                return Err(PlanError::syntax(
                    "INSERT has more expressions than target columns",
                ));
            }
            *targets = (0..n).collect();
        } else if n > targets.len() {
            return Err(PlanError::syntax(
                "INSERT has more expressions than target columns",
            ));
        } else if n < targets.len() {
            return Err(PlanError::syntax(
                "INSERT has more target columns than expressions",
            ));
        }
        Ok(())
    };
    let plan = match &ins.source {
        None => {
            let mut exprs = Vec::new();
            let mut datums = Vec::with_capacity(defaults.len());
            for (c, d) in defaults.iter().enumerate() {
                datums.push(value_or_later(d, c, &mut exprs)?);
            }
            match exprs.is_empty() {
                true => Plan::Constant {
                    rows: vec![(Row::new(datums), 1)],
                },
                false => crate::plan_params::values_row(datums, exprs),
            }
        }
        Some(q) => match q.body.as_ref() {
            SetExpr::Values(values)
                if q.order_by.is_none() && q.limit_clause.is_none() && q.with.is_none() =>
            {
                let empty = Scope::empty();
                let cx = ExprContext::new(&empty, "VALUES");
                let mut rows = Vec::with_capacity(values.rows.len());
                // Rows with parameters of a prepared statement: evaluated once bound.
                let mut param_rows = Vec::new();
                let width = values.rows.first().map_or(0, |r| r.content.len());
                arity_check(width, &mut targets)?;
                for row in &values.rows {
                    if row.content.len() != width {
                        return Err(PlanError::syntax(
                            "VALUES lists must all be the same length",
                        ));
                    }
                    let mut exprs = Vec::new();
                    let mut datums = Vec::with_capacity(defaults.len());
                    for (c, d) in defaults.iter().enumerate() {
                        datums.push(match targets.contains(&c) {
                            true => Datum::Null,
                            false => value_or_later(d, c, &mut exprs)?,
                        });
                    }
                    for (e, &c) in row.content.iter().zip(&targets) {
                        datums[c] = if is_default(e) {
                            value_or_later(&defaults[c], c, &mut exprs)?
                        } else {
                            let bound = cx.bind(e).map_err(misplaced_default)?;
                            let t = assign(bound, &cols[c].0, &cols[c].1)?;
                            value_or_later(&t.expr, c, &mut exprs)?
                        };
                    }
                    if exprs.is_empty() {
                        rows.push((Row::new(datums), 1));
                    } else {
                        // The rows before it, then it, keeping their order.
                        let before = std::mem::take(&mut rows);
                        param_rows.push(Plan::Constant { rows: before });
                        param_rows.push(crate::plan_params::values_row(datums, exprs));
                    }
                }
                match param_rows.is_empty() {
                    true => Plan::Constant { rows },
                    false => {
                        param_rows.push(Plan::Constant { rows });
                        param_rows.retain(|p| p != &Plan::Constant { rows: Vec::new() });
                        Plan::Union { inputs: param_rows }
                    }
                }
            }
            _ => {
                let (plan, scope, unknown) =
                    plan_subquery_with_unknowns(&QueryContext::new(catalog), q)
                        .map_err(misplaced_default)?;
                arity_check(scope.len(), &mut targets)?;
                let mut exprs: Vec<ScalarExpr> = defaults.clone();
                for (j, &c) in targets.iter().enumerate() {
                    let item = &scope.items[j];
                    let t = Typed::new(ScalarExpr::Column(j), item.ty.scalar, item.ty.nullable);
                    exprs[c] = if unknown[j] {
                        // An untyped literal's text is input for the column's type.
                        let ty = cols[c].1.scalar;
                        coerce(t, &ty, CastContext::Explicit)?
                            .expect("text converts to any type")
                            .expr
                    } else {
                        assign(t, &cols[c].0, &cols[c].1)?.expr
                    };
                }
                folding::plan(project_exprs(plan, scope.len(), exprs))?
            }
        },
    };
    let qualifier = ins
        .table_alias
        .as_ref()
        .map_or_else(|| table.name.clone(), |a| fold(&a.alias));
    let scope = Scope::from_desc(Some(&qualifier), &table.desc.value_types());
    Ok(PlannedStatement::Insert {
        table: table.id,
        plan,
        returning: returning::plan_returning(ins.returning.as_ref(), &scope)?,
        on_conflict: on_conflict::plan_on_conflict(ins.on.as_ref(), &table, &qualifier, catalog)?,
    })
}

/// Each column's DEFAULT expression of `table` (a NULL literal for a column without one).
fn column_defaults(catalog: &dyn Catalog, table: &CatalogItem) -> Vec<ScalarExpr> {
    let mut defaults = catalog.column_defaults(table.id);
    defaults.resize(table.desc.arity(), None);
    defaults
        .into_iter()
        .map(|d| d.map_or(ScalarExpr::Literal(Datum::Null), |d| d.expr))
        .collect()
}

/// The value of column `c` of a VALUES row: `e` evaluated now, or, in a prepared statement,
/// NULL with `e` noted in `later` if it reads a parameter or the clock (`now()`, a column's
/// `DEFAULT now()`, `random()`): `bind_values` and `values_now` evaluate it for each
/// execution, so the plan is made once.
fn value_or_later(
    e: &ScalarExpr,
    c: usize,
    later: &mut Vec<(usize, ScalarExpr)>,
) -> Result<Datum, PlanError> {
    let kept =
        crate::plan_params::has_param(e) || (e.is_volatile() && crate::plan_params::preparing());
    if kept {
        later.push((c, e.clone()));
        return Ok(Datum::Null);
    }
    Ok(crate::session_zone::eval_now(e, &[])?)
}

/// Whether `e` is the keyword DEFAULT (as in VALUES or SET), which sqlparser reads as an
/// identifier; a column named "default" must be quoted.
fn is_default(e: &Expr) -> bool {
    matches!(e, Expr::Identifier(i) if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("default"))
}

/// The keyword DEFAULT anywhere but a whole VALUES item or SET value is read as a column named
/// "default", which no table has unquoted: PostgreSQL's 42601 for it.
fn misplaced_default(e: PlanError) -> PlanError {
    if e.code == "42703" && e.message.starts_with("column \"default\" does not exist") {
        return PlanError::syntax("DEFAULT is not allowed in this context");
    }
    e
}

/// The single table an UPDATE or DELETE writes, and its scope (named by its alias, if any).
fn target_table(
    twj: &TableWithJoins,
    catalog: &dyn Catalog,
    what: &str,
) -> Result<(CatalogItem, Scope, Option<TableAlias>), PlanError> {
    if !twj.joins.is_empty() {
        return Err(PlanError::unsupported(format!("{what} with joins")));
    }
    let TableFactor::Table {
        name,
        alias,
        args: None,
        ..
    } = &twj.relation
    else {
        return Err(PlanError::unsupported(format!(
            "{what} of {}",
            twj.relation
        )));
    };
    let table = resolve_table_for_write(catalog, name)?;
    if alias.as_ref().is_some_and(|a| !a.columns.is_empty()) {
        return Err(PlanError::syntax(format!(
            "{what} target alias cannot have column names"
        )));
    }
    let scope = Scope::from_desc(
        Some(&target_alias(&table, alias.as_ref())),
        &table.desc.value_types(),
    );
    Ok((table, scope, alias.clone()))
}

/// The name the target of a write goes by: its alias, or its own name.
fn target_alias(table: &CatalogItem, alias: Option<&TableAlias>) -> String {
    alias.map_or_else(|| table.name.clone(), |a| fold(&a.name))
}

/// The column an UPDATE assignment sets (42703 if there is none, 42601 if set twice).
fn assignment_target(
    a: &Assignment,
    table: &CatalogItem,
    assigned: &mut Vec<usize>,
) -> Result<usize, PlanError> {
    let AssignmentTarget::ColumnName(name) = &a.target else {
        return Err(PlanError::unsupported("UPDATE of a column tuple"));
    };
    let col = column_name(name, &table.name)?;
    let i = table
        .desc
        .columns
        .iter()
        .position(|(n, _)| *n == col)
        .ok_or_else(|| no_such_column(&col, &table.name))?;
    if assigned.contains(&i) {
        return Err(PlanError::syntax(format!(
            "multiple assignments to same column \"{col}\""
        )));
    }
    assigned.push(i);
    Ok(i)
}

fn where_predicates(selection: Option<&Expr>, scope: &Scope) -> Result<Vec<ScalarExpr>, PlanError> {
    let Some(w) = selection else {
        return Ok(vec![]);
    };
    let pred = ExprContext::new(scope, "WHERE").bind_condition(w)?;
    Ok(conjuncts(vec![pred.expr]))
}

pub fn plan_update(up: &Update, catalog: &dyn Catalog) -> Result<PlannedStatement, PlanError> {
    if up.or.is_some() || !up.order_by.is_empty() || up.limit.is_some() || up.output.is_some() {
        return Err(PlanError::unsupported(format!("UPDATE form {up}")));
    }
    let (table, scope, alias) = target_table(&up.table, catalog, "UPDATE")?;
    if let Some(from) = &up.from {
        let (UpdateTableFromKind::AfterSet(from) | UpdateTableFromKind::BeforeSet(from)) = from;
        return joined::plan_update_from(
            table,
            alias.as_ref(),
            &up.assignments,
            from,
            up.selection.as_ref(),
            up.returning.as_ref(),
            catalog,
        );
    }
    let cols = &table.desc.columns;
    let mut assignments: Vec<ScalarExpr> = (0..cols.len()).map(ScalarExpr::Column).collect();
    let mut assigned = Vec::new();
    let cx = ExprContext::new(&scope, "UPDATE");
    for a in &up.assignments {
        let i = assignment_target(a, &table, &mut assigned)?;
        assignments[i] = if is_default(&a.value) {
            column_defaults(catalog, &table).swap_remove(i)
        } else {
            let bound = cx.bind(&a.value).map_err(misplaced_default)?;
            assign(bound, &cols[i].0, &cols[i].1)?.expr
        };
    }
    let predicates = where_predicates(up.selection.as_ref(), &scope)?;
    Ok(PlannedStatement::Update {
        table: table.id,
        predicates,
        assignments,
        returning: returning::plan_returning(up.returning.as_ref(), &scope)?,
    })
}

pub fn plan_delete(del: &Delete, catalog: &dyn Catalog) -> Result<PlannedStatement, PlanError> {
    if !del.tables.is_empty()
        || !del.order_by.is_empty()
        || del.limit.is_some()
        || del.output.is_some()
    {
        return Err(PlanError::unsupported(format!("DELETE form {del}")));
    }
    let from = match &del.from {
        FromTable::WithFromKeyword(v) | FromTable::WithoutKeyword(v) => v,
    };
    let [twj] = from.as_slice() else {
        return Err(PlanError::unsupported("DELETE from several tables"));
    };
    let (table, scope, alias) = target_table(twj, catalog, "DELETE")?;
    if let Some(using) = &del.using {
        return joined::plan_delete_using(
            table,
            alias.as_ref(),
            using,
            del.selection.as_ref(),
            del.returning.as_ref(),
            catalog,
        );
    }
    let predicates = where_predicates(del.selection.as_ref(), &scope)?;
    Ok(PlannedStatement::Delete {
        table: table.id,
        predicates,
        returning: returning::plan_returning(del.returning.as_ref(), &scope)?,
    })
}
