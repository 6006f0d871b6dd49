//! Evaluation of string functions beyond `substring`, `position` and `trim` (those are in
//! `builtins.rs`), and of GREATEST and LEAST: concat, replace, lpad, rpad, left, right,
//! octet_length, repeat, split_part, initcap, md5, reverse, starts_with, translate, ascii, chr,
//! and the regexp_ functions (`text_funcs/regex.rs`), with PostgreSQL
//! 15's results. Lengths and positions count characters, not bytes, except octet_length's and
//! repeat's limit.
//!
//! kpg answers as PostgreSQL does in the C locale (as its tests' server runs): initcap
//! capitalizes ASCII letters only, a letter after any other character, ASCII digits included,
//! staying lower case.
//!
//! concat, GREATEST and LEAST skip NULL arguments instead of returning NULL; the others are
//! strict, and `expr.rs` returns NULL for them before calling here.

mod regex;

pub use self::regex::check_pattern;

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

/// The strict variadic functions over non-NULL arguments.
pub(crate) fn variadic_strict(
    func: VariadicFunc,
    args: Vec<Datum>,
) -> Result<Datum, crate::error::EvalError> {
    use crate::error::EvalError;
    let text = |s: String| Datum::String(s);
    Ok(match (func, args.as_slice()) {
        (VariadicFunc::RegexpReplace, args) => regex::regexp_replace(args)?,
        (VariadicFunc::RegexpLike, args) => regex::regexp_like(args)?,
        (VariadicFunc::RegexpCount, args) => regex::regexp_count(args)?,
        (VariadicFunc::RegexpSubstr, args) => regex::regexp_find(args, false)?,
        (VariadicFunc::RegexpInstr, args) => regex::regexp_find(args, true)?,
        (VariadicFunc::RegexpMatch, args) => regex::regexp_match(args)?,
        (VariadicFunc::RegexpSplitToArray, args) => regex::regexp_split_to_array(args)?,
        (VariadicFunc::Repeat, [Datum::String(s), Datum::Int32(n)]) => {
            let n = (*n).max(0);
            // PostgreSQL's bound: the bytes, with a 4-byte header, under 1 GB.
            match i32::try_from(s.len()).ok().and_then(|l| l.checked_mul(n)) {
                Some(len) if len <= 0x3fff_ffff - 4 => text(s.repeat(n as usize)),
                _ => return Err(EvalError::LengthTooLarge),
            }
        }
        (VariadicFunc::SplitPart, [Datum::String(s), Datum::String(sep), Datum::Int32(n)]) => {
            text(split_part(s, sep, *n)?.to_string())
        }
        (VariadicFunc::Initcap, [Datum::String(s)]) => text(initcap(s)),
        (VariadicFunc::Md5, [Datum::String(s)]) => {
            use md5::Digest;
            let digest = md5::Md5::digest(s.as_bytes());
            text(digest.iter().map(|b| format!("{b:02x}")).collect())
        }
        (VariadicFunc::Reverse, [Datum::String(s)]) => text(s.chars().rev().collect()),
        (VariadicFunc::StartsWith, [Datum::String(s), Datum::String(prefix)]) => {
            Datum::Bool(s.starts_with(prefix.as_str()))
        }
        (VariadicFunc::Translate, [Datum::String(s), Datum::String(from), Datum::String(to)]) => {
            text(translate(s, from, to))
        }
        (VariadicFunc::Ascii, [Datum::String(s)]) => {
            Datum::Int32(s.chars().next().map_or(0, |c| c as i32))
        }
        (VariadicFunc::Chr, [Datum::Int32(n)]) => text(chr(*n)?.to_string()),
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

/// split_part(s, sep, n): the n-th field of `s` between separators, counted from the end
/// when n is negative; empty when there is no such field.
fn split_part<'s>(s: &'s str, sep: &str, n: i32) -> Result<&'s str, crate::error::EvalError> {
    if n == 0 {
        return Err(crate::error::EvalError::InvalidParameterValue(
            "field position must not be zero".into(),
        ));
    }
    if s.is_empty() {
        return Ok("");
    }
    if sep.is_empty() {
        return Ok(if n == 1 || n == -1 { s } else { "" });
    }
    // PostgreSQL finds separators left to right without overlaps, as `split` does.
    let fields: Vec<&str> = s.split(sep).collect();
    let i = if n > 0 {
        i64::from(n) - 1
    } else {
        fields.len() as i64 + i64::from(n)
    };
    Ok(usize::try_from(i)
        .ok()
        .and_then(|i| fields.get(i))
        .copied()
        .unwrap_or(""))
}

/// initcap in the C locale: an ASCII letter after an ASCII letter or digit in lower case,
/// any other in upper case.
fn initcap(s: &str) -> String {
    let mut after_alnum = false;
    s.chars()
        .map(|c| {
            let c = if after_alnum {
                c.to_ascii_lowercase()
            } else {
                c.to_ascii_uppercase()
            };
            after_alnum = c.is_ascii_alphanumeric();
            c
        })
        .collect()
}

/// translate(s, from, to): each character of `s` that occurs in `from` replaced by the
/// character of `to` at the position of its first occurrence there, or removed when `to` is
/// shorter.
fn translate(s: &str, from: &str, to: &str) -> String {
    let from: Vec<char> = from.chars().collect();
    let to: Vec<char> = to.chars().collect();
    s.chars()
        .filter_map(|c| match from.iter().position(|&f| f == c) {
            None => Some(c),
            Some(i) => to.get(i).copied(),
        })
        .collect()
}

/// chr(n): the character with code point n (in UTF-8).
fn chr(n: i32) -> Result<char, crate::error::EvalError> {
    use crate::error::EvalError::{InvalidParameterValue, ProgramLimitExceeded};
    match n {
        ..=-1 => Err(InvalidParameterValue(
            "character number must be positive".into(),
        )),
        0 => Err(ProgramLimitExceeded("null character not permitted".into())),
        0x11_0000.. => Err(ProgramLimitExceeded(format!(
            "requested character too large for encoding: {n}"
        ))),
        _ => char::from_u32(n as u32).ok_or_else(|| {
            ProgramLimitExceeded(format!("requested character not valid for encoding: {n}"))
        }),
    }
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
