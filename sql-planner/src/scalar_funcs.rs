//! Binding of GREATEST/LEAST, the mathematical functions (sign, sqrt, cbrt, exp, ln, log,
//! log10, power), the string functions concat, replace, lpad, rpad, left, right,
//! octet_length, repeat, split_part, initcap, md5, reverse, starts_with, translate, ascii, chr,
//! regexp_replace, regexp_like, regexp_count, regexp_substr and regexp_instr, the date
//! functions of `scalar_funcs/dates.rs` and the jsonb builders of `scalar_funcs/jsonb_build.rs`, typed as PostgreSQL's function resolution types them.
//!
//! The regular expression functions take PostgreSQL 15's forms (a start position, a match
//! number, flags). A constant pattern that kpg cannot match as PostgreSQL does is refused
//! when the query is planned (`kpg_types::expr::check_regex_pattern`), while errors PostgreSQL
//! itself raises for a pattern wait for a row, as there.
//!
//! The mathematical functions exist in PostgreSQL for `double precision` and `numeric`; an
//! integer argument resolves to double precision, the preferred type (`sqrt(2)` is a double),
//! a numeric one to numeric. Of the numeric forms kpg evaluates sign and sqrt; exp, ln, log and
//! power of numerics (whose result scales PostgreSQL derives from the value) are refused with
//! 0A000, and a cast to double precision is the way around.

use crate::builtin::{binary, float_or_numeric, implicit, unary};
use crate::error::PlanError;
use crate::fold;
use crate::func::no_function;
use crate::types::{coerce_all, common_type, Typed};
use kpg_types::{BinaryFunc, Datum, ScalarExpr, ScalarType, UnaryFunc, VariadicFunc};

mod dates;
mod formatting;
pub(crate) mod jsonb_build;

