//! The array functions and operators, evaluated over `Datum::Array` values with PostgreSQL
//! 15's rules for NULLs: subscripts out of range are NULL, `array_append(NULL, x)` is `{x}`,
//! `x = ANY(a)` is NULL when no element matches but some comparison was NULL (and false over
//! an empty array even for a NULL `x`), containment never matches a NULL element.
//!
//! The planner has made the operand types agree (an element is of the array's element type),
//! so elements compare with `Datum::sql_cmp`.

use crate::datum::Datum;
use crate::error::EvalError;
use crate::expr::BinaryFunc;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// The comparison of `x op ANY|ALL (array)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CmpOp {
    Eq,
    NotEq,
    Lt,
    Lte,
    Gt,
    Gte,
}

impl CmpOp {
    pub fn symbol(&self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::NotEq => "<>",
            CmpOp::Lt => "<",
            CmpOp::Lte => "<=",
            CmpOp::Gt => ">",
            CmpOp::Gte => ">=",
        }
    }

    fn holds(&self, o: Ordering) -> bool {
        match self {
            CmpOp::Eq => o.is_eq(),
            CmpOp::NotEq => o.is_ne(),
            CmpOp::Lt => o.is_lt(),
            CmpOp::Lte => o.is_le(),
            CmpOp::Gt => o.is_gt(),
            CmpOp::Gte => o.is_ge(),
        }
    }
}

/// Evaluates one of the binary array functions (`BinaryFunc::ArrayIndex` and the others).
pub fn eval_binary(func: BinaryFunc, l: Datum, r: Datum) -> Result<Datum, EvalError> {
    match func {
        BinaryFunc::ArrayIndex => subscript(l, r, 1),
        BinaryFunc::ArrayDim(what) => dimension(l, r, what),
        BinaryFunc::ArrayPosition => position(l, r),
        BinaryFunc::ArrayRemove => remove(l, r),
        BinaryFunc::ArrayAppend => append(l, r, false),
        BinaryFunc::ArrayPrepend => append(r, l, true),
        BinaryFunc::ArrayCat => cat(l, r),
        BinaryFunc::ArrayContains => contains(l, r),
        BinaryFunc::ArrayOverlap => overlap(l, r),
        BinaryFunc::ArrayAny { op, all } => quantified(op, all, l, r),
        other => Err(EvalError::Internal(format!(
            "{other:?} is no array function"
        ))),
    }
}

fn elems(d: Datum) -> Result<Vec<Datum>, EvalError> {
    match d {
        Datum::Array(a) => Ok(a),
        Datum::Int2Vector(v) => Ok(crate::array::int2vector::elements(&v)),
        Datum::Record(fields) => Ok(fields),
        other => Err(EvalError::Internal(format!(
            "an array expected, got {other:?}"
        ))),
    }
}

fn int(d: &Datum) -> Result<i64, EvalError> {
    match d {
        Datum::Int16(i) => Ok(i64::from(*i)),
        Datum::Int32(i) => Ok(i64::from(*i)),
        Datum::Int64(i) => Ok(*i),
        other => Err(EvalError::Internal(format!(
            "an integer expected, got {other:?}"
        ))),
    }
}

/// `x op ANY (a)` (`all` false) or `x op ALL (a)`: SQL's OR (AND) of the comparisons.
pub fn quantified(op: CmpOp, all: bool, x: Datum, a: Datum) -> Result<Datum, EvalError> {
    if a.is_null() {
        return Ok(Datum::Null);
    }
    let mut unknown = false;
    for e in elems(a)? {
        if x.is_null() || e.is_null() {
            unknown = true;
            continue;
        }
        if op.holds(x.sql_cmp(&e)) != all {
            return Ok(Datum::Bool(!all));
        }
    }
    Ok(if unknown {
        Datum::Null
    } else {
        Datum::Bool(all)
    })
}

/// `a[i]` (1-based; `lower` is the first subscript, 0 for `int2vector`).
pub fn subscript(a: Datum, i: Datum, lower: i64) -> Result<Datum, EvalError> {
    if a.is_null() || i.is_null() {
        return Ok(Datum::Null);
    }
    let lower = if matches!(a, Datum::Int2Vector(_)) {
        0
    } else {
        lower
    };
    let i = int(&i)? - lower;
    let mut a = elems(a)?;
    Ok(match usize::try_from(i) {
        Ok(i) if i < a.len() => a.swap_remove(i),
        _ => Datum::Null,
    })
}

