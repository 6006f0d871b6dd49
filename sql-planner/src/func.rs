//! Function calls: the scalar functions kpg evaluates, and aggregate calls (which `aggregate.rs`
//! turns into columns of a reduction).
//!
//! A function PostgreSQL has but kpg does not evaluate yet is refused with 0A000; a name
//! PostgreSQL does not know either is 42883 `function f(integer) does not exist`, named with
//! its argument types as PostgreSQL does. Window functions, FILTER, ORDER BY inside an
//! aggregate and named arguments are refused.

use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::fold;
use crate::names::fold as fold_ident;
use crate::ops;
use crate::types::{coerce, coerce_all, common_type, CastContext, Typed};
use kpg_types::{BinaryFunc, Datum, ScalarExpr, ScalarType, UnaryFunc, VariadicFunc};
use sqlparser::ast::{
    DuplicateTreatment, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArgumentClause,
    FunctionArguments, ObjectNamePart, OrderByExpr,
};

/// Aggregate functions kpg computes.
pub const AGGREGATES: &[&str] = &[
    "count",
    "sum",
    "min",
    "max",
    "avg",
    "bool_and",
    "bool_or",
    "every",
    "stddev",
    "stddev_samp",
    "stddev_pop",
    "variance",
    "var_samp",
    "var_pop",
    "string_agg",
    "array_agg",
    "jsonb_agg",
    "jsonb_object_agg",
];

/// Aggregates whose result depends on the order of their input, which may be given by an
/// ORDER BY inside the call (refused in other calls).
const ORDERED_AGGREGATES: &[&str] = &["string_agg", "array_agg", "jsonb_agg", "jsonb_object_agg"];

/// Functions PostgreSQL has that kpg does not evaluate yet.
/// Checked before the arguments are bound, so that an aggregate over an ungrouped column is
/// refused by name rather than with a grouping error.
const NOT_YET: &[&str] = &[
    // It returns time with time zone.
    "current_time",
    "make_time",
    "bit_length",
    // Functions of bytea.
    "encode",
    "decode",
    "get_byte",
    "set_byte",
    "get_bit",
    "set_bit",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "convert_from",
    "convert_to",
    // It returns a set of arrays (every match with 'g').
    "regexp_matches",
    // In a select list they return records; in FROM they are planned as two columns
    // (`join/functions.rs`).
    "jsonb_each",
    "jsonb_each_text",
    // Aggregates.
    "json_agg",
    "json_object_agg",
    "bit_and",
    "bit_or",
    "bit_xor",
    "corr",
    "covar_pop",
    "covar_samp",
    "regr_avgx",
    "regr_avgy",
    "regr_count",
    "regr_intercept",
    "regr_r2",
    "regr_slope",
    "regr_sxx",
    "regr_sxy",
    "regr_syy",
    "mode",
    "percentile_cont",
    "percentile_disc",
    "range_agg",
    "range_intersect_agg",
    "xmlagg",
];

/// A function call's arguments: `*` (count(*)) or expressions.
pub enum Args<'e> {
    Star,
    Exprs(Vec<&'e Expr>),
}

/// The lower-case function name.
pub fn function_name(f: &Function) -> Result<String, PlanError> {
    let parts: Vec<String> = f
        .name
        .0
        .iter()
        .map(|p| match p {
            ObjectNamePart::Identifier(i) => Ok(fold_ident(i)),
            ObjectNamePart::Function(_) => {
                Err(PlanError::unsupported(format!("function {}", f.name)))
            }
        })
        .collect::<Result<_, _>>()?;
    match parts.as_slice() {
        [n] => Ok(n.clone()),
        [s, n] if s == "pg_catalog" || s == "public" => Ok(n.clone()),
        _ => Err(PlanError::unsupported(format!("function {}", f.name))),
    }
}

/// The arguments of a call, and whether DISTINCT was given.
pub fn call_args(f: &Function) -> Result<(Args<'_>, bool), PlanError> {
    call_args_of(f, false)
}

/// The ORDER BY inside an aggregate call (`string_agg(x, ',' ORDER BY y)`), empty without.
pub fn aggregate_order_by(f: &Function) -> &[OrderByExpr] {
    match &f.args {
        FunctionArguments::List(l) => l
            .clauses
            .iter()
            .find_map(|c| match c {
                FunctionArgumentClause::OrderBy(items) => Some(items.as_slice()),
                _ => None,
            })
            .unwrap_or(&[]),
        _ => &[],
    }
}

