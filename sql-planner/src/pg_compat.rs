//! What PostgreSQL clients' catalog queries (psql's backslash commands and tab completion,
//! JDBC's DatabaseMetaData) need beyond ordinary SQL: the regular expression operators (also
//! written `OPERATOR(pg_catalog.~)`), `COLLATE` with the collations kpg compares by, the OID
//! types (`oid`, `regclass`, `regtype`, `regnamespace`, `regrole`) and pg_catalog functions.
//!
//! OIDs are `bigint` values. A `reg*` cast of a string literal looks the name up when the
//! statement is planned; a cast of a column to `regclass`, and the functions that answer from
//! the catalog (`pg_get_userbyid`, `pg_table_is_visible`, `pg_get_viewdef`, `pg_get_indexdef`),
//! become a balanced tree of comparisons over the catalog's current answer
//! (`Catalog::pg_lookup`), so the catalog is read once per statement and a lookup costs
//! O(log n) comparisons per row. Functions kpg has no data for (comments) return NULL as
//! PostgreSQL does for an object without one; functions about features kpg lacks are refused
//! with 0A000.

use crate::catalog::PgLookup;
use crate::error::PlanError;
use crate::expr::ExprContext;
use crate::names::fold;
use crate::ops;
use crate::types::{coerce, CastContext, Typed};
use kpg_types::{BinaryFunc, Datum, ScalarExpr, ScalarType, UnaryFunc, PG_TYPES};
use sqlparser::ast::{BinaryOperator, DataType, Expr, ObjectName, ObjectNamePart};

/// The database kpg serves (as the server names it).
pub const DATABASE: &str = "kpg";

/// pg_catalog functions about things kpg does not have (defaults, constraints, rules,
/// statistics objects, publications, arrays).
const NOT_IN_KPG: &[&str] = &[
    "pg_relation_is_publishable",
    "pg_get_partkeydef",
    "array_upper",
    "array_length",
    "unnest",
    "generate_series",
    "pg_has_role",
    "has_table_privilege",
    "pg_get_function_arguments",
    "pg_get_function_result",
];

/// `a op b` for the operators `expr.rs` does not know.
pub fn operator(
    cx: &ExprContext<'_>,
    left: &Expr,
    op: &BinaryOperator,
    right: &Expr,
) -> Result<Typed, PlanError> {
    if crate::jsonb_ops::is_jsonb_operator(op) {
        return crate::jsonb_ops::operator(cx, left, op, right);
    }
    let (ci, negated) = match op {
        BinaryOperator::PGRegexMatch => (false, false),
        BinaryOperator::PGRegexIMatch => (true, false),
        BinaryOperator::PGRegexNotMatch => (false, true),
        BinaryOperator::PGRegexNotIMatch => (true, true),
        BinaryOperator::PGCustomBinaryOperator(parts) => {
            let sym = match parts.as_slice() {
                [s] => s.as_str(),
                [schema, s] if schema.eq_ignore_ascii_case("pg_catalog") => s.as_str(),
                _ => return Err(PlanError::unsupported(format!("operator {op}"))),
            };
            let op = match sym {
                "~" => BinaryOperator::PGRegexMatch,
                "~*" => BinaryOperator::PGRegexIMatch,
                "!~" => BinaryOperator::PGRegexNotMatch,
                "!~*" => BinaryOperator::PGRegexNotIMatch,
                "=" => BinaryOperator::Eq,
                "<>" | "!=" => BinaryOperator::NotEq,
                "<" => BinaryOperator::Lt,
                "<=" => BinaryOperator::LtEq,
                ">" => BinaryOperator::Gt,
                ">=" => BinaryOperator::GtEq,
                "+" => BinaryOperator::Plus,
                "-" => BinaryOperator::Minus,
                "*" => BinaryOperator::Multiply,
                "/" => BinaryOperator::Divide,
                "||" => BinaryOperator::StringConcat,
                _ => return Err(PlanError::unsupported(format!("operator {sym}"))),
            };
            return cx.bind(&Expr::BinaryOp {
                left: Box::new(left.clone()),
                op,
                right: Box::new(right.clone()),
            });
        }
        other => return Err(PlanError::unsupported(format!("operator {other}"))),
    };
    let (l, r) = (cx.bind(left)?, cx.bind(right)?);
    let sym = match (ci, negated) {
        (false, false) => "~",
        (true, false) => "~*",
        (false, true) => "!~",
        (true, true) => "!~*",
    };
    let text = |t: Typed| -> Result<Typed, PlanError> {
        if !t.ty.is_none_or(|ty| ty.is_string()) {
            return Err(PlanError::undefined_function(format!(
                "operator does not exist: {} {sym} {}",
                l_name(&t),
                "text"
            )));
        }
        Ok(coerce(t, &ScalarType::Text, CastContext::Implicit)?.expect("string"))
    };
    let (l, r) = (text(l)?, text(r)?);
    let nullable = l.nullable || r.nullable;
    let func = if ci {
        BinaryFunc::RegexIMatch
    } else {
        BinaryFunc::RegexMatch
    };
    let mut e = l.expr.call_binary(func, r.expr);
    if negated {
        e = e.call_unary(UnaryFunc::Not);
    }
    Ok(Typed::new(ops::fold_deep(e)?, ScalarType::Bool, nullable))
}

