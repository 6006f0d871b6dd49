//! Set-returning functions in the select list (`SELECT id, unnest(tags) FROM t`), as drivers'
//! catalog queries use them, planned by rewriting the SELECT so that the call becomes a
//! LATERAL function in FROM and the select item a reference to its column.
//!
//! PostgreSQL evaluates a select list's set-returning functions per input row and emits one
//! row per value; for one function that is exactly a LATERAL join with the call. Several
//! functions run in lockstep (the row count is the longest one's, the others padded with
//! NULL): `unnest(a)` beside `generate_subscripts(a, 1)` of one array is planned as
//! `LATERAL unnest(a) WITH ORDINALITY` (the subscripts are the ordinality shifted to the
//! array's lower bound: 1, or 0 for an int2vector), and `unnest` / `generate_subscripts` of
//! several arrays as a LATERAL series of positions that subscripts each array (`zipped`).
//! Arrays have one dimension, so `generate_subscripts(a, d)` for a `d` other than 1 (a
//! parameter's value, say) has no rows: NULL beside the others, none alone.
//! Other combinations, calls nested inside expressions,
//! and set-returning functions in grouped or DISTINCT queries (where PostgreSQL evaluates them
//! after grouping) are refused with 0A000.

use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, Ident, ObjectName,
    ObjectNamePart, Select, SelectItem, TableAlias, TableAliasColumnDef, TableFactor,
    TableWithJoins,
};

use crate::error::PlanError;
use crate::types::CastContext;
use kpg_types::ScalarType;

/// The alias of the rewritten FROM item; not a name users write.
pub(crate) const ALIAS: &str = "__kpg_srf";

/// The SELECT with its select-list set-returning functions moved into FROM, or `None` if it
/// has none at the top of a select item.
pub fn rewrite(s: &Select) -> Result<Option<Select>, PlanError> {
    let calls: Vec<(usize, Srf<'_>)> = s
        .projection
        .iter()
        .enumerate()
        .filter_map(|(i, item)| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                srf(e).map(|c| (i, c))
            }
            _ => None,
        })
        .collect();
    if calls.is_empty() {
        return Ok(None);
    }
    let grouped = s.group_by != GroupByExpr::Expressions(vec![], vec![])
        || s.having.is_some()
        || s.distinct.is_some()
        || s.projection.iter().any(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                crate::aggregate::contains_aggregate(e) || crate::aggregate::contains_window(e)
            }
            _ => false,
        });
    if grouped {
        return Err(PlanError::unsupported(
            "set-returning functions in the select list of a grouped, aggregated or DISTINCT \
             query",
        ));
    }
    let mut distinct: Vec<&Srf<'_>> = Vec::new();
    for (_, c) in &calls {
        if !distinct.iter().any(|d| d.text == c.text) {
            distinct.push(c);
        }
    }
    // Each call's column in the FROM item, and the item itself.
    let (factor_name, factor_args, ordinality, columns): (&str, Vec<FunctionArg>, bool, Vec<&str>);
    let column_of: Vec<&str>;
    if let [only] = distinct.as_slice() {
        if only.name == "generate_subscripts" {
            (factor_name, factor_args, ordinality) = lockstep_array(&distinct)?;
            columns = vec!["value", "ordinality"];
            column_of = calls.iter().map(|_| "ordinality").collect();
        } else {
            (factor_name, factor_args, ordinality) = (only.name, only.args.to_vec(), false);
            columns = vec!["value"];
            column_of = calls.iter().map(|_| "value").collect();
        }
    } else {
        (factor_name, factor_args, ordinality) = match lockstep_array(&distinct) {
            Ok(one_array) => one_array,
            Err(refused) => return zipped(s, &calls).map(Some).map_err(|_| refused),
        };
        columns = vec!["value", "ordinality"];
        column_of = calls
            .iter()
            .map(|(_, c)| match c.name {
                "unnest" => "value",
                _ => "ordinality",
            })
            .collect();
    }
    let mut out = s.clone();
    // Arrays have one dimension: `generate_subscripts(a, d)` has rows only if `d` is 1 (a
    // parameter's value, say). Beside `unnest(a)` its value is NULL where `d` is not 1; alone,
    // there are no rows.
    let dims: Vec<&Expr> = calls.iter().filter_map(|(_, c)| dimension(c)).collect();
    for (_, call) in &calls {
        check_dimension(call)?;
    }
    if !dims.is_empty()
        && !dims.iter().any(|d| is_one(d))
        && calls.iter().all(|(_, c)| c.name == "generate_subscripts")
    {
        let any_one: Vec<String> = dims.iter().map(|d| format!("({d}) = 1")).collect();
        let only = parse_expr(&any_one.join(" OR "))?;
        out.selection = Some(match out.selection.take() {
            Some(w) => Expr::BinaryOp {
                left: Box::new(Expr::Nested(Box::new(w))),
                op: sqlparser::ast::BinaryOperator::And,
                right: Box::new(Expr::Nested(Box::new(only))),
            },
            None => only,
        });
    }
    for ((i, call), column) in calls.iter().zip(column_of) {
        let mut expr = Expr::CompoundIdentifier(vec![Ident::new(ALIAS), Ident::new(column)]);
        if call.name == "generate_subscripts" {
            // The subscripts start at the array's lower bound (0 for an int2vector).
            expr = subscript_of_ordinality(expr, &call.args[0])?;
            if let Some(d) = dimension(call).filter(|d| !is_one(d)) {
                expr = parse_expr(&format!("CASE WHEN ({d}) = 1 THEN {expr} END"))?;
            }
        }
        let alias = match &s.projection[*i] {
            SelectItem::ExprWithAlias { alias, .. } => alias.clone(),
            _ => Ident::new(call.name),
        };
        out.projection[*i] = SelectItem::ExprWithAlias { expr, alias };
    }
    out.from.push(lateral_call(
        s,
        factor_name,
        factor_args,
        ordinality,
        Ident::new(ALIAS),
        &columns,
    ));
    Ok(Some(out))
}