/// `call_args`, accepting an ORDER BY inside the call when `ordered_aggregate`.
fn call_args_of(f: &Function, ordered_aggregate: bool) -> Result<(Args<'_>, bool), PlanError> {
    if f.over.is_some() {
        return Err(PlanError::unsupported("window functions"));
    }
    if !f.within_group.is_empty() {
        return Err(PlanError::unsupported("WITHIN GROUP"));
    }
    if f.null_treatment.is_some() || !matches!(f.parameters, FunctionArguments::None) {
        return Err(PlanError::unsupported(format!("function call {f}")));
    }
    let list = match &f.args {
        FunctionArguments::None => return Ok((Args::Exprs(vec![]), false)),
        FunctionArguments::Subquery(_) => return Err(PlanError::unsupported("subqueries")),
        FunctionArguments::List(l) => l,
    };
    let ordered = |c: &FunctionArgumentClause| {
        ordered_aggregate && matches!(c, FunctionArgumentClause::OrderBy(_))
    };
    if !list.clauses.iter().all(ordered) {
        return Err(PlanError::unsupported(format!("function call {f}")));
    }
    let distinct = list.duplicate_treatment == Some(DuplicateTreatment::Distinct);
    let mut exprs = Vec::with_capacity(list.args.len());
    for a in &list.args {
        match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => exprs.push(e),
            FunctionArg::Unnamed(FunctionArgExpr::Wildcard) if list.args.len() == 1 => {
                if distinct {
                    return Err(PlanError::syntax("syntax error at or near \"*\""));
                }
                return Ok((Args::Star, false));
            }
            _ => return Err(PlanError::unsupported(format!("function argument {a}"))),
        }
    }
    Ok((Args::Exprs(exprs), distinct))
}

pub fn no_function(name: &str, args: &[Typed]) -> PlanError {
    let types: Vec<String> = args.iter().map(Typed::type_name).collect();
    PlanError::undefined_function(format!(
        "function {name}({}) does not exist",
        types.join(", ")
    ))
}

/// Binds a function call.
pub fn bind_function(cx: &ExprContext<'_>, f: &Function) -> Result<Typed, PlanError> {
    let name = function_name(f)?;
    if let (FunctionArguments::Subquery(q), "array") = (&f.args, name.as_str()) {
        // The system catalogs' empty relations give the text '{}' their array columns hold.
        return crate::arrays::subquery(cx, q)
            .or_else(|e| crate::pg_compat::array_subquery(cx, q).map_err(|_| e));
    }
    if name == "row" {
        return Err(PlanError::unsupported(
            "row constructors (other than compared with rows)",
        ));
    }
    if f.over.is_some() {
        return crate::window::bind_window(cx, f, &name);
    }
    if crate::window::WINDOW_FUNCTIONS.contains(&name.as_str()) {
        return Err(PlanError::wrong_object_type(format!(
            "window function {name} requires an OVER clause"
        )));
    }
    if let Some(t) = crate::zoned_funcs::statement_time(&name, f)? {
        return Ok(t);
    }
    let arg_count = match &f.args {
        FunctionArguments::None => 0,
        FunctionArguments::List(l) => l.args.len(),
        FunctionArguments::Subquery(_) => 1,
    };
    if let Some(t) = crate::temporal::function(&name, arg_count)? {
        return Ok(t);
    }
    if NOT_YET.contains(&name.as_str()) {
        // Before the arguments: they may be ungrouped columns of an aggregate not built yet.
        return Err(PlanError::unsupported(format!("function {name}")));
    }
    let (args, distinct) = call_args_of(f, ORDERED_AGGREGATES.contains(&name.as_str()))?;
    if let ("grouping", Args::Exprs(exprs)) = (name.as_str(), &args) {
        return crate::grouping_sets::bind_grouping(cx, exprs);
    }
    if AGGREGATES.contains(&name.as_str()) {
        if let Some(t) = crate::aggregate::outer_aggregate(cx, f, &args)? {
            return Ok(t);
        }
        return crate::aggregate::bind_ordered_aggregate(
            cx,
            &name,
            args,
            distinct,
            f.filter.as_deref(),
            aggregate_order_by(f),
        );
    }
    if f.filter.is_some() {
        return Err(PlanError::wrong_object_type(format!(
            "FILTER specified, but {name} is not an aggregate function"
        )));
    }
    let Args::Exprs(exprs) = args else {
        return Err(PlanError::undefined_function(format!(
            "function {name}(*) does not exist"
        )));
    };
    let args: Vec<Typed> = match exprs.iter().map(|e| cx.bind(e)).collect() {
        Ok(args) => args,
        // PostgreSQL resolves the function before it checks grouping: an unknown function
        // over an ungrouped column is 42883, not 42803.
        Err(e) if e.code == "42803" && cx.grouping.is_some() => {
            let plain = cx.ungrouped();
            let Ok(args) = exprs.iter().map(|e| plain.bind(e)).collect() else {
                return Err(e);
            };
            return match resolve_call(&plain, &name, args) {
                Err(unknown) if unknown.code == "42883" => Err(unknown),
                _ => Err(e),
            };
        }
        Err(e) => return Err(e),
    };
    if distinct {
        return Err(PlanError::wrong_object_type(format!(
            "DISTINCT specified, but {name} is not an aggregate function"
        )));
    }
    resolve_call(cx, &name, args)
}