/// `a[lo:hi]`, each bound already defaulted to the array's own where omitted: the elements
/// between them, `{}` when none is.
pub fn slice(a: Datum, lo: Datum, hi: Datum) -> Result<Datum, EvalError> {
    if a.is_null() || lo.is_null() || hi.is_null() {
        return Ok(Datum::Null);
    }
    let a = elems(a)?;
    let lo = int(&lo)?.max(1);
    let hi = int(&hi)?.min(a.len() as i64);
    if lo > hi {
        return Ok(Datum::Array(Vec::new()));
    }
    Ok(Datum::Array(a[(lo - 1) as usize..hi as usize].to_vec()))
}

/// array_length (`upper` false: the count) or array_upper of dimension `dim`, and
/// array_lower (`lower` true): NULL for an empty array or another dimension.
pub fn dimension(a: Datum, dim: Datum, what: Dimension) -> Result<Datum, EvalError> {
    if a.is_null() || dim.is_null() {
        return Ok(Datum::Null);
    }
    // An int2vector's subscripts start at 0.
    let lower = if matches!(a, Datum::Int2Vector(_)) {
        0
    } else {
        1
    };
    let n = elems(a)?.len() as i32;
    if int(&dim)? != 1 || n == 0 {
        return Ok(Datum::Null);
    }
    Ok(Datum::Int32(match what {
        Dimension::Length => n,
        Dimension::Upper => lower + n - 1,
        Dimension::Lower => lower,
    }))
}

/// Which of a dimension's facts `dimension` returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Dimension {
    Length,
    Lower,
    Upper,
}

/// cardinality(a): the number of elements (0 for `{}`).
pub fn cardinality(a: Datum) -> Result<Datum, EvalError> {
    Ok(Datum::Int32(elems(a)?.len() as i32))
}

/// array_position(a, x): the first subscript whose element is not distinct from `x`.
pub fn position(a: Datum, x: Datum) -> Result<Datum, EvalError> {
    if a.is_null() {
        return Ok(Datum::Null);
    }
    let found = elems(a)?
        .iter()
        .position(|e| match (e.is_null(), x.is_null()) {
            (true, true) => true,
            (false, false) => e.sql_cmp(&x).is_eq(),
            _ => false,
        });
    Ok(found.map_or(Datum::Null, |i| Datum::Int32(i as i32 + 1)))
}

/// Whether two elements are not distinct (NULL matches NULL).
fn same(e: &Datum, x: &Datum) -> bool {
    match (e.is_null(), x.is_null()) {
        (true, true) => true,
        (false, false) => e.sql_cmp(x).is_eq(),
        _ => false,
    }
}

/// array_remove(a, x).
pub fn remove(a: Datum, x: Datum) -> Result<Datum, EvalError> {
    if a.is_null() {
        return Ok(Datum::Null);
    }
    let kept = elems(a)?.into_iter().filter(|e| !same(e, &x)).collect();
    Ok(Datum::Array(kept))
}

/// array_replace(a, x, y).
pub fn replace(args: Vec<Datum>) -> Result<Datum, EvalError> {
    let [a, x, y] = <[Datum; 3]>::try_from(args)
        .map_err(|a| EvalError::Internal(format!("array_replace of {} arguments", a.len())))?;
    if a.is_null() {
        return Ok(Datum::Null);
    }
    let out = elems(a)?
        .into_iter()
        .map(|e| if same(&e, &x) { y.clone() } else { e })
        .collect();
    Ok(Datum::Array(out))
}

/// array_append(a, x), array_prepend(x, a) (`front`), array_cat(a, b): a NULL array counts
/// as empty (array_cat of two NULLs is NULL).
pub fn append(a: Datum, x: Datum, front: bool) -> Result<Datum, EvalError> {
    let mut v = if a.is_null() { Vec::new() } else { elems(a)? };
    if front {
        v.insert(0, x);
    } else {
        v.push(x);
    }
    Ok(Datum::Array(v))
}

pub fn cat(a: Datum, b: Datum) -> Result<Datum, EvalError> {
    Ok(match (a, b) {
        (Datum::Null, b) => b,
        (a, Datum::Null) => a,
        (a, b) => {
            let mut v = elems(a)?;
            v.extend(elems(b)?);
            Datum::Array(v)
        }
    })
}

/// `a @> b`: every element of `b` is some element of `a` (NULLs match nothing).
pub fn contains(a: Datum, b: Datum) -> Result<Datum, EvalError> {
    if a.is_null() || b.is_null() {
        return Ok(Datum::Null);
    }
    let (a, b) = (elems(a)?, elems(b)?);
    let found = |x: &Datum| !x.is_null() && a.iter().any(|y| !y.is_null() && y.sql_cmp(x).is_eq());
    Ok(Datum::Bool(b.iter().all(found)))
}

