//! `information_schema._pg_expandarray(a)` in a select list, as pgjdbc's getPrimaryKeys and
//! getIndexInfo call it: `(_pg_expandarray(i.indkey)).n AS key_seq` and
//! `_pg_expandarray(i.indkey) AS keys`, then `(result.keys).x` in the enclosing query.
//!
//! The function returns a row `(x, n)` per element of `a`: the element and its position from 1.
//! The SELECT is rewritten so that the call becomes one LATERAL item in FROM,
//! `unnest(a) WITH ORDINALITY AS "?expand"(x, n)`, run once for all the select list's calls
//! (PostgreSQL runs identical calls in lockstep, which gives the same rows); `(call).x` and
//! `(call).n` become its columns and the bare call the record `(x, n)` (a value of type
//! `ScalarType::ExpandedElement`, whose fields `(value).x` and `(value).n` read back).
//! Calls over different arrays, calls nested in other expressions and calls in grouped or
//! DISTINCT queries are refused with 0A000.

use crate::error::PlanError;
use sqlparser::ast::{
    AccessExpr, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, Ident,
    ObjectNamePart, Select, SelectItem,
};

/// The FROM item's name; not one users write.
const ALIAS: &str = "?expand";

/// The internal function building the record `(x, n)` (`arrays::call`).
pub const ROW_FUNCTION: &str = "?kpg_expanded_element";

/// A select item's use of the function: its array argument and the field read, if any.
struct Use<'a> {
    array: &'a Expr,
    field: Option<String>,
}

fn call_of(e: &Expr) -> Option<&Expr> {
    let e = match e {
        Expr::Nested(inner) => inner,
        e => e,
    };
    let Expr::Function(f) = e else {
        return None;
    };
    let names: Vec<String> = f
        .name
        .0
        .iter()
        .map(|p| match p {
            ObjectNamePart::Identifier(i) => crate::names::fold(i),
            _ => String::new(),
        })
        .collect();
    match names
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["information_schema", "_pg_expandarray"] => {}
        _ => return None,
    }
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    match list.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(a))] if list.clauses.is_empty() => Some(a),
        _ => None,
    }
}

fn use_of(e: &Expr) -> Option<Use<'_>> {
    if let Some(array) = call_of(e) {
        return Some(Use { array, field: None });
    }
    let Expr::CompoundFieldAccess { root, access_chain } = e else {
        return None;
    };
    let [AccessExpr::Dot(Expr::Identifier(field))] = access_chain.as_slice() else {
        return None;
    };
    Some(Use {
        array: call_of(root)?,
        field: Some(crate::names::fold(field)),
    })
}

/// The SELECT with its `_pg_expandarray` calls moved into FROM, or `None` without any.
pub fn rewrite(s: &Select) -> Result<Option<Select>, PlanError> {
    let mut out = s.clone();
    let mut array: Option<&Expr> = None;
    for (i, item) in s.projection.iter().enumerate() {
        let (e, alias) = match item {
            SelectItem::UnnamedExpr(e) => (e, None),
            SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.clone())),
            _ => continue,
        };
        let Some(u) = use_of(e) else { continue };
        match array {
            None => array = Some(u.array),
            Some(a) if a.to_string() == u.array.to_string() => {}
            Some(_) => {
                return Err(PlanError::unsupported(
                    "_pg_expandarray over several arrays in one select list",
                ))
            }
        }
        let column = |c: &str| Expr::CompoundIdentifier(vec![Ident::new(ALIAS), Ident::new(c)]);
        let n = Expr::Cast {
            kind: sqlparser::ast::CastKind::DoubleColon,
            expr: Box::new(column("n")),
            data_type: sqlparser::ast::DataType::Int(None),
            format: None,
        };
        let (expr, name) = match u.field.as_deref() {
            Some("x") => (column("x"), "x"),
            Some("n") => (n, "n"),
            Some(other) => {
                return Err(PlanError::new(
                    "42703",
                    format!("could not identify column \"{other}\" in record data type"),
                ))
            }
            None => {
                let row = format!("\"{ROW_FUNCTION}\"(\"{ALIAS}\".x, \"{ALIAS}\".n::int)");
                let e = sqlparser::parser::Parser::new(&sqlparser::dialect::PostgreSqlDialect {})
                    .try_with_sql(&row)
                    .and_then(|mut p| p.parse_expr())
                    .map_err(|e| PlanError::new("XX000", format!("{row}: {e}")))?;
                (e, "_pg_expandarray")
            }
        };
        out.projection[i] = SelectItem::ExprWithAlias {
            expr,
            alias: alias.unwrap_or_else(|| Ident::new(name)),
        };
    }
    let Some(array) = array else {
        return Ok(None);
    };
    let grouped = s.group_by != GroupByExpr::Expressions(vec![], vec![])
        || s.having.is_some()
        || s.distinct.is_some();
    if grouped {
        return Err(PlanError::unsupported(
            "_pg_expandarray in a grouped or DISTINCT query",
        ));
    }
    out.from.push(crate::select_srf::lateral_call(
        s,
        "unnest",
        vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(array.clone()))],
        true,
        Ident::with_quote('"', ALIAS),
        &["x", "n"],
    ));
    Ok(Some(out))
}
