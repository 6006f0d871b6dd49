//! string_agg(value, delimiter [ORDER BY keys]) as PostgreSQL 15 computes it: the non-NULL
//! values in ORDER BY order, each after its own row's delimiter except the first (a NULL
//! delimiter adds nothing); NULL when no value is.
//!
//! A reduction gives each aggregate one value per row, so the planner packs the value, the
//! delimiter and the sort keys of a row into one text datum (`VariadicFunc::StringAggInput`,
//! [`pack`]): NULL when the value is, so that the reduction skips it as it skips every NULL
//! argument. The encoding is private to this file and exact for every datum (floats by their
//! bits, numerics with their scale). The aggregate unpacks a group's rows, sorts them by the
//! keys with SQL's comparison in the directions of [`KeyOrder`], and joins them. Rows whose
//! keys tie keep the order of their packed texts, where PostgreSQL's order is arbitrary.
//! Being order-dependent, the aggregate is not accumulable: a view recomputes a group's
//! string from its rows when they change, as it does min and max.

use std::cmp::Ordering;

use chrono::{Datelike, NaiveDate, NaiveTime, Timelike};
use ordered_float::OrderedFloat;
use serde::{Deserialize, Serialize};

use crate::datum::Datum;
use crate::error::EvalError;
use crate::interval::Interval;

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

    fn cmp(self, a: &[Datum], b: &[Datum]) -> Ordering {
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
    let mut out = String::new();
    for d in args {
        encode(d, &mut out);
    }
    Datum::String(out)
}

/// The aggregate over packed rows with multiplicities (no NULLs among them).
pub(crate) fn eval<'a>(
    order: KeyOrder,
    values: impl Iterator<Item = (&'a Datum, i64)>,
) -> Result<Datum, EvalError> {
    let mut rows: Vec<(Vec<Datum>, i64)> = Vec::new();
    for (d, n) in values {
        let Datum::String(packed) = d else {
            return Err(EvalError::Internal(format!("string_agg over {d:?}")));
        };
        rows.push((decode(packed)?, n));
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

fn encode(d: &Datum, out: &mut String) {
    use std::fmt::Write;
    let _ = match d {
        Datum::Null => write!(out, "N;"),
        Datum::Bool(b) => write!(out, "b{};", u8::from(*b)),
        Datum::Int16(v) => write!(out, "h{v};"),
        Datum::Int32(v) => write!(out, "i{v};"),
        Datum::Int64(v) => write!(out, "l{v};"),
        Datum::Float32(v) => write!(out, "f{};", v.0.to_bits()),
        Datum::Float64(v) => write!(out, "g{};", v.0.to_bits()),
        Datum::Numeric(v) => write!(out, "n{v};"),
        Datum::String(s) => write!(out, "s{}:{s}", s.len()),
        Datum::Date(v) => write!(out, "d{};", v.num_days_from_ce()),
        Datum::Timestamp(v) => write!(
            out,
            "t{},{},{};",
            v.date().num_days_from_ce(),
            v.time().num_seconds_from_midnight(),
            v.time().nanosecond()
        ),
        Datum::Interval(v) => {
            let (m, days, us) = v.fields();
            write!(out, "v{m},{days},{us};")
        }
        Datum::Time(v) => write!(out, "T{v};"),
        Datum::Uuid(v) => write!(out, "u{};", u128::from_be_bytes(*v)),
        Datum::Jsonb(j) => {
            let text = j.to_text();
            write!(out, "j{}:{text}", text.len())
        }
        Datum::Bytes(v) => {
            out.push('x');
            v.iter().for_each(|b| out.push_str(&format!("{b:02x}")));
            write!(out, ";")
        }
    };
}

fn decode(mut s: &str) -> Result<Vec<Datum>, EvalError> {
    let bad = || EvalError::Internal("a packed string_agg row does not decode".into());
    let mut out = Vec::new();
    while let Some(tag) = s.chars().next() {
        s = &s[1..];
        if tag == 's' {
            let (len, rest) = s.split_once(':').ok_or_else(bad)?;
            let len: usize = len.parse().map_err(|_| bad())?;
            let text = rest.get(..len).ok_or_else(bad)?;
            out.push(Datum::String(text.to_string()));
            s = &rest[len..];
            continue;
        }
        let (body, rest) = s.split_once(';').ok_or_else(bad)?;
        s = rest;
        let num = |t: &str| t.parse::<i64>().map_err(|_| bad());
        // The three numbers of a timestamp or an interval.
        let parts = || -> Result<[i64; 3], EvalError> {
            let p: Vec<i64> = body.split(',').map(num).collect::<Result<_, _>>()?;
            <[i64; 3]>::try_from(p).map_err(|_| bad())
        };
        out.push(match tag {
            'N' => Datum::Null,
            'b' => Datum::Bool(body == "1"),
            'h' => Datum::Int16(body.parse().map_err(|_| bad())?),
            'i' => Datum::Int32(body.parse().map_err(|_| bad())?),
            'l' => Datum::Int64(num(body)?),
            'f' => Datum::Float32(OrderedFloat(f32::from_bits(
                body.parse().map_err(|_| bad())?,
            ))),
            'g' => Datum::Float64(OrderedFloat(f64::from_bits(
                body.parse().map_err(|_| bad())?,
            ))),
            'n' => Datum::Numeric(body.parse().map_err(|_| bad())?),
            'd' => Datum::Date(
                NaiveDate::from_num_days_from_ce_opt(body.parse().map_err(|_| bad())?)
                    .ok_or_else(bad)?,
            ),
            't' => {
                let p = parts()?;
                let date = NaiveDate::from_num_days_from_ce_opt(p[0] as i32).ok_or_else(bad)?;
                let time = NaiveTime::from_num_seconds_from_midnight_opt(p[1] as u32, p[2] as u32)
                    .ok_or_else(bad)?;
                Datum::Timestamp(date.and_time(time))
            }
            'v' => {
                let p = parts()?;
                Datum::Interval(Interval::new(p[0] as i32, p[1] as i32, p[2]))
            }
            'T' => Datum::Time(num(body)?),
            'u' => Datum::Uuid(body.parse::<u128>().map_err(|_| bad())?.to_be_bytes()),
            'x' => Datum::Bytes(
                (0..body.len() / 2)
                    .map(|i| u8::from_str_radix(&body[2 * i..2 * i + 2], 16).map_err(|_| bad()))
                    .collect::<Result<_, _>>()?,
            ),
            _ => return Err(bad()),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut packed = String::new();
        all.iter().for_each(|d| encode(d, &mut packed));
        let back = decode(&packed).unwrap();
        assert_eq!(format!("{back:?}"), format!("{all:?}"));
    }
}
