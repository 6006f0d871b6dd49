//! Evaluation of string functions beyond `substring`, `position` and `trim` (those are in
//! `builtins.rs`), and of GREATEST and LEAST: concat, replace, lpad, rpad, left, right and
//! octet_length, with PostgreSQL 15's results. Lengths and positions count characters, not
//! bytes, except octet_length's.
//!
//! concat, GREATEST and LEAST skip NULL arguments instead of returning NULL; the others are
//! strict, and `expr.rs` returns NULL for them before calling here.

use crate::datum::Datum;
use crate::expr::{BinaryFunc, UnaryFunc, VariadicFunc};

/// GREATEST, LEAST and concat: functions that skip NULL arguments.
pub(crate) fn variadic_lenient(func: VariadicFunc, args: Vec<Datum>) -> Datum {
    let present = args.into_iter().filter(|d| !d.is_null());
    match func {
        VariadicFunc::Concat => {
            let mut out = String::new();
            present.for_each(|d| d.write_text(&mut out));
            Datum::String(out)
        }
        VariadicFunc::Greatest | VariadicFunc::Least => {
            let wanted = match func {
                VariadicFunc::Greatest => std::cmp::Ordering::Greater,
                _ => std::cmp::Ordering::Less,
            };
            // The first of SQL-equal values wins, as in PostgreSQL.
            present
                .reduce(|best, d| if d.sql_cmp(&best) == wanted { d } else { best })
                .unwrap_or(Datum::Null)
        }
        other => unreachable!("{other:?} is strict"),
    }
}

/// replace, lpad and rpad over non-NULL arguments.
pub(crate) fn variadic_strict(
    func: VariadicFunc,
    args: Vec<Datum>,
) -> Result<Datum, crate::error::EvalError> {
    Ok(match (func, args.as_slice()) {
        (VariadicFunc::Replace, [Datum::String(s), Datum::String(from), Datum::String(to)]) => {
            if from.is_empty() {
                Datum::String(s.clone())
            } else {
                Datum::String(s.replace(from.as_str(), to))
            }
        }
        (
            VariadicFunc::Lpad | VariadicFunc::Rpad,
            [Datum::String(s), Datum::Int32(n), rest @ ..],
        ) => {
            let fill = match rest {
                [] => " ",
                [Datum::String(f)] => f.as_str(),
                other => unreachable!("pad fill {other:?}"),
            };
            // PostgreSQL's bound: four bytes a character, a 4-byte header, under 1 GB.
            if i64::from(*n) * 4 + 4 > 0x3fff_ffff {
                return Err(crate::error::EvalError::LengthTooLarge);
            }
            Datum::String(pad(s, *n, fill, func == VariadicFunc::Lpad))
        }
        (func, args) => unreachable!("planner typed {func:?} over {args:?}"),
    })
}

/// `s` cut or filled with repetitions of `fill` to `n` characters, filled on the left or the
/// right; with an empty fill it is only cut.
fn pad(s: &str, n: i32, fill: &str, left: bool) -> String {
    let n = n.max(0) as usize;
    let len = s.chars().count();
    if len >= n || fill.is_empty() {
        return s.chars().take(n).collect();
    }
    let filling: String = fill.chars().cycle().take(n - len).collect();
    if left {
        filling + s
    } else {
        s.to_string() + &filling
    }
}

pub(crate) fn unary(func: &UnaryFunc, d: Datum) -> Datum {
    match (func, d) {
        (UnaryFunc::OctetLength, Datum::String(s)) => Datum::Int32(s.len() as i32),
        (func, d) => unreachable!("planner typed {func:?} over {d:?}"),
    }
}

pub(crate) fn binary(func: BinaryFunc, l: Datum, r: Datum) -> Datum {
    let (Datum::String(s), Datum::Int32(n)) = (&l, &r) else {
        unreachable!("planner typed {func:?} over {l:?}, {r:?}")
    };
    let len = s.chars().count() as i64;
    let n = i64::from(*n);
    // The characters kept: the first `keep` for left, the last `keep` for right.
    let keep = if n >= 0 { n.min(len) } else { (len + n).max(0) } as usize;
    Datum::String(match func {
        BinaryFunc::Left => s.chars().take(keep).collect(),
        _ => s.chars().skip(len as usize - keep).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(d: Datum) -> String {
        match d {
            Datum::String(s) => s,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn string_functions_like_postgres() {
        // Expected values are PostgreSQL 15's.
        let s = |v: &str| Datum::String(v.into());
        let lr = |f, v, n| text(binary(f, s(v), Datum::Int32(n)));
        assert_eq!(lr(BinaryFunc::Left, "hello", 2), "he");
        assert_eq!(lr(BinaryFunc::Left, "hello", -2), "hel");
        assert_eq!(lr(BinaryFunc::Right, "héllo", 4), "éllo");
        assert_eq!(lr(BinaryFunc::Right, "hello", -2), "llo");
        assert_eq!(lr(BinaryFunc::Left, "hi", -5), "");
        assert_eq!(pad("hi", 5, " ", true), "   hi");
        assert_eq!(pad("hi", 5, "xy", true), "xyxhi");
        assert_eq!(pad("hi", 1, " ", false), "h");
        assert_eq!(pad("hi", -1, " ", true), "");
        assert_eq!(pad("hi", 5, "", false), "hi");
        let replace = |a: &str, b: &str, c: &str| {
            text(variadic_strict(VariadicFunc::Replace, vec![s(a), s(b), s(c)]).unwrap())
        };
        assert_eq!(replace("abcabc", "b", "XX"), "aXXcaXXc");
        assert_eq!(replace("abc", "", "x"), "abc");
        let concat = variadic_lenient(
            VariadicFunc::Concat,
            vec![s("a"), Datum::Null, Datum::Int32(1), Datum::Bool(true)],
        );
        assert_eq!(text(concat), "a1t");
        assert_eq!(
            variadic_lenient(VariadicFunc::Least, vec![Datum::Null, Datum::Null]),
            Datum::Null
        );
    }
}
