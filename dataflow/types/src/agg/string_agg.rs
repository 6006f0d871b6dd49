//! string_agg(value, delimiter [ORDER BY keys]) as PostgreSQL 15 computes it: the non-NULL
//! values in ORDER BY order, each after its own row's delimiter except the first (a NULL
//! delimiter adds nothing); NULL when no value is.
//!
//! A reduction gives each aggregate one value per row, so the planner packs the value, the
//! delimiter and the sort keys of a row into one array datum (`VariadicFunc::StringAggInput`,
//! [`pack`]): NULL when the value is, so that the reduction skips it as it skips every NULL
//! argument. The aggregate unpacks a group's rows, sorts them by the keys with SQL's
//! comparison in the directions of [`KeyOrder`], and joins them. Rows whose keys tie keep the
//! order of their packed arrays, where PostgreSQL's order is arbitrary.
//! Being order-dependent, the aggregate is not accumulable: a view recomputes a group's
//! string from its rows when they change, as it does min and max.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::datum::Datum;
use crate::error::EvalError;

/// The directions of the ORDER BY keys: for key `i`, bit `2i` is DESC and bit `2i + 1` NULLS
/// FIRST.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct KeyOrder(pub u32);

impl KeyOrder {
    /// At most this many keys.
    pub const MAX_KEYS: usize = 16;

    /// The order of `keys`, each `(descending, nulls_first)`; `None` for too many.
    pub fn new(keys: &[(bool, bool)]) -> Option<KeyOrder> {
        if keys.len() > Self::MAX_KEYS {
            return None;
        }
        Some(KeyOrder(keys.iter().enumerate().fold(
            0,
            |bits, (i, (desc, nf))| {
                bits | u32::from(*desc) << (2 * i) | u32::from(*nf) << (2 * i + 1)
            },
        )))
    }

    pub(crate) fn cmp(self, a: &[Datum], b: &[Datum]) -> Ordering {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            let desc = self.0 >> (2 * i) & 1 == 1;
            let nulls_first = self.0 >> (2 * i + 1) & 1 == 1;
            let o = match (x.is_null(), y.is_null()) {
                (true, true) => Ordering::Equal,
                (true, false) if nulls_first => Ordering::Less,
                (true, false) => Ordering::Greater,
                (false, true) if nulls_first => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) if desc => y.sql_cmp(x),
                (false, false) => x.sql_cmp(y),
            };
            if o.is_ne() {
                return o;
            }
        }
        Ordering::Equal
    }
}

/// One row's `[value, delimiter, keys...]` as one datum: NULL when the value is.
pub(crate) fn pack(args: &[Datum]) -> Datum {
    if args.first().is_none_or(Datum::is_null) {
        return Datum::Null;
    }
    Datum::Array(args.to_vec())
}

/// The aggregate over packed rows with multiplicities (no NULLs among them).
pub(crate) fn eval<'a>(
    order: KeyOrder,
    values: impl Iterator<Item = (&'a Datum, i64)>,
) -> Result<Datum, EvalError> {
    let mut rows: Vec<(Vec<Datum>, i64)> = Vec::new();
    for (d, n) in values {
        let Datum::Array(packed) = d else {
            return Err(EvalError::Internal(format!("string_agg over {d:?}")));
        };
        rows.push((packed.clone(), n));
    }
    rows.sort_by(|(a, _), (b, _)| order.cmp(&a[2..], &b[2..]));
    let mut out: Option<String> = None;
    for (row, n) in &rows {
        let (Datum::String(value), delimiter) = (&row[0], &row[1]) else {
            return Err(EvalError::Internal(format!("string_agg row {row:?}")));
        };
        for _ in 0..*n {
            match &mut out {
                None => out = Some(value.clone()),
                Some(s) => {
                    if let Datum::String(delimiter) = delimiter {
                        s.push_str(delimiter);
                    }
                    s.push_str(value);
                }
            }
        }
    }
    Ok(out.map_or(Datum::Null, Datum::String))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interval::Interval;
    use chrono::NaiveDate;
    use ordered_float::OrderedFloat;

    #[test]
    fn packs_and_orders_like_postgres() {
        let s = |v: &str| Datum::String(v.into());
        let rows = [
            pack(&[s("b"), s(","), Datum::Int32(2)]),
            pack(&[s("a;s3:x"), s("-"), Datum::Int32(1)]),
            pack(&[Datum::Null, s(","), Datum::Int32(0)]),
            pack(&[s("c"), Datum::Null, Datum::Null]),
        ];
        assert_eq!(rows[2], Datum::Null);
        let present: Vec<_> = rows.iter().filter(|d| !d.is_null()).collect();
        let asc = KeyOrder::new(&[(false, false)]).unwrap();
        let out = eval(asc, present.iter().map(|d| (*d, 1))).unwrap();
        assert_eq!(out, s("a;s3:x,bc"));
        let desc = KeyOrder::new(&[(true, true)]).unwrap();
        let out = eval(desc, present.iter().map(|d| (*d, 2))).unwrap();
        assert_eq!(out, s("cc,b,b-a;s3:x-a;s3:x"));
        let all = [
            Datum::Float64(OrderedFloat(f64::NAN)),
            Datum::Numeric("1.50".parse().unwrap()),
            Datum::Interval(Interval::new(-1, 2, -3)),
            Datum::Timestamp(
                NaiveDate::from_ymd_opt(2020, 2, 29)
                    .unwrap()
                    .and_hms_micro_opt(1, 2, 3, 456_789)
                    .unwrap(),
            ),
        ];
        let packed = pack(&all);
        assert_eq!(packed, Datum::Array(all.to_vec()));
    }
}