/// Binds a call of one of this module's functions, or `None` if the name and argument count
/// are not one of them.
pub fn call(name: &str, args: Vec<Typed>) -> Result<Option<Typed>, PlanError> {
    if matches!(
        name,
        "to_jsonb" | "jsonb_build_array" | "jsonb_build_object"
    ) {
        return jsonb_build::call(name, args);
    }
    let n = args.len();
    let one = || args[0].clone();
    Ok(Some(match (name, n) {
        ("greatest" | "least", 1..) => {
            let what = name.to_uppercase();
            let types: Vec<_> = args.iter().map(|a| a.ty).collect();
            let ty = common_type(&types, &what)?;
            let nullable = args.iter().all(|a| a.nullable);
            let args = coerce_all(args, &ty, &what)?;
            let func = if name == "greatest" {
                VariadicFunc::Greatest
            } else {
                VariadicFunc::Least
            };
            variadic(func, args, ty, nullable)?
        }
        ("sign", 1) => {
            let (x, ty) = float_or_numeric(name, one())?;
            unary(x, UnaryFunc::Sign, ty)?
        }
        ("sqrt", 1) => {
            let (x, ty) = float_or_numeric(name, one())?;
            unary(x, UnaryFunc::Sqrt, ty)?
        }
        ("exp" | "ln" | "log" | "log10", 1) => {
            let (x, ty) = float_or_numeric(name, one())?;
            if ty != ScalarType::Float64 {
                return Err(numeric_refused(name, 1));
            }
            let func = match name {
                "exp" => UnaryFunc::Exp,
                "ln" => UnaryFunc::Ln,
                _ => UnaryFunc::Log10,
            };
            unary(x, func, ty)?
        }
        ("log", 2) => {
            // Only log(numeric, numeric) exists.
            let numeric = ScalarType::NUMERIC;
            for a in &args {
                implicit(a.clone(), &numeric, name, &args)?;
            }
            return Err(numeric_refused(name, 2));
        }
        ("cbrt", 1) => {
            let x = implicit(one(), &ScalarType::Float64, name, &args)?;
            unary(x, UnaryFunc::Cbrt, ScalarType::Float64)?
        }
        ("power" | "pow", 2) => {
            let float = |t: &Typed| matches!(t.ty, Some(ScalarType::Float32 | ScalarType::Float64));
            let numeric = |t: &Typed| matches!(t.ty, Some(ScalarType::Numeric { .. }));
            if args.iter().any(numeric) && !args.iter().any(float) {
                for a in &args {
                    implicit(a.clone(), &ScalarType::NUMERIC, name, &args)?;
                }
                return Err(numeric_refused(name, 2));
            }
            let f = ScalarType::Float64;
            let x = implicit(args[0].clone(), &f, name, &args)?;
            let y = implicit(args[1].clone(), &f, name, &args)?;
            binary(x, BinaryFunc::Power, y, f)?
        }
        ("concat", 1..) => {
            // Every argument by its output text; unknown literals are text.
            let args = args
                .into_iter()
                .map(|a| match &a.ty {
                    None => implicit(a.clone(), &ScalarType::Text, name, &[a]),
                    Some(t) => crate::zoned_casts::concat_arg(*t, a),
                })
                .collect::<Result<Vec<_>, _>>()?;
            variadic(VariadicFunc::Concat, args, ScalarType::Text, false)?
        }
        ("replace", 3) => {
            let nullable = args.iter().any(|a| a.nullable);
            let args = texts(name, &args, &[0, 1, 2])?;
            variadic(VariadicFunc::Replace, args, ScalarType::Text, nullable)?
        }
        ("lpad" | "rpad", 2 | 3) => {
            let nullable = args.iter().any(|a| a.nullable);
            let mut typed = texts(name, &args, &[0])?;
            typed.push(implicit(args[1].clone(), &ScalarType::Int32, name, &args)?);
            if n == 3 {
                typed.extend(texts(name, &args, &[2])?);
            }
            let func = if name == "lpad" {
                VariadicFunc::Lpad
            } else {
                VariadicFunc::Rpad
            };
            variadic(func, typed, ScalarType::Text, nullable)?
        }
        ("left" | "right", 2) => {
            let s = texts(name, &args, &[0])?.remove(0);
            let k = implicit(args[1].clone(), &ScalarType::Int32, name, &args)?;
            let func = if name == "left" {
                BinaryFunc::Left
            } else {
                BinaryFunc::Right
            };
            binary(s, func, k, ScalarType::Text)?
        }
        ("octet_length", 1) => {
            // char(n) has its own octet_length, which counts the padding.
            let x = match one().ty {
                Some(ScalarType::Char { .. } | ScalarType::Bytea) => one(),
                _ => texts(name, &args, &[0])?.remove(0),
            };
            unary(x, UnaryFunc::OctetLength, ScalarType::Int32)?
        }
        // Volatile: each evaluation draws anew (never folded; refused in maintained dataflows).
        ("random", 0) => Typed::new(
            ScalarExpr::Variadic {
                func: VariadicFunc::Random,
                exprs: Vec::new(),
            },
            ScalarType::Float64,
            false,
        ),
        ("gen_random_uuid", 0) => Typed::new(
            ScalarExpr::Variadic {
                func: VariadicFunc::GenRandomUuid,
                exprs: Vec::new(),
            },
            ScalarType::Uuid,
            false,
        ),
        ("repeat", 2) => {
            let mut typed = texts(name, &args, &[0])?;
            typed.push(implicit(args[1].clone(), &ScalarType::Int32, name, &args)?);
            strict(VariadicFunc::Repeat, typed, ScalarType::Text)?
        }
        ("split_part", 3) => {
            let mut typed = texts(name, &args, &[0, 1])?;
            typed.push(implicit(args[2].clone(), &ScalarType::Int32, name, &args)?);
            strict(VariadicFunc::SplitPart, typed, ScalarType::Text)?
        }
        ("initcap" | "md5" | "reverse" | "ascii", 1) => {
            let (func, ty) = match name {
                "initcap" => (VariadicFunc::Initcap, ScalarType::Text),
                "md5" => (VariadicFunc::Md5, ScalarType::Text),
                "reverse" => (VariadicFunc::Reverse, ScalarType::Text),
                _ => (VariadicFunc::Ascii, ScalarType::Int32),
            };
            strict(func, texts(name, &args, &[0])?, ty)?
        }
        ("starts_with", 2) => strict(
            VariadicFunc::StartsWith,
            texts(name, &args, &[0, 1])?,
            ScalarType::Bool,
        )?,
        ("translate", 3) => strict(
            VariadicFunc::Translate,
            texts(name, &args, &[0, 1, 2])?,
            ScalarType::Text,
        )?,
        ("chr", 1) => {
            let n = implicit(one(), &ScalarType::Int32, name, &args)?;
            strict(VariadicFunc::Chr, vec![n], ScalarType::Text)?
        }
        ("regexp_replace", 3..=6)
        | ("regexp_like", 2 | 3)
        | ("regexp_count", 2..=4)
        | ("regexp_substr", 2..=6)
        | ("regexp_instr", 2..=7)
        | ("regexp_match" | "regexp_split_to_array", 2 | 3) => {
            // Which arguments are integers (a start position, a match number) and which text;
            // an unknown literal fourth argument of regexp_replace is its flags, as there.
            let flags_fourth = n == 4 && args[3].ty.is_none_or(|t| t.is_string());
            let (func, ints, flags): (_, &[usize], _) = match name {
                "regexp_replace" if n == 3 || flags_fourth => {
                    (VariadicFunc::RegexpReplace, &[], (n == 4).then_some(3))
                }
                "regexp_replace" => (VariadicFunc::RegexpReplace, &[3, 4], (n == 6).then_some(5)),
                "regexp_like" => (VariadicFunc::RegexpLike, &[], (n == 3).then_some(2)),
                "regexp_count" => (VariadicFunc::RegexpCount, &[2], (n == 4).then_some(3)),
                "regexp_match" => (VariadicFunc::RegexpMatch, &[], (n == 3).then_some(2)),
                "regexp_split_to_array" => {
                    (VariadicFunc::RegexpSplitToArray, &[], (n == 3).then_some(2))
                }
                "regexp_substr" => (
                    VariadicFunc::RegexpSubstr,
                    &[2, 3, 5],
                    (n >= 5).then_some(4),
                ),
                _ => (
                    VariadicFunc::RegexpInstr,
                    &[2, 3, 4, 6],
                    (n >= 6).then_some(5),
                ),
            };
            let typed = (0..n)
                .map(|i| {
                    if ints.contains(&i) {
                        implicit(args[i].clone(), &ScalarType::Int32, name, &args)
                    } else {
                        texts(name, &args, &[i]).map(|mut t| t.remove(0))
                    }
                })
                .collect::<Result<Vec<_>, _>>()?;
            check_constant_pattern(&typed, flags)?;
            let ty = match func {
                VariadicFunc::RegexpLike => ScalarType::Bool,
                VariadicFunc::RegexpCount | VariadicFunc::RegexpInstr => ScalarType::Int32,
                VariadicFunc::RegexpMatch | VariadicFunc::RegexpSplitToArray => {
                    ScalarType::array_of(ScalarType::Text)
                }
                _ => ScalarType::Text,
            };
            strict(func, typed, ty)?
        }
        ("to_char" | "to_number" | "to_date" | "to_timestamp", 2) => {
            return formatting::call(name, args)
        }
        _ => return dates::call(name, args),
    }))
}

