//! Binding of GREATEST/LEAST, the mathematical functions (sign, sqrt, cbrt, exp, ln, log,
//! log10, power) and the string functions concat, replace, lpad, rpad, left, right and
//! octet_length, typed as PostgreSQL's function resolution types them.
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
use kpg_types::{BinaryFunc, ScalarExpr, ScalarType, UnaryFunc, VariadicFunc};

/// Binds a call of one of this module's functions, or `None` if the name and argument count
/// are not one of them.
pub fn call(name: &str, args: Vec<Typed>) -> Result<Option<Typed>, PlanError> {
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
                .map(|a| match a.ty {
                    None => implicit(a.clone(), &ScalarType::Text, name, &[a]),
                    Some(_) => Ok(a),
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
                Some(ScalarType::Char { .. }) => one(),
                _ => texts(name, &args, &[0])?.remove(0),
            };
            unary(x, UnaryFunc::OctetLength, ScalarType::Int32)?
        }
        _ => return Ok(None),
    }))
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