fn l_name(t: &Typed) -> String {
    t.type_name()
}

/// `expr COLLATE name`: kpg compares strings by their bytes, which is the `C` collation (and
/// the database default); other collations are refused.
pub fn collate(
    cx: &ExprContext<'_>,
    expr: &Expr,
    collation: &ObjectName,
) -> Result<Typed, PlanError> {
    let parts: Vec<String> = collation
        .0
        .iter()
        .map(|p| match p {
            ObjectNamePart::Identifier(i) => fold(i),
            ObjectNamePart::Function(_) => String::new(),
        })
        .collect();
    let name = match parts.as_slice() {
        [n] => n.as_str(),
        [s, n] if s == "pg_catalog" => n.as_str(),
        _ => "",
    };
    if !matches!(name, "default" | "C" | "POSIX" | "ucs_basic") {
        return Err(PlanError::unsupported(format!(
            "collation {collation} (kpg compares strings by bytes, as collation \"C\")"
        )));
    }
    cx.bind(expr)
}

/// The constant string a bound expression is, if it is one.
fn string_constant(t: &Typed) -> Option<&str> {
    match (&t.expr, t.ty) {
        (ScalarExpr::Literal(Datum::String(s)), None | Some(ScalarType::Text)) => Some(s),
        _ => None,
    }
}

fn oid_value(t: Typed) -> Result<Typed, PlanError> {
    if let Some(s) = string_constant(&t) {
        let oid: i64 = s
            .trim()
            .parse()
            .ok()
            .filter(|v| (0..=u32::MAX as i64).contains(v))
            .ok_or_else(|| {
                PlanError::new(
                    "22P02",
                    format!("invalid input syntax for type oid: \"{s}\""),
                )
            })?;
        return Ok(Typed::literal(Datum::Int64(oid), ScalarType::Int64));
    }
    match t.ty {
        Some(ScalarType::Int16 | ScalarType::Int32 | ScalarType::Int64) | None => {
            let t = coerce(t, &ScalarType::Int64, CastContext::Explicit)?.expect("integer");
            Ok(t)
        }
        Some(ty) => Err(PlanError::new(
            "42846",
            format!("cannot cast type {ty} to oid"),
        )),
    }
}