/// `a && b`: some element is in both.
pub fn overlap(a: Datum, b: Datum) -> Result<Datum, EvalError> {
    if a.is_null() || b.is_null() {
        return Ok(Datum::Null);
    }
    let (a, b) = (elems(a)?, elems(b)?);
    let found = |x: &Datum| !x.is_null() && a.iter().any(|y| !y.is_null() && y.sql_cmp(x).is_eq());
    Ok(Datum::Bool(b.iter().any(found)))
}

/// array_to_string(a, delimiter [, null_string]): the elements' texts joined; NULL elements
/// are skipped, or written as `null_string` when it is given and not NULL.
pub fn to_string(args: Vec<Datum>) -> Result<Datum, EvalError> {
    let mut args = args.into_iter();
    let (a, delim) = (args.next().unwrap_or(Datum::Null), args.next());
    let null_text = args.next().and_then(|d| d.to_text());
    let Some(delim) = delim.and_then(|d| d.to_text()) else {
        return Ok(Datum::Null);
    };
    if a.is_null() {
        return Ok(Datum::Null);
    }
    let mut out = String::new();
    let mut first = true;
    for e in elems(a)? {
        let text = match e.to_text() {
            Some(t) => t,
            None => match &null_text {
                Some(n) => n.clone(),
                None => continue,
            },
        };
        if !first {
            out.push_str(&delim);
        }
        first = false;
        out.push_str(&text);
    }
    Ok(Datum::String(out))
}

/// string_to_array(s, delimiter [, null_string]): `s` split at each delimiter (into
/// characters when the delimiter is NULL, whole when it is empty); pieces equal to
/// `null_string` become NULL. An empty `s` is `{}`.
pub fn from_string(args: Vec<Datum>) -> Result<Datum, EvalError> {
    let mut args = args.into_iter();
    let s = args.next().unwrap_or(Datum::Null);
    let delim = args.next().and_then(|d| d.to_text());
    let null_text = args.next().and_then(|d| d.to_text());
    let Some(s) = s.to_text() else {
        return Ok(Datum::Null);
    };
    if s.is_empty() {
        return Ok(Datum::Array(Vec::new()));
    }
    let pieces: Vec<String> = match delim.as_deref() {
        None => s.chars().map(String::from).collect(),
        Some("") => vec![s],
        Some(d) => s.split(d).map(String::from).collect(),
    };
    Ok(Datum::Array(
        pieces
            .into_iter()
            .map(|p| match &null_text {
                Some(n) if *n == p => Datum::Null,
                _ => Datum::String(p),
            })
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[Option<i32>]) -> Datum {
        Datum::Array(
            v.iter()
                .map(|i| i.map_or(Datum::Null, Datum::Int32))
                .collect(),
        )
    }

    #[test]
    fn any_and_all_follow_sql_nulls() {
        let a = ints(&[Some(1), None, Some(3)]);
        let q = |op, all, x| quantified(op, all, x, a.clone()).unwrap();
        assert_eq!(q(CmpOp::Eq, false, Datum::Int32(3)), Datum::Bool(true));
        assert_eq!(q(CmpOp::Eq, false, Datum::Int32(2)), Datum::Null);
        assert_eq!(q(CmpOp::NotEq, true, Datum::Int32(1)), Datum::Bool(false));
        assert_eq!(q(CmpOp::NotEq, true, Datum::Int32(2)), Datum::Null);
        let empty = quantified(CmpOp::Eq, false, Datum::Null, ints(&[])).unwrap();
        assert_eq!(empty, Datum::Bool(false));
    }

    #[test]
    fn subscripts_and_slices() {
        let a = ints(&[Some(1), Some(2), Some(3)]);
        assert_eq!(
            subscript(a.clone(), Datum::Int32(2), 1).unwrap(),
            Datum::Int32(2)
        );
        assert_eq!(
            subscript(a.clone(), Datum::Int32(0), 1).unwrap(),
            Datum::Null
        );
        assert_eq!(
            subscript(a.clone(), Datum::Int32(4), 1).unwrap(),
            Datum::Null
        );
        assert_eq!(
            slice(a.clone(), Datum::Int32(0), Datum::Int32(2)).unwrap(),
            ints(&[Some(1), Some(2)])
        );
        assert_eq!(
            slice(a, Datum::Int32(3), Datum::Int32(2)).unwrap(),
            ints(&[])
        );
    }
}
