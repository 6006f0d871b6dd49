//! Set-returning functions in FROM: `generate_series(...) [WITH ORDINALITY] [AS t(cols)]`,
//! with or without `LATERAL`; `jsonb_each` and `jsonb_each_text` give two columns (`key`,
//! `value`).
//!
//! As in PostgreSQL, a function in FROM may read the columns of the FROM items before it
//! (it is implicitly LATERAL). One that reads none is a relation of its own (`FlatMap` over a
//! single empty row) joined like a table. One that does is applied to the rows of everything
//! before it: those items are joined first (with the predicates that apply to them) and each
//! of their rows is extended once per value, a per-row and therefore incrementally maintained
//! operator. A one-column function's column is named after the function, or after the alias
//! when only a table alias is given, as PostgreSQL names it; `jsonb_each`'s are `key` and
//! `value`.

use super::*;
use crate::types::Typed;
use kpg_types::table_func::TableFunc;
use sqlparser::ast::{FunctionArg, FunctionArgExpr, ObjectName};

/// A function call in FROM, bound over a scope: its argument expressions, its scope (the
/// value's columns, then `ordinality`) and whether it reads any column of the scope.
struct Call {
    func: TableFunc,
    exprs: Vec<ScalarExpr>,
    scope: Scope,
    reads_columns: bool,
    ordinality: bool,
}

impl Call {
    fn flat_map(&self, input: Plan) -> Plan {
        Plan::FlatMap {
            input: Box::new(input),
            func: self.func,
            exprs: self.exprs.clone(),
            ordinality: self.ordinality,
        }
    }
}