/// Casts to the OID types; `None` if `data_type` is not one.
pub fn cast(
    cx: &ExprContext<'_>,
    expr: &Expr,
    data_type: &DataType,
) -> Option<Result<Typed, PlanError>> {
    let (name, mods) = match data_type {
        DataType::Custom(name, mods) => (name.to_string().to_lowercase(), mods.as_slice()),
        DataType::Regclass => ("regclass".to_string(), &[][..]),
        _ => return None,
    };
    let name = name
        .strip_prefix("pg_catalog.")
        .unwrap_or(&name)
        .to_string();
    let lookup = match name.as_str() {
        "oid" => None,
        "regclass" => Some((PgLookup::RelationName, "relation")),
        "regnamespace" => Some((PgLookup::NamespaceName, "schema")),
        "regrole" => Some((PgLookup::RoleName, "role")),
        "regtype" => Some((PgLookup::RelationName, "type")),
        "regproc" | "regprocedure" | "regoper" | "regoperator" | "regconfig" | "regdictionary"
        | "regcollation" => return Some(Err(PlanError::unsupported(format!("type {name}")))),
        _ => return None,
    };
    if !mods.is_empty() {
        return Some(Err(PlanError::syntax(format!("type modifier on {name}"))));
    }
    Some((|| {
        let t = cx.bind(expr)?;
        let Some((what, noun)) = lookup else {
            return oid_value(t);
        };
        if string_constant(&t).is_none() && is_text(&t) {
            // A parameter (PostgreSQL gives it the OID type, which kpg does not have: text
            // here) or a text column: its name looked up as it is read.
            return by_name(cx, &name, what, t, false);
        }
        if let Some(s) = string_constant(&t) {
            // A name, looked up now; digits are an OID already.
            if let Ok(oid) = s.trim().parse::<i64>() {
                return Ok(Typed::literal(Datum::Int64(oid), ScalarType::Int64));
            }
            let n = kpg_types::oid_names::unqualified(s);
            return match name_to_oid(cx, &name, what, &n)? {
                Some(oid) => Ok(Typed::literal(Datum::Int64(oid), ScalarType::Int64)),
                None if name == "regclass" => Err(PlanError::undefined_table(&n)),
                None => Err(PlanError::new(
                    "42704",
                    format!("{noun} \"{n}\" does not exist"),
                )),
            };
        }
        // A value: shown by its name (the number when no object has it).
        let key = oid_value(t)?;
        let nullable = key.nullable;
        let fallback = key
            .expr
            .clone()
            .call_unary(UnaryFunc::Cast(ScalarType::Text));
        let expr = if name == "regtype" {
            key.expr.call_binary(
                BinaryFunc::FormatType,
                ScalarExpr::Literal(Datum::Int32(-1)),
            )
        } else {
            let entries = catalog(cx)?.pg_lookup(what);
            tree(&key.expr, &strings(entries), fallback)
        };
        Ok(Typed::new(
            ops::fold_deep(expr)?,
            ScalarType::Text,
            nullable,
        ))
    })())
}

/// The OID of the object of reg-type `reg` (`regtype` or a catalog lookup) named `n`.
fn name_to_oid(
    cx: &ExprContext<'_>,
    reg: &str,
    what: PgLookup,
    n: &str,
) -> Result<Option<i64>, PlanError> {
    Ok(names(cx, reg, what)?
        .into_iter()
        .find(|(name, _)| name == n)
        .map(|(_, oid)| oid))
}

/// The names of the objects of reg-type `reg` and their OIDs, in the order a name is looked
/// up (a type's own name before the SQL spellings of built-in types).
fn names(cx: &ExprContext<'_>, reg: &str, what: PgLookup) -> Result<Vec<(String, i64)>, PlanError> {
    if reg == "regtype" {
        let own = PG_TYPES
            .iter()
            .map(|ty| (kpg_types::format_type(ty.0, None), ty.0));
        let aliases = TYPE_ALIASES.iter().map(|(n, oid)| (n.to_string(), *oid));
        return Ok(own.chain(aliases).collect());
    }
    Ok(catalog(cx)?
        .pg_lookup(what)
        .into_iter()
        .filter(|(_, sub, _)| *sub == 0)
        .map(|(oid, _, name)| (name, oid))
        .collect())
}