/// Resolves and binds a call of the non-aggregate function `name` to bound arguments.
fn resolve_call(cx: &ExprContext<'_>, name: &str, args: Vec<Typed>) -> Result<Typed, PlanError> {
    let name = name.to_string();
    if matches!(name.as_str(), "md5" | "btrim" | "ltrim" | "rtrim") {
        crate::types::refuse_bytea(&name, &args.iter().collect::<Vec<_>>())?;
    }
    match (name.as_str(), args.len()) {
        ("coalesce", n) if n > 0 => {
            let types: Vec<_> = args.iter().map(|a| a.ty).collect();
            let ty = common_type(&types, "COALESCE")?;
            let args = coerce_all(args, &ty, "COALESCE")?;
            let nullable = args.iter().all(|a| a.nullable);
            let expr = fold::node(ScalarExpr::Variadic {
                func: VariadicFunc::Coalesce,
                exprs: args.into_iter().map(|a| a.expr).collect(),
            })?;
            Ok(Typed::new(expr, ty, nullable))
        }
        ("nullif", 2) => {
            let mut args = args.into_iter();
            let (a, b) = (args.next().expect("two"), args.next().expect("two"));
            if a.expr.draws_per_call() {
                // Its value is both compared and returned: two draws where PostgreSQL has one.
                return Err(PlanError::unsupported(
                    "NULLIF with a first argument that draws a new value at each call \
                     (random(), gen_random_uuid(), clock_timestamp())",
                ));
            }
            let ty = a.ty;
            let (ua, ub) = ops::unify_comparable("=", a.clone(), b)?;
            // NULLIF's result has the first argument's type, unconverted.
            let a = match ty {
                Some(_) => a,
                None => ua.clone(),
            };
            let eq = ua.expr.call_binary(BinaryFunc::Eq, ub.expr);
            let expr = ops::fold_deep(ScalarExpr::If {
                cond: Box::new(eq),
                then: Box::new(ScalarExpr::Literal(Datum::Null)),
                els: Box::new(a.expr),
            })?;
            Ok(Typed {
                expr,
                ty: a.ty,
                nullable: true,
            })
        }
        ("abs", 1) => {
            let a = args.into_iter().next().expect("one");
            let a = match a.ty {
                None => coerce(a, &ScalarType::Float64, CastContext::Implicit)?.expect("unknown"),
                Some(ty) if ty.is_numeric_family() => a,
                Some(_) => return Err(no_function(&name, &[a])),
            };
            crate::builtin::unary(a.clone(), UnaryFunc::Abs, a.ty.expect("typed").base())
        }
        ("jsonb_typeof", 1) => {
            let a = args.into_iter().next().expect("one");
            if !a.ty.is_none_or(|t| t == ScalarType::Jsonb) {
                return Err(no_function(&name, &[a]));
            }
            let a = coerce(a, &ScalarType::Jsonb, CastContext::Implicit)?.expect("jsonb");
            crate::builtin::unary(a, UnaryFunc::JsonbTypeof, ScalarType::Text)
        }
        ("upper" | "lower" | "length" | "char_length" | "character_length", 1) => {
            let a = args.into_iter().next().expect("one");
            if name == "length" && a.ty == Some(ScalarType::Bytea) {
                // length(bytea): its bytes.
                return crate::builtin::unary(a, UnaryFunc::CharLength, ScalarType::Int32);
            }
            if !a.ty.is_none_or(|t| t.is_string()) {
                return Err(no_function(&name, &[a]));
            }
            let a = coerce(a, &ScalarType::Text, CastContext::Implicit)?.expect("string");
            match name.as_str() {
                "upper" => crate::builtin::unary(a, UnaryFunc::Upper, ScalarType::Text),
                "lower" => crate::builtin::unary(a, UnaryFunc::Lower, ScalarType::Text),
                _ => crate::builtin::unary(a, UnaryFunc::CharLength, ScalarType::Int32),
            }
        }
        _ if let Some(t) = crate::arrays::call(&name, args.clone())? => Ok(t),
        _ => match crate::scalar_funcs::call(&name, args.clone())? {
            Some(t) => Ok(t),
            None => match crate::builtin::call(&name, args.clone())? {
                Some(t) => Ok(t),
                None => match crate::zoned_funcs::call(&name, args.clone())? {
                    Some(t) => Ok(t),
                    None => match crate::pg_compat::function(cx, &name, args.clone())? {
                        Some(t) => Ok(t),
                        None => Err(no_function(&name, &args)),
                    },
                },
            },
        },
    }
}