impl FromBuilder<'_> {
    /// Binds a function call in FROM over `scope` (the items before it).
    fn bind_call(
        &self,
        scope: &Scope,
        name: &ObjectName,
        args: &[FunctionArg],
        alias: Option<&TableAlias>,
        ordinality: bool,
    ) -> Result<Call, PlanError> {
        let fname = match name.0.as_slice() {
            [sqlparser::ast::ObjectNamePart::Identifier(id)] => fold(id),
            [sqlparser::ast::ObjectNamePart::Identifier(s), sqlparser::ast::ObjectNamePart::Identifier(id)]
                if fold(s) == "pg_catalog" =>
            {
                fold(id)
            }
            _ => return Err(PlanError::unsupported(format!("FROM item {name}(...)"))),
        };
        let cx = ExprContext::new(scope, "functions in FROM").with_catalog(self.cx.catalog);
        let args: Vec<Typed> = args
            .iter()
            .map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => cx.bind(e),
                other => Err(PlanError::unsupported(format!("function argument {other}"))),
            })
            .collect::<Result<_, _>>()?;
        let (func, exprs, ty, nullable) = match fname.as_str() {
            "generate_series" => {
                let (exprs, ty) = generate_series_args(args)?;
                (TableFunc::GenerateSeries, exprs, ty, false)
            }
            "jsonb_array_elements" | "jsonb_array_elements_text" if args.len() == 1 => {
                let as_text = fname.ends_with("_text");
                let arg = args.into_iter().next().expect("one argument");
                let arg = crate::types::coerce(
                    arg,
                    &ScalarType::Jsonb,
                    crate::types::CastContext::Implicit,
                )?
                .ok_or_else(|| {
                    PlanError::new("42883", format!("function {fname} takes a jsonb argument"))
                })?;
                let ty = if as_text {
                    ScalarType::Text
                } else {
                    ScalarType::Jsonb
                };
                (
                    TableFunc::JsonbArrayElements { as_text },
                    vec![arg.expr],
                    ty,
                    true,
                )
            }
            "jsonb_each" | "jsonb_each_text" | "jsonb_object_keys" if args.len() == 1 => {
                let arg = args.into_iter().next().expect("one argument");
                let arg = crate::types::coerce(
                    arg.clone(),
                    &ScalarType::Jsonb,
                    crate::types::CastContext::Implicit,
                )?
                .ok_or_else(|| crate::func::no_function(&fname, &[arg]))?;
                let (func, ty) = match fname.as_str() {
                    "jsonb_object_keys" => (TableFunc::JsonbObjectKeys, ScalarType::Text),
                    "jsonb_each" => (TableFunc::JsonbEach { as_text: false }, ScalarType::Jsonb),
                    _ => (TableFunc::JsonbEach { as_text: true }, ScalarType::Text),
                };
                (func, vec![arg.expr], ty, true)
            }
            "generate_subscripts"
                if args.len() == 2 && args[0].ty.is_some_and(|t| t.element().is_some()) =>
            {
                let [a, dim] = <[Typed; 2]>::try_from(args).expect("two arguments");
                let dim = crate::types::coerce(
                    dim,
                    &ScalarType::Int32,
                    crate::types::CastContext::Implicit,
                )?
                .ok_or_else(|| {
                    PlanError::new("42883", "generate_subscripts takes an integer dimension")
                })?;
                (
                    TableFunc::GenerateSubscripts,
                    vec![a.expr, dim.expr],
                    ScalarType::Int32,
                    false,
                )
            }
            "generate_subscripts" if args.len() == 3 => {
                return Err(PlanError::unsupported("generate_subscripts in reverse"))
            }
            // The elements of regexp_split_to_array's array, in order.
            "regexp_split_to_table" if matches!(args.len(), 2 | 3) => {
                let array = crate::scalar_funcs::call("regexp_split_to_array", args)?
                    .expect("regexp_split_to_array takes two or three arguments");
                (TableFunc::Unnest, vec![array.expr], ScalarType::Text, true)
            }
            "unnest" if args.len() > 1 => {
                return Err(PlanError::unsupported("unnest of several arrays"))
            }
            "unnest" if args.len() == 1 => {
                let arg = args.into_iter().next().expect("one argument");
                let Some(elem) = arg.ty.and_then(|t| t.element()) else {
                    if arg.ty.is_some_and(|t| t.is_string()) {
                        // The array columns of kpg's system catalogs are text.
                        return Err(PlanError::unsupported(
                            "unnest of text (kpg's system catalogs hold arrays as text)",
                        ));
                    }
                    return Err(crate::func::no_function(&fname, &[arg]));
                };
                (TableFunc::Unnest, vec![arg.expr], elem.value_type(), true)
            }
            _ => return Err(crate::func::no_function(&fname, &args)),
        };
        let reads_columns = exprs.iter().any(|e| !e.support().is_empty());
        let item = |name: String, ty: ScalarType, nullable: bool| ScopeItem {
            table: None,
            name,
            ty: ColumnType::new(ty, nullable),
            level: 0,
            used: UseMark::default(),
        };
        let mut items = match func {
            // Two columns: a table alias names neither.
            TableFunc::JsonbEach { .. } => vec![
                item("key".to_string(), ScalarType::Text, false),
                item("value".to_string(), ty, nullable),
            ],
            _ => {
                let column = match alias {
                    Some(a) if a.columns.is_empty() => fold(&a.name),
                    _ if matches!(func, TableFunc::JsonbArrayElements { .. }) => {
                        "value".to_string()
                    }
                    _ => fname.clone(),
                };
                vec![item(column, ty, nullable)]
            }
        };
        if ordinality {
            items.push(item("ordinality".to_string(), ScalarType::Int64, false));
        }
        let scope = aliased(Scope { items }, alias, &fname)?;
        Ok(Call {
            func,
            exprs,
            scope,
            reads_columns,
            ordinality,
        })
    }

    /// A function call in FROM that reads no other FROM item, as a relation of its own (a
    /// join list planned as written, `joined`, uses this for a call that reads nothing on its
    /// left: one that does is planned per value, `lateral_item`).
    pub(super) fn function_relation(
        &self,
        name: &ObjectName,
        args: &[FunctionArg],
        alias: Option<&TableAlias>,
        ordinality: bool,
    ) -> Result<(Plan, Scope), PlanError> {
        let outer_only = Scope {
            items: self.scope.items[..self.scope.outer_prefix()].to_vec(),
        };
        let call = match self.bind_call(&outer_only, name, args, alias, ordinality) {
            Err(e) if matches!(e.code, "42703" | "42P01") => {
                return Err(PlanError::unsupported(
                    "a function in FROM of an outer join list that reads the items before it",
                ))
            }
            other => other?,
        };
        if call.reads_columns {
            return Err(PlanError::unsupported(
                "a function in FROM of an outer join list that reads an enclosing query",
            ));
        }
        let one = Plan::Constant {
            rows: vec![(kpg_types::Row::empty(), 1)],
        };
        Ok((call.flat_map(one), call.scope))
    }

    /// Adds a function call in FROM.
    pub(super) fn add_function(
        &mut self,
        name: &ObjectName,
        args: &[FunctionArg],
        alias: Option<&TableAlias>,
        ordinality: bool,
    ) -> Result<(), PlanError> {
        let call = self.bind_call(&self.scope, name, args, alias, ordinality)?;
        if !call.reads_columns {
            let one = Plan::Constant {
                rows: vec![(kpg_types::Row::empty(), 1)],
            };
            return self.push_rel(call.flat_map(one), call.scope);
        }
        // Applied to the rows of the items before it, joined first.
        let before = self.take_joined();
        let arity = self.scope.len() + call.scope.len();
        self.rels = vec![(call.flat_map(before), arity)];
        self.add_names(&call.scope)?;
        self.scope = std::mem::take(&mut self.scope).concat(call.scope);
        Ok(())
    }
}