/// The OID of reg-type `reg` that the text `t` names, looked up as it is read
/// (`kpg_types::oid_names`): NULL where nothing has the name if `or_null` (`to_regclass`),
/// else PostgreSQL's error.
fn by_name(
    cx: &ExprContext<'_>,
    reg: &str,
    what: PgLookup,
    t: Typed,
    or_null: bool,
) -> Result<Typed, PlanError> {
    use kpg_types::oid_names::{table, OidNoun};
    let noun = match reg {
        "regclass" => OidNoun::Relation,
        "regnamespace" => OidNoun::Schema,
        "regrole" => OidNoun::Role,
        _ => OidNoun::Type,
    };
    let text =
        coerce(t, &ScalarType::Text, CastContext::Implicit)?.expect("strings coerce to text");
    let [names, oids] = table(names(cx, reg, what)?);
    let e = ScalarExpr::Variadic {
        func: kpg_types::VariadicFunc::OidByName { noun, or_null },
        exprs: vec![
            text.expr,
            ScalarExpr::Literal(names),
            ScalarExpr::Literal(oids),
        ],
    };
    Ok(Typed::new(e, ScalarType::Int64, true))
}

/// Whether `t` is a text (or of unknown type, a parameter's).
fn is_text(t: &Typed) -> bool {
    t.ty.is_none_or(|ty| ty.is_string())
}

/// A few SQL spellings of built-in type names, for `'int4'::regtype`.
const TYPE_ALIASES: &[(&str, i64)] = &[
    ("int", 23),
    ("int4", 23),
    ("int8", 20),
    ("int2", 21),
    ("bool", 16),
    ("varchar", 1043),
    ("bpchar", 1042),
    ("char", 1042),
    ("float8", 701),
    ("float4", 700),
    ("timestamp", 1114),
    ("timestamptz", 1184),
];

fn catalog<'a>(cx: &ExprContext<'a>) -> Result<&'a dyn crate::catalog::Catalog, PlanError> {
    cx.catalog
        .ok_or_else(|| PlanError::unsupported(format!("catalog lookups in {}", cx.clause)))
}

fn strings(entries: Vec<(i64, i64, String)>) -> Vec<(i64, ScalarExpr)> {
    let mut out: Vec<(i64, ScalarExpr)> = entries
        .into_iter()
        .filter(|(_, sub, _)| *sub == 0)
        .map(|(oid, _, v)| (oid, ScalarExpr::Literal(Datum::String(v))))
        .collect();
    out.sort_by_key(|(k, _)| *k);
    out.dedup_by_key(|(k, _)| *k);
    out
}

/// `value of key` over sorted `entries`, `fallback` when no entry has it: a balanced tree of
/// comparisons (a NULL key compares neither way and reaches `fallback` with a NULL key).
fn tree(key: &ScalarExpr, entries: &[(i64, ScalarExpr)], fallback: ScalarExpr) -> ScalarExpr {
    let lit = |k: i64| ScalarExpr::Literal(Datum::Int64(k));
    match entries {
        [] => fallback,
        [(k, v)] => ScalarExpr::If {
            cond: Box::new(key.clone().call_binary(BinaryFunc::Eq, lit(*k))),
            then: Box::new(v.clone()),
            els: Box::new(fallback),
        },
        _ => {
            let mid = entries.len() / 2;
            ScalarExpr::If {
                cond: Box::new(key.clone().call_binary(BinaryFunc::Lt, lit(entries[mid].0))),
                then: Box::new(tree(key, &entries[..mid], fallback.clone())),
                els: Box::new(tree(key, &entries[mid..], fallback)),
            }
        }
    }
}

/// The role that owns every object, and the user outside a session.
pub const OWNER: &str = "kpg";

