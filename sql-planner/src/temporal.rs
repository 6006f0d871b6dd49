//! `mz_now()` and temporal filters: binding, and the split of WHERE into temporal bounds.
//!
//! As Materialize defines it, `mz_now()` is the logical time at which a query is evaluated
//! (here bigint milliseconds since the Unix epoch, the dataflow's time). It is compared with
//! an expression of the row of type timestamp, timestamptz, date, an integer or numeric, which
//! is cast to that unit (`UnaryFunc::ToMzTimestamp`); the comparison is bound with `mz_now()`
//! on the left (`comparison`).
//!
//! `extract` (the last step of the physical plan) turns the conjuncts of a filter of the form
//! `mz_now() <op> expr` (op one of `=`, `<`, `<=`, `>`, `>=`, `expr` not reading `mz_now()`)
//! into a `Plan::TemporalFilter` above the rest of the filter, which the runtime maintains by
//! scheduling each row's entry and exit. Every other `mz_now()` stays where it is: an ad hoc
//! read binds it to its timestamp (`Plan::bind_mz_now`), and a maintained dataflow (a
//! materialized view, an index, a subscription) is refused with 0A000 (`check_maintained`),
//! as there is no single time at which it could be evaluated. A recursive query's step is left
//! alone, as its rows are computed inside an iteration.

use crate::error::PlanError;
use crate::types::Typed;
use kpg_types::temporal::mz_now;
use kpg_types::{BinaryFunc, Plan, ScalarExpr, ScalarType, UnaryFunc};

/// `mz_now()` called by `name`, or `None` for another function.
pub fn function(name: &str, arg_count: usize) -> Result<Option<Typed>, PlanError> {
    if name != "mz_now" {
        return Ok(None);
    }
    if arg_count > 0 {
        return Err(PlanError::undefined_function(
            "function mz_now() with arguments does not exist",
        ));
    }
    Ok(Some(Typed::new(mz_now(), ScalarType::Int64, false)))
}

/// A comparison `l <func> r` in which one side is `mz_now()`: the other side cast to its
/// unit, `mz_now()` on the left. `None` when neither side is `mz_now()`.
pub fn comparison(func: BinaryFunc, l: &Typed, r: &Typed) -> Result<Option<Typed>, PlanError> {
    let (func, other) = match (l.expr.is_mz_now(), r.expr.is_mz_now()) {
        (false, false) => return Ok(None),
        (true, false) => (func, r),
        (false, true) => (flip(func), l),
        (true, true) => return Err(refused("compared with itself")),
    };
    if other.expr.contains_mz_now() {
        return Err(refused("compared with an expression that reads mz_now()"));
    }
    match other.ty {
        Some(
            ScalarType::Int16
            | ScalarType::Int32
            | ScalarType::Int64
            | ScalarType::Numeric { .. }
            | ScalarType::Timestamp
            | ScalarType::TimestampTz
            | ScalarType::Date,
        ) => {}
        _ => {
            return Err(PlanError::undefined_function(format!(
                "operator does not exist: mz_timestamp {} {} (mz_now() compares with a \
                 timestamp, timestamptz, date, integer or numeric expression)",
                symbol(func),
                other.type_name()
            )))
        }
    }
    let ms = other.expr.clone().call_unary(UnaryFunc::ToMzTimestamp);
    Ok(Some(Typed::new(
        mz_now().call_binary(func, ms),
        ScalarType::Bool,
        other.nullable,
    )))
}

/// `a <func> b` as `b <flip(func)> a`.
fn flip(func: BinaryFunc) -> BinaryFunc {
    match func {
        BinaryFunc::Lt => BinaryFunc::Gt,
        BinaryFunc::Lte => BinaryFunc::Gte,
        BinaryFunc::Gt => BinaryFunc::Lt,
        BinaryFunc::Gte => BinaryFunc::Lte,
        other => other,
    }
}

fn symbol(func: BinaryFunc) -> &'static str {
    match func {
        BinaryFunc::Eq => "=",
        BinaryFunc::NotEq => "<>",
        BinaryFunc::Lt => "<",
        BinaryFunc::Lte => "<=",
        BinaryFunc::Gt => ">",
        _ => ">=",
    }
}

fn refused(what: &str) -> PlanError {
    PlanError::new(
        "0A000",
        format!(
            "mz_now() {what} is not supported: mz_now() may only be compared (=, <, <=, >, >=) \
             with an expression of the row, in a conjunct of WHERE"
        ),
    )
}

/// The refusal of a maintained dataflow (a materialized view, an index, a subscription) whose
/// plan still reads `mz_now()` after `extract`.
pub fn check_maintained(plan: &Plan) -> Result<(), PlanError> {
    if plan.contains_mz_now() {
        return Err(PlanError::new(
            "0A000",
            "mz_now() outside a temporal filter is not supported in a materialized view, an \
             index or a subscription: mz_now() may only be compared (=, <, <=, >, >=) with an \
             expression of the row, in a conjunct of WHERE (not under OR or NOT, not in the \
             select list, not with <>)",
        ));
    }
    Ok(())
}