/// A constant pattern (and flags) that kpg cannot match as PostgreSQL does is refused now;
/// other errors wait for a row, as in PostgreSQL.
fn check_constant_pattern(args: &[Typed], flags: Option<usize>) -> Result<(), PlanError> {
    let constant = |i: usize| match args.get(i).map(|a| &a.expr) {
        Some(ScalarExpr::Literal(Datum::String(s))) => Some(s.as_str()),
        _ => None,
    };
    let Some(pattern) = constant(1) else {
        return Ok(());
    };
    let flags = match flags {
        None => None,
        Some(i) => match constant(i) {
            Some(f) => Some(f),
            None => return Ok(()),
        },
    };
    match kpg_types::expr::check_regex_pattern(pattern, flags) {
        Err(e) if e.sqlstate() == "0A000" => Err(PlanError::unsupported(
            e.to_string().trim_end_matches(" not supported"),
        )),
        _ => Ok(()),
    }
}

/// A strict function of `args` (NULL when one is).
fn strict(func: VariadicFunc, args: Vec<Typed>, ty: ScalarType) -> Result<Typed, PlanError> {
    let nullable = args.iter().any(|a| a.nullable);
    variadic(func, args, ty, nullable)
}

/// The arguments at `positions` as text, each converted implicitly (42883 if one cannot be).
fn texts(name: &str, args: &[Typed], positions: &[usize]) -> Result<Vec<Typed>, PlanError> {
    positions
        .iter()
        .map(|&i| {
            if args[i].ty.is_some_and(|t| !t.is_string()) {
                return Err(no_function(name, args));
            }
            implicit(args[i].clone(), &ScalarType::Text, name, args)
        })
        .collect()
}

fn variadic(
    func: VariadicFunc,
    args: Vec<Typed>,
    ty: ScalarType,
    nullable: bool,
) -> Result<Typed, PlanError> {
    let expr = fold::node(ScalarExpr::Variadic {
        func,
        exprs: args.into_iter().map(|a| a.expr).collect(),
    })?;
    Ok(Typed::new(expr, ty, nullable))
}

fn numeric_refused(name: &str, arity: usize) -> PlanError {
    let types = vec!["numeric"; arity].join(", ");
    PlanError::unsupported(format!(
        "function {name}({types}) (cast the arguments to double precision)"
    ))
}