thread_local! {
    /// Set when planning read the session's user (`current_user` and its synonyms).
    static SESSION_READ: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether planning read the session's user since the last call (a definition that outlives
/// the session, such as a view's, may not keep it).
pub(crate) fn take_session_read() -> bool {
    SESSION_READ.with(|r| r.replace(false))
}

fn text(s: impl Into<String>) -> Typed {
    Typed::literal(Datum::String(s.into()), ScalarType::Text)
}

/// pg_catalog functions and the SQL-standard functions clients call; `None` if `name` is none
/// of them.
pub fn function(
    cx: &ExprContext<'_>,
    name: &str,
    args: Vec<Typed>,
) -> Result<Option<Typed>, PlanError> {
    let lookup = |what: PgLookup, key: Typed, fallback: ScalarExpr, ty: ScalarType| {
        let key = oid_value(key)?;
        let entries = catalog(cx)?.pg_lookup(what);
        let expr = tree(&key.expr, &strings(entries), fallback);
        Ok::<_, PlanError>(Some(Typed::new(ops::fold_deep(expr)?, ty, true)))
    };
    let null = ScalarExpr::Literal(Datum::Null);
    let mut args = args.into_iter();
    let n = args.len();
    let mut next = || args.next().expect("counted");
    Ok(match (name, n) {
        ("version", 0) => Some(text(format!(
            "PostgreSQL 16.6 (kpg {}, a streaming SQL server) on {}-{}",
            env!("CARGO_PKG_VERSION"),
            std::env::consts::ARCH,
            std::env::consts::OS
        ))),
        ("current_schema", 0) => Some(text("public")),
        // The session's user: a view may not keep it (`take_session_read`).
        ("current_user" | "session_user" | "user" | "current_role", 0) => {
            SESSION_READ.with(|r| r.set(true));
            Some(text(catalog(cx)?.session_user()))
        }
        ("current_database" | "current_catalog", 0) => Some(text(DATABASE)),
        ("pg_get_userbyid", 1) => {
            let key = oid_value(next())?;
            let fallback = fold_concat(
                fold_concat(
                    ScalarExpr::Literal(Datum::String("unknown (OID=".into())),
                    key.expr
                        .clone()
                        .call_unary(UnaryFunc::Cast(ScalarType::Text)),
                ),
                ScalarExpr::Literal(Datum::String(")".into())),
            );
            lookup(PgLookup::RoleName, key, fallback, ScalarType::Text)?
        }
        // Every type is in pg_catalog, which is on every search path.
        ("pg_type_is_visible", 1) => {
            let key = oid_value(next())?;
            let e = key
                .expr
                .call_unary(UnaryFunc::IsNull)
                .call_unary(UnaryFunc::Not);
            let e = ScalarExpr::If {
                cond: Box::new(e),
                then: Box::new(ScalarExpr::Literal(Datum::Bool(true))),
                els: Box::new(null.clone()),
            };
            Some(Typed::new(ops::fold_deep(e)?, ScalarType::Bool, true))
        }
        ("pg_table_is_visible", 1) => {
            let key = oid_value(next())?;
            let entries = catalog(cx)?.pg_lookup(PgLookup::Visible);
            let entries: Vec<(i64, ScalarExpr)> = {
                let mut e: Vec<_> = entries
                    .into_iter()
                    .map(|(oid, _, _)| (oid, ScalarExpr::Literal(Datum::Bool(true))))
                    .collect();
                e.sort_by_key(|(k, _)| *k);
                e.dedup_by_key(|(k, _)| *k);
                e
            };
            let expr = tree(&key.expr, &entries, null);
            Some(Typed::new(ops::fold_deep(expr)?, ScalarType::Bool, true))
        }
        ("pg_get_viewdef", 1 | 2) => {
            let key = next();
            if n == 2 {
                bool_arg(next())?;
            }
            lookup(PgLookup::ViewDefinition, key, null, ScalarType::Text)?
        }
        ("pg_get_indexdef", 1 | 3) => {
            let key = oid_value(next())?;
            let column = if n == 3 {
                let c = coerce(next(), &ScalarType::Int64, CastContext::Implicit)?.ok_or_else(
                    || {
                        PlanError::undefined_function(
                            "function pg_get_indexdef(oid, ?, ?) does not exist",
                        )
                    },
                )?;
                bool_arg(next())?;
                Some(c.expr)
            } else {
                None
            };
            let entries = catalog(cx)?.pg_lookup(PgLookup::IndexDefinition);
            let mut by_oid: Vec<(i64, ScalarExpr)> = Vec::new();
            let mut oids: Vec<i64> = entries.iter().map(|e| e.0).collect();
            oids.sort_unstable();
            oids.dedup();
            for oid in oids {
                let mut subs: Vec<(i64, ScalarExpr)> = entries
                    .iter()
                    .filter(|e| e.0 == oid)
                    .map(|e| (e.1, ScalarExpr::Literal(Datum::String(e.2.clone()))))
                    .collect();
                subs.sort_by_key(|(k, _)| *k);
                let value = match &column {
                    // Column 0 is the whole definition, as PostgreSQL's pg_get_indexdef.
                    Some(c) => tree(c, &subs, ScalarExpr::Literal(Datum::String(String::new()))),
                    None => subs
                        .iter()
                        .find(|(k, _)| *k == 0)
                        .map_or(ScalarExpr::Literal(Datum::Null), |(_, v)| v.clone()),
                };
                by_oid.push((oid, value));
            }
            let expr = tree(&key.expr, &by_oid, null);
            Some(Typed::new(ops::fold_deep(expr)?, ScalarType::Text, true))
        }
        // `to_regtype('name')`, `to_regclass('name')`: the OID, or NULL when nothing has the name.
        ("to_regtype" | "to_regclass", 1) => {
            let reg = &name[3..];
            let arg = next();
            let Some(s) = string_constant(&arg) else {
                if is_text(&arg) {
                    return by_name(cx, reg, PgLookup::RelationName, arg, true).map(Some);
                }
                return Err(PlanError::undefined_function(format!(
                    "function {name}({}) does not exist",
                    arg.type_name()
                )));
            };
            let oid = name_to_oid(
                cx,
                reg,
                PgLookup::RelationName,
                &kpg_types::oid_names::unqualified(s),
            )?;
            Some(match oid {
                Some(oid) => Typed::literal(Datum::Int64(oid), ScalarType::Int64),
                None => Typed::new(null, ScalarType::Int64, true),
            })
        }
        ("format_type", 2) => {
            let oid = oid_value(next())?;
            let typmod = next();
            let typmod = match &typmod.expr {
                // PostgreSQL's format_type is not strict in the modifier.
                ScalarExpr::Literal(Datum::Null) => {
                    Typed::literal(Datum::Int32(-1), ScalarType::Int32)
                }
                _ => {
                    coerce(typmod, &ScalarType::Int32, CastContext::Implicit)?.ok_or_else(|| {
                        PlanError::undefined_function("function format_type(oid, ?) does not exist")
                    })?
                }
            };
            let nullable = oid.nullable || typmod.nullable;
            let e = oid.expr.call_binary(BinaryFunc::FormatType, typmod.expr);
            Some(Typed::new(ops::fold_deep(e)?, ScalarType::Text, nullable))
        }
        ("pg_encoding_to_char", 1) => {
            let t =
                coerce(next(), &ScalarType::Int32, CastContext::Implicit)?.ok_or_else(|| {
                    PlanError::undefined_function("function pg_encoding_to_char(?) does not exist")
                })?;
            let nullable = t.nullable;
            let e = t.expr.call_unary(UnaryFunc::EncodingToChar);
            Some(Typed::new(ops::fold_deep(e)?, ScalarType::Text, nullable))
        }
        ("quote_ident", 1) => {
            let t = next();
            if !t.ty.is_none_or(|ty| ty.is_string()) {
                return Err(PlanError::undefined_function(format!(
                    "function quote_ident({}) does not exist",
                    t.type_name()
                )));
            }
            let t = coerce(t, &ScalarType::Text, CastContext::Implicit)?.expect("string");
            let nullable = t.nullable;
            let e = t.expr.call_unary(UnaryFunc::QuoteIdent);
            Some(Typed::new(ops::fold_deep(e)?, ScalarType::Text, nullable))
        }
        // The system catalogs' array columns hold PostgreSQL's text form of the array.
        ("array_to_string", 2) => {
            let (a, sep) = (next(), next());
            let text_arg = |t: Typed| -> Result<Typed, PlanError> {
                if !t.ty.is_none_or(|ty| ty.is_string()) {
                    return Err(PlanError::undefined_function(format!(
                        "function array_to_string({}, ...) does not exist",
                        t.type_name()
                    )));
                }
                Ok(coerce(t, &ScalarType::Text, CastContext::Implicit)?.expect("string"))
            };
            let (a, sep) = (text_arg(a)?, text_arg(sep)?);
            let nullable = a.nullable || sep.nullable;
            let e = a.expr.call_binary(BinaryFunc::ArrayToString, sep.expr);
            Some(Typed::new(ops::fold_deep(e)?, ScalarType::Text, nullable))
        }
        // kpg has no constraints, rules, triggers or statistics objects: every OID is a missing
        // one, for which PostgreSQL answers NULL.
        (
            "pg_get_constraintdef"
            | "pg_get_ruledef"
            | "pg_get_triggerdef"
            | "pg_get_statisticsobjdef_columns",
            1 | 2,
        ) => Some(Typed::literal(Datum::Null, ScalarType::Text)),
        // kpg's catalogs hold no expression trees: the one expression column with values,
        // pg_attrdef.adbin, holds the default's text as psql's `\d` shows it, which
        // pg_get_expr returns (the other such columns are NULL, and so is their text).
        ("pg_get_expr", 2 | 3) => {
            let e = next();
            Some(
                coerce(e, &ScalarType::Text, CastContext::Explicit)?.ok_or_else(|| {
                    PlanError::undefined_function("function pg_get_expr does not exist")
                })?,
            )
        }
        // kpg keeps no comments on objects: every object has none.
        ("obj_description" | "col_description" | "shobj_description", 1 | 2) => {
            Some(Typed::literal(Datum::Null, ScalarType::Text))
        }
        _ if NOT_IN_KPG.contains(&name) => {
            return Err(PlanError::unsupported(format!("function {name}")))
        }
        _ => None,
    })
}

/// `ARRAY(subquery)`: only over a relation that is always empty (then `{}`, the empty array
/// in the text form the system catalogs use); kpg has no array type otherwise.
pub fn array_subquery(cx: &ExprContext<'_>, q: &sqlparser::ast::Query) -> Result<Typed, PlanError> {
    use sqlparser::ast::{JoinOperator, SetExpr, TableFactor};
    let unsupported = || PlanError::unsupported("ARRAY(subquery)");
    let SetExpr::Select(s) = q.body.as_ref() else {
        return Err(unsupported());
    };
    let catalog = catalog(cx)?;
    let empty = |f: &TableFactor| match f {
        TableFactor::Table { name, .. } => crate::names::resolve_relation(catalog, name)
            .map(|item| catalog.always_empty(item.id))
            .unwrap_or(false),
        _ => false,
    };
    let reads_empty = s.from.iter().any(|t| {
        empty(&t.relation)
            || t.joins.iter().any(|j| {
                matches!(
                    j.join_operator,
                    JoinOperator::Join(_) | JoinOperator::Inner(_)
                ) && empty(&j.relation)
            })
    });
    if !reads_empty || s.having.is_some() {
        return Err(unsupported());
    }
    Ok(Typed::literal(Datum::String("{}".into()), ScalarType::Text))
}

fn bool_arg(t: Typed) -> Result<(), PlanError> {
    match t.ty {
        None | Some(ScalarType::Bool) => Ok(()),
        Some(ty) => Err(PlanError::undefined_function(format!(
            "function with a {ty} where a boolean flag was expected does not exist"
        ))),
    }
}

fn fold_concat(a: ScalarExpr, b: ScalarExpr) -> ScalarExpr {
    a.call_binary(BinaryFunc::Concat, b)
}