/// The plan with every filter's temporal conjuncts turned into a `TemporalFilter` above the
/// filter's other conjuncts.
pub fn extract(plan: Plan) -> Plan {
    match plan {
        Plan::Recursive {
            id,
            base,
            step,
            distinct,
        } => Plan::Recursive {
            id,
            base: Box::new(extract(*base)),
            step,
            distinct,
        },
        Plan::Filter { input, predicates } => {
            let input = extract(*input);
            let mut lower = Vec::new();
            let mut upper = Vec::new();
            let mut rest = Vec::new();
            for p in predicates {
                match bound(&p) {
                    Some((l, u)) => {
                        lower.extend(l);
                        upper.extend(u);
                    }
                    None => rest.push(p),
                }
            }
            let filtered = crate::join::filter(input, rest);
            if lower.is_empty() && upper.is_empty() {
                filtered
            } else {
                Plan::TemporalFilter {
                    input: Box::new(filtered),
                    lower,
                    upper,
                }
            }
        }
        other => other.map_inputs(extract),
    }
}

/// The lower and upper bounds a conjunct `mz_now() <op> expr` stands for (the row is present
/// at `T` when `lower <= T < upper`), or `None` for another conjunct.
#[allow(clippy::type_complexity)]
fn bound(p: &ScalarExpr) -> Option<(Option<ScalarExpr>, Option<ScalarExpr>)> {
    let ScalarExpr::Binary { func, left, right } = p else {
        return None;
    };
    if !left.is_mz_now() || right.contains_mz_now() {
        return None;
    }
    let e = || (**right).clone();
    let next = || e().call_unary(UnaryFunc::MzTimestampNext);
    Some(match func {
        BinaryFunc::Gte => (Some(e()), None),
        BinaryFunc::Gt => (Some(next()), None),
        BinaryFunc::Lt => (None, Some(e())),
        BinaryFunc::Lte => (None, Some(next())),
        BinaryFunc::Eq => (Some(e()), Some(next())),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kpg_types::Datum;

    fn col_ms(i: usize) -> ScalarExpr {
        ScalarExpr::Column(i).call_unary(UnaryFunc::ToMzTimestamp)
    }

    /// The temporal filter `extract` builds keeps, at every time, the rows the original filter
    /// keeps with `mz_now()` bound to that time.
    #[test]
    fn extracted_bounds_match_the_filter_at_every_time() {
        let ops = [
            BinaryFunc::Eq,
            BinaryFunc::Lt,
            BinaryFunc::Lte,
            BinaryFunc::Gt,
            BinaryFunc::Gte,
        ];
        for a in ops {
            for b in ops {
                let predicates = vec![
                    mz_now().call_binary(a, col_ms(0)),
                    mz_now().call_binary(b, col_ms(1)),
                ];
                let filter = Plan::Filter {
                    input: Box::new(Plan::Get { id: 1 }),
                    predicates: predicates.clone(),
                };
                let Plan::TemporalFilter { lower, upper, .. } = extract(filter) else {
                    panic!("no temporal filter for {a:?}, {b:?}");
                };
                for x in 0..6i64 {
                    for y in 0..6i64 {
                        let row = [Datum::Int64(x), Datum::Int64(y)];
                        let got = kpg_types::temporal::presence(&lower, &upper, &row).unwrap();
                        for t in 0..10u64 {
                            let want = predicates.iter().all(|p| {
                                let mut p = p.clone();
                                p.bind_mz_now(t);
                                p.eval(&row).unwrap() == Datum::Bool(true)
                            });
                            let inside =
                                got.is_some_and(|(f, u)| f <= t && u.is_none_or(|u| t < u));
                            assert_eq!(inside, want, "{a:?} {x}, {b:?} {y} at {t}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn other_uses_stay_and_are_refused_when_maintained() {
        let or = mz_now()
            .call_binary(BinaryFunc::Gte, col_ms(0))
            .call_binary(BinaryFunc::Or, ScalarExpr::literal_true());
        let not_eq = mz_now().call_binary(BinaryFunc::NotEq, col_ms(0));
        for p in [or, not_eq] {
            let plan = extract(Plan::Filter {
                input: Box::new(Plan::Get { id: 1 }),
                predicates: vec![p],
            });
            assert!(matches!(plan, Plan::Filter { .. }), "{plan}");
            let err = check_maintained(&plan).unwrap_err();
            assert_eq!(err.code, "0A000");
            assert!(err.message.contains("mz_now()"));
        }
    }
}