/// A set-returning function call of the select list.
struct Srf<'a> {
    name: &'static str,
    args: &'a [FunctionArg],
    /// The call as written, to find repeated calls.
    text: String,
}

fn srf(e: &Expr) -> Option<Srf<'_>> {
    let e = match e {
        Expr::Nested(inner) => inner,
        e => e,
    };
    let Expr::Function(f) = e else {
        return None;
    };
    let [ObjectNamePart::Identifier(name)] = f.name.0.as_slice() else {
        return None;
    };
    let name = [
        "unnest",
        "generate_subscripts",
        "generate_series",
        "jsonb_array_elements",
        "jsonb_array_elements_text",
        "jsonb_object_keys",
        "regexp_split_to_table",
    ]
    .into_iter()
    .find(|n| name.value.eq_ignore_ascii_case(n))?;
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    if list.duplicate_treatment.is_some() || !list.clauses.is_empty() || f.over.is_some() {
        return None;
    }
    Some(Srf {
        name,
        args: &list.args,
        text: e.to_string(),
    })
}

/// `unnest(a) WITH ORDINALITY` for calls that are all `unnest(a)` or
/// `generate_subscripts(a, 1)` of one array `a`.
fn lockstep_array(calls: &[&Srf<'_>]) -> Result<(&'static str, Vec<FunctionArg>, bool), PlanError> {
    let refused = || {
        PlanError::unsupported(
            "several set-returning functions in one select list, other than unnest(a) beside \
             generate_subscripts(a, 1),",
        )
    };
    let mut array: Option<&FunctionArg> = None;
    for c in calls {
        let a = match (c.name, c.args) {
            ("unnest", [a]) => a,
            ("generate_subscripts", [a, FunctionArg::Unnamed(FunctionArgExpr::Expr(_))]) => a,
            _ => return Err(refused()),
        };
        match array {
            None => array = Some(a),
            Some(seen) if seen.to_string() == a.to_string() => {}
            Some(_) => return Err(refused()),
        }
    }
    let array = array.ok_or_else(refused)?;
    Ok(("unnest", vec![array.clone()], true))
}

/// Calls that are all `unnest(a)` or `generate_subscripts(a, 1)` of several arrays, in
/// lockstep as PostgreSQL runs them: `LATERAL generate_series(1, n) AS i`, with `n` the
/// longest array's length, `unnest(a)` as `a[lower(a) + i - 1]` (NULL past its end) and
/// `generate_subscripts(a, 1)` as `lower(a) + i - 1` while `i` is within `a`, else NULL.
fn zipped(s: &Select, calls: &[(usize, Srf<'_>)]) -> Result<Select, PlanError> {
    // Each call's number of rows, once per distinct one.
    let mut lengths: Vec<String> = Vec::new();
    let mut exprs = Vec::new();
    let i = format!("{ALIAS}.i");
    for (_, c) in calls {
        let (length, text) = match (c.name, c.args) {
            ("unnest", [a]) => {
                let a = a.to_string();
                let e = format!("({a})[pg_catalog.array_lower({a}, 1) + {i} - 1]");
                (format!("pg_catalog.cardinality({a})"), e)
            }
            ("generate_subscripts", [a, FunctionArg::Unnamed(FunctionArgExpr::Expr(dim))]) => {
                let a = a.to_string();
                // Rows only for the one dimension arrays have.
                let one = match is_one(dim) {
                    true => String::new(),
                    false => format!("({dim}) = 1 AND "),
                };
                let e = format!(
                    "CASE WHEN {one}{i} <= pg_catalog.cardinality({a}) \
                     THEN CAST(pg_catalog.array_lower({a}, 1) + {i} - 1 AS int) END"
                );
                let length = match is_one(dim) {
                    true => format!("pg_catalog.cardinality({a})"),
                    false => format!("CASE WHEN ({dim}) = 1 THEN pg_catalog.cardinality({a}) END"),
                };
                (length, e)
            }
            _ => return Err(PlanError::unsupported("these set-returning functions")),
        };
        if !lengths.contains(&length) {
            lengths.push(length);
        }
        exprs.push(parse_expr(&text)?);
    }
    let lengths: Vec<String> = lengths
        .iter()
        .map(|length| format!("coalesce({length}, 0)"))
        .collect();
    let n = parse_expr(&format!("greatest({})", lengths.join(", ")))?;
    let mut out = s.clone();
    for ((item, call), expr) in calls.iter().zip(exprs) {
        let alias = match &s.projection[*item] {
            SelectItem::ExprWithAlias { alias, .. } => alias.clone(),
            _ => Ident::new(call.name),
        };
        out.projection[*item] = SelectItem::ExprWithAlias { expr, alias };
    }
    let args = [parse_expr("1")?, n]
        .into_iter()
        .map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e)))
        .collect();
    out.from.push(lateral_call(
        s,
        "generate_series",
        args,
        false,
        Ident::new(ALIAS),
        &["i"],
    ));
    Ok(out)
}