/// The arguments of `generate_series` converted to the types of the variant PostgreSQL picks,
/// and the type of its values.
fn generate_series_args(args: Vec<Typed>) -> Result<(Vec<ScalarExpr>, ScalarType), PlanError> {
    let name = "generate_series";
    if !(2..=3).contains(&args.len()) {
        return Err(crate::func::no_function(name, &args));
    }
    let types: Vec<Option<ScalarType>> = args.iter().map(|a| a.ty).collect();
    let is = |t: Option<ScalarType>, f: &dyn Fn(ScalarType) -> bool| t.is_some_and(f);
    // A timestamptz or a date bound: the timestamptz variant, stepping in the session's zone
    // (passed after the step).
    if types[..2].iter().any(|t| {
        is(*t, &|t| {
            matches!(t, ScalarType::TimestampTz | ScalarType::Date)
        })
    }) {
        if args.len() != 3 {
            return Err(crate::func::no_function(name, &args));
        }
        let tz = ScalarType::TimestampTz;
        let (mut exprs, ty) = convert(args, &[tz, tz, ScalarType::Interval], tz)?;
        exprs.push(crate::session_zone::zone_literal());
        return Ok((exprs, ty));
    }
    if types[..2]
        .iter()
        .any(|t| is(*t, &|t| t == ScalarType::Timestamp))
    {
        if args.len() != 3 {
            return Err(crate::func::no_function(name, &args));
        }
        let targets = [
            ScalarType::Timestamp,
            ScalarType::Timestamp,
            ScalarType::Interval,
        ];
        return convert(args, &targets, ScalarType::Timestamp);
    }
    if types.iter().all(Option::is_none) {
        return Err(PlanError::new(
            "42725",
            format!(
                "function {name}({}) is not unique",
                vec!["unknown"; args.len()].join(", ")
            ),
        ));
    }
    let target = if types
        .iter()
        .any(|t| is(*t, &|t| matches!(t, ScalarType::Numeric { .. })))
    {
        ScalarType::NUMERIC
    } else if types.iter().any(|t| is(*t, &|t| t == ScalarType::Int64)) {
        ScalarType::Int64
    } else if types
        .iter()
        .all(|t| t.is_none_or(|t| matches!(t, ScalarType::Int16 | ScalarType::Int32)))
    {
        ScalarType::Int32
    } else {
        return Err(crate::func::no_function(name, &args));
    };
    let targets = vec![target; args.len()];
    convert(args, &targets, target)
}

/// Each argument implicitly converted to its target (42883 when one cannot be).
fn convert(
    args: Vec<Typed>,
    targets: &[ScalarType],
    out: ScalarType,
) -> Result<(Vec<ScalarExpr>, ScalarType), PlanError> {
    let shown = args.clone();
    let mut exprs = Vec::with_capacity(args.len());
    for (a, t) in args.into_iter().zip(targets) {
        match crate::types::coerce(a, t, crate::types::CastContext::Implicit)? {
            Some(a) => exprs.push(a.expr),
            None => return Err(crate::func::no_function("generate_series", &shown)),
        }
    }
    Ok((exprs, out))
}

/// `UNNEST(a, ...)` in FROM (which sqlparser reads as a construct of its own) as the call
/// `unnest(a, ...)`.
pub(super) fn unnest_call(array_exprs: &[sqlparser::ast::Expr]) -> (ObjectName, Vec<FunctionArg>) {
    let name = ObjectName(vec![sqlparser::ast::ObjectNamePart::Identifier(
        sqlparser::ast::Ident::new("unnest"),
    )]);
    let args = array_exprs
        .iter()
        .map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e.clone())))
        .collect();
    (name, args)
}
