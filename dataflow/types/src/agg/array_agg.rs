//! array_agg(value [ORDER BY keys]) as PostgreSQL 15 computes it: every value, NULLs included,
//! in ORDER BY order; NULL over no rows.
//!
//! The planner packs a row's value and sort keys into one array datum
//! (`VariadicFunc::ArrayAggInput`), which is never NULL, so the reduction keeps rows whose
//! value is NULL (it skips NULL arguments). The aggregate sorts a group's packed rows by the
//! keys in the directions of [`KeyOrder`] (rows whose keys tie keep the packed arrays' order,
//! where PostgreSQL's is arbitrary) and repeats each value by its multiplicity. Like
//! string_agg it is order-dependent, so a view recomputes a group's array from its rows.

use crate::agg::KeyOrder;
use crate::datum::Datum;
use crate::error::EvalError;

/// The aggregate over packed rows with multiplicities.
pub(crate) fn eval<'a>(
    order: KeyOrder,
    values: impl Iterator<Item = (&'a Datum, i64)>,
) -> Result<Datum, EvalError> {
    let mut rows: Vec<(&[Datum], i64)> = Vec::new();
    for (d, n) in values {
        match d {
            Datum::Array(packed) if !packed.is_empty() => rows.push((packed, n)),
            other => return Err(EvalError::Internal(format!("array_agg over {other:?}"))),
        }
    }
    if rows.is_empty() {
        return Ok(Datum::Null);
    }
    rows.sort_by(|(a, _), (b, _)| order.cmp(&a[1..], &b[1..]));
    let mut out = Vec::new();
    for (row, n) in rows {
        out.extend(std::iter::repeat_n(row[0].clone(), n as usize));
    }
    Ok(Datum::Array(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_nulls_and_orders_by_keys() {
        let row = |v: Datum, k: i32| Datum::Array(vec![v, Datum::Int32(k)]);
        let rows = [
            row(Datum::Int32(10), 2),
            row(Datum::Null, 1),
            row(Datum::Int32(30), 3),
        ];
        let desc = KeyOrder::new(&[(true, false)]).unwrap();
        let out = eval(desc, rows.iter().map(|d| (d, 1 + i64::from(d == &rows[0])))).unwrap();
        let want = [30, 10, 10].map(Datum::Int32).to_vec();
        let mut want = want;
        want.push(Datum::Null);
        assert_eq!(out, Datum::Array(want));
        assert_eq!(eval(desc, std::iter::empty()).unwrap(), Datum::Null);
    }
}