/// The FROM item `[LATERAL] name(args) [WITH ORDINALITY] AS alias(columns)` that a rewritten
/// select list reads (LATERAL unless it is the SELECT's only FROM item).
pub(crate) fn lateral_call(
    s: &Select,
    name: &str,
    args: Vec<FunctionArg>,
    with_ordinality: bool,
    alias: Ident,
    columns: &[&str],
) -> TableWithJoins {
    TableWithJoins {
        relation: TableFactor::Function {
            lateral: !s.from.is_empty(),
            name: ObjectName(vec![ObjectNamePart::Identifier(Ident::new(name))]),
            args,
            with_ordinality,
            alias: Some(TableAlias {
                explicit: true,
                name: alias,
                columns: columns
                    .iter()
                    .map(|c| TableAliasColumnDef::from_name(*c))
                    .collect(),
                at: None,
            }),
        },
        joins: vec![],
    }
}

fn parse_expr(text: &str) -> Result<Expr, PlanError> {
    sqlparser::parser::Parser::new(&sqlparser::dialect::PostgreSqlDialect {})
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| PlanError::new("XX000", format!("{text} does not parse: {e}")))
}

/// The dimension argument of a `generate_subscripts(a, d)` call.
fn dimension<'a>(c: &Srf<'a>) -> Option<&'a Expr> {
    match (c.name, c.args) {
        ("generate_subscripts", [_, FunctionArg::Unnamed(FunctionArgExpr::Expr(dim))]) => Some(dim),
        _ => None,
    }
}

/// `generate_subscripts(a, d)` takes an integer `d`: one of another type (`1.5`, `1::int8`)
/// names no function, as in PostgreSQL (the rewrite compares `d` with 1, which any number
/// could be). Checked where `d` reads no column (bound without a scope), as it almost always
/// does.
fn check_dimension(c: &Srf<'_>) -> Result<(), PlanError> {
    let Some(dim) = dimension(c) else {
        return Ok(());
    };
    let empty = crate::scope::Scope::empty();
    let cx = crate::expr::ExprContext::new(&empty, "generate_subscripts");
    let Ok(d) = cx.bind(dim) else {
        return Ok(());
    };
    if crate::types::coerce(d.clone(), &ScalarType::Int32, CastContext::Implicit)?.is_some() {
        return Ok(());
    }
    let array = match &c.args[0] {
        FunctionArg::Unnamed(FunctionArgExpr::Expr(a)) => cx.bind(a).ok(),
        _ => None,
    };
    Err(match array {
        Some(a) => crate::func::no_function(c.name, &[a, d]),
        None => PlanError::undefined_function(format!(
            "function {}(anyarray, {}) does not exist",
            c.name,
            d.type_name()
        )),
    })
}

/// Whether `e` is the constant 1 (possibly cast, as drivers send `1::INTEGER`).
fn is_one(e: &Expr) -> bool {
    let empty = crate::scope::Scope::empty();
    let Ok(t) = crate::expr::ExprContext::new(&empty, "generate_subscripts").bind(e) else {
        return false;
    };
    let Ok(Some(t)) = crate::types::coerce(t, &ScalarType::Int32, CastContext::Implicit) else {
        return false;
    };
    !crate::plan_params::has_param(&t.expr)
        && matches!(t.expr.eval(&[]), Ok(kpg_types::Datum::Int32(1)))
}

/// `generate_subscripts(a, 1)`'s value from `unnest(a) WITH ORDINALITY`'s ordinality:
/// `CAST(ordinality - 1 + array_lower(a, 1) AS int)`.
fn subscript_of_ordinality(ordinality: Expr, array: &FunctionArg) -> Result<Expr, PlanError> {
    parse_expr(&format!(
        "CAST({ordinality} - 1 + pg_catalog.array_lower({array}, 1) AS int)"
    ))
}
