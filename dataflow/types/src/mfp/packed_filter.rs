//! Predicates decided over the packed row itself, without making owned datums: comparisons
//! of columns and literals (a `bpchar` column's text, a date column read as a timestamp),
//! LIKE with a constant pattern (`like_pattern.rs`), joined by AND, OR and NOT, and IS [NOT]
//! NULL — the WHERE clauses of most scans. A column is read where it lies (a string by its
//! bytes, a date by its day number), so a row that a predicate drops costs no allocation.
//!
//! The result is the general evaluation's (`ScalarExpr::eval_predicate`): comparisons use
//! `DatumRef::sql_cmp`, which mirrors `Datum::sql_cmp`, NULL propagates as SQL's three-valued
//! logic, and none of these forms can fail. A value the fast form cannot read (a cast of
//! something that is not a date) leaves the row undecided (`None`), and the caller evaluates
//! the predicate the general way, errors included.

use super::like_pattern::LikePattern;
use super::RowCtx;
use crate::datum::{Datum, Row};
use crate::expr::{BinaryFunc, ScalarExpr, UnaryFunc};
use crate::packed::DatumRef;
use crate::packed::NumericRef;
use crate::scalar::ScalarType;
use std::cmp::Ordering;

/// A predicate in the packed form.
#[derive(Clone, Debug)]
pub(super) enum PackedFilter {
    Compare(BinaryFunc, Operand, Operand),
    And(Box<PackedFilter>, Box<PackedFilter>),
    Or(Box<PackedFilter>, Box<PackedFilter>),
    Not(Box<PackedFilter>),
    /// `IS NULL` (`true`) or `IS NOT NULL` (`false`).
    IsNull(Operand, bool),
    /// `column func 'text'` for a text column (or a `bpchar` column's text, `trim`): the bytes
    /// compared as they lie; `general` for a column that holds no string.
    Text {
        func: BinaryFunc,
        column: usize,
        trim: bool,
        text: String,
        general: Box<PackedFilter>,
    },
    /// `x LIKE 'pattern'`.
    Like(Operand, LikePattern),
    /// `column func date` for a date column (or a date column read as a timestamp, against a
    /// midnight): the day numbers compared without decoding the date; `general` for a column
    /// that holds no date.
    Days {
        func: BinaryFunc,
        column: usize,
        days: i32,
        general: Box<PackedFilter>,
    },
}

/// A value a comparison reads.
#[derive(Clone, Debug)]
pub(super) enum Operand {
    /// An input column (a slot below the row's arity).
    Column(usize),
    /// A literal of a scalar kind, read in place (`borrowed`).
    Literal(Datum),
    /// Another literal, packed as a one-column row.
    PackedLiteral(Row),
    /// `bpchartotext(x)`: the text without its trailing blanks.
    BpcharToText(Box<Operand>),
    /// `x::timestamp` of a date: its midnight.
    DateAsTimestamp(Box<Operand>),
}

/// A truth value of SQL: `None` is NULL.
type Truth = Option<bool>;

impl PackedFilter {
    /// The packed form of `e`, if it has one, for rows of `arity` input columns.
    pub(super) fn compile(e: &ScalarExpr, arity: usize) -> Option<PackedFilter> {
        use BinaryFunc::*;
        match e {
            ScalarExpr::Binary { func, left, right } => match func {
                Eq | NotEq | Lt | Lte | Gt | Gte => {
                    let (l, r) = (
                        Operand::compile(left, arity)?,
                        Operand::compile(right, arity)?,
                    );
                    let general = PackedFilter::Compare(*func, l, r);
                    if let Some((func, column, days)) = days_compared(&general) {
                        return Some(PackedFilter::Days {
                            func,
                            column,
                            days,
                            general: Box::new(general),
                        });
                    }
                    if let Some((func, column, trim, text)) = text_compared(&general) {
                        return Some(PackedFilter::Text {
                            func,
                            column,
                            trim,
                            text,
                            general: Box::new(general),
                        });
                    }
                    Some(general)
                }
                Like => match right.as_ref() {
                    ScalarExpr::Literal(Datum::String(p)) => Some(PackedFilter::Like(
                        Operand::compile(left, arity)?,
                        LikePattern::compile(p)?,
                    )),
                    _ => None,
                },
                And => Some(PackedFilter::And(
                    Box::new(PackedFilter::compile(left, arity)?),
                    Box::new(PackedFilter::compile(right, arity)?),
                )),
                Or => Some(PackedFilter::Or(
                    Box::new(PackedFilter::compile(left, arity)?),
                    Box::new(PackedFilter::compile(right, arity)?),
                )),
                _ => None,
            },
            ScalarExpr::Unary { func, expr } => match func {
                UnaryFunc::Not => Some(PackedFilter::Not(Box::new(PackedFilter::compile(
                    expr, arity,
                )?))),
                UnaryFunc::IsNull => {
                    Some(PackedFilter::IsNull(Operand::compile(expr, arity)?, true))
                }
                UnaryFunc::IsNotNull => {
                    Some(PackedFilter::IsNull(Operand::compile(expr, arity)?, false))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether the row passes (only TRUE passes), or `None` if the packed form cannot tell.
    pub(super) fn passes(&self, ctx: &mut RowCtx<'_>) -> Option<bool> {
        Some(self.truth(ctx)? == Some(true))
    }

    fn truth(&self, ctx: &mut RowCtx<'_>) -> Option<Truth> {
        Some(match self {
            PackedFilter::Compare(func, l, r) => {
                // Two date columns: their day numbers.
                if let (Operand::Column(a), Operand::Column(b)) = (l, r) {
                    if let (Some(Some(x)), Some(Some(y))) = (date_days(ctx, *a), date_days(ctx, *b))
                    {
                        return Some(Some(compares(*func, x.cmp(&y))));
                    }
                }
                let (l, r) = (l.value(ctx)?, r.value(ctx)?);
                if l.is_null() || r.is_null() {
                    return Some(None);
                }
                Some(compares(*func, l.sql_cmp(r)))
            }
            // Both sides are read (nothing here can fail, so the order of reading is free).
            PackedFilter::And(l, r) => match (l.truth(ctx)?, r.truth(ctx)?) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (None, _) | (_, None) => None,
                _ => Some(true),
            },
            PackedFilter::Or(l, r) => match (l.truth(ctx)?, r.truth(ctx)?) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (None, _) | (_, None) => None,
                _ => Some(false),
            },
            PackedFilter::Not(p) => p.truth(ctx)?.map(|b| !b),
            PackedFilter::IsNull(x, null) => Some(x.value(ctx)?.is_null() == *null),
            PackedFilter::Text {
                func,
                column,
                trim,
                text,
                general,
            } => {
                ctx.scan_to(*column);
                match ctx.slice.string_bytes_at(ctx.offsets[*column]) {
                    Some(Some(mut b)) => {
                        if *trim {
                            while let [rest @ .., b' '] = b {
                                b = rest;
                            }
                        }
                        Some(compares(*func, b.cmp(text.as_bytes())))
                    }
                    Some(None) => None,
                    None => return general.truth(ctx),
                }
            }
            PackedFilter::Like(x, pattern) => match x.value(ctx)? {
                DatumRef::String(s) => Some(pattern.matches(s)),
                DatumRef::Null => None,
                _ => return None,
            },
            PackedFilter::Days {
                func,
                column,
                days,
                general,
            } => match date_days(ctx, *column) {
                Some(Some(d)) => Some(compares(*func, d.cmp(days))),
                Some(None) => None,
                None => return general.truth(ctx),
            },
        })
    }
}

/// The day number of the date in `column` (`PackedSlice::date_days_at`).
fn date_days(ctx: &mut RowCtx<'_>, column: usize) -> Option<Option<i32>> {
    ctx.scan_to(column);
    ctx.slice.date_days_at(ctx.offsets[column])
}

/// A comparison of a date column with a date, or of a date column read as a timestamp with a
/// midnight, as `(func, column, day number)` with the column on the left.
fn days_compared(cmp: &PackedFilter) -> Option<(BinaryFunc, usize, i32)> {
    use chrono::Datelike;
    let (func, column, literal) = against_literal(cmp)?;
    match (column, literal) {
        (Operand::Column(c), Datum::Date(d)) => Some((func, *c, d.num_days_from_ce())),
        (Operand::DateAsTimestamp(x), Datum::Timestamp(t))
            if t.time() == chrono::NaiveTime::MIN =>
        {
            match x.as_ref() {
                Operand::Column(c) => Some((func, *c, t.date().num_days_from_ce())),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A comparison of a text column (or a `bpchar` column's text) with a text literal, as
/// `(func, column, trimmed, text)` with the column on the left.
fn text_compared(cmp: &PackedFilter) -> Option<(BinaryFunc, usize, bool, String)> {
    let (func, column, Datum::String(text)) = against_literal(cmp)? else {
        return None;
    };
    match column {
        Operand::Column(c) => Some((func, *c, false, text.clone())),
        Operand::BpcharToText(x) => match x.as_ref() {
            Operand::Column(c) => Some((func, *c, true, text.clone())),
            _ => None,
        },
        _ => None,
    }
}

/// A comparison of an operand with a literal, as `(func, operand, literal)` with the operand
/// on the left.
fn against_literal(cmp: &PackedFilter) -> Option<(BinaryFunc, &Operand, &Datum)> {
    match cmp {
        PackedFilter::Compare(func, x, Operand::Literal(d)) => Some((*func, x, d)),
        PackedFilter::Compare(func, Operand::Literal(d), x) => Some((flipped(*func), x, d)),
        _ => None,
    }
}

/// The comparison with its operands swapped: `a < b` is `b > a`.
fn flipped(func: BinaryFunc) -> BinaryFunc {
    match func {
        BinaryFunc::Lt => BinaryFunc::Gt,
        BinaryFunc::Lte => BinaryFunc::Gte,
        BinaryFunc::Gt => BinaryFunc::Lt,
        BinaryFunc::Gte => BinaryFunc::Lte,
        f => f,
    }
}

fn compares(func: BinaryFunc, o: Ordering) -> bool {
    match func {
        BinaryFunc::Eq => o.is_eq(),
        BinaryFunc::NotEq => o.is_ne(),
        BinaryFunc::Lt => o.is_lt(),
        BinaryFunc::Lte => o.is_le(),
        BinaryFunc::Gt => o.is_gt(),
        BinaryFunc::Gte => o.is_ge(),
        _ => unreachable!("only comparisons are compiled"),
    }
}

impl Operand {
    fn compile(e: &ScalarExpr, arity: usize) -> Option<Operand> {
        match e {
            ScalarExpr::Column(c) if *c < arity => Some(Operand::Column(*c)),
            ScalarExpr::Literal(d) if borrowed(d).is_some() => Some(Operand::Literal(d.clone())),
            ScalarExpr::Literal(d) => Some(Operand::PackedLiteral(Row::new(vec![d.clone()]))),
            ScalarExpr::Unary {
                func: UnaryFunc::BpcharToText,
                expr,
            } => Some(Operand::BpcharToText(Box::new(Operand::compile(
                expr, arity,
            )?))),
            ScalarExpr::Unary {
                func: UnaryFunc::Cast(ScalarType::Timestamp | ScalarType::TimestampOf(_)),
                expr,
            } => Some(Operand::DateAsTimestamp(Box::new(Operand::compile(
                expr, arity,
            )?))),
            _ => None,
        }
    }

    /// The value, borrowed from the row or the literal; `None` if it cannot be read here.
    fn value<'a, 'r: 'a>(&'a self, ctx: &mut RowCtx<'r>) -> Option<DatumRef<'a>> {
        match self {
            Operand::Column(c) => {
                ctx.scan_to(*c);
                Some(ctx.slice.read_at(ctx.offsets[*c]).0)
            }
            Operand::Literal(d) => borrowed(d),
            Operand::PackedLiteral(row) => row.iter().next(),
            Operand::BpcharToText(x) => match x.value(ctx)? {
                DatumRef::String(s) => Some(DatumRef::String(s.trim_end_matches(' '))),
                DatumRef::Null => Some(DatumRef::Null),
                _ => None,
            },
            Operand::DateAsTimestamp(x) => match x.value(ctx)? {
                DatumRef::Date(d) => Some(DatumRef::Timestamp(d.and_time(chrono::NaiveTime::MIN))),
                DatumRef::Null => Some(DatumRef::Null),
                _ => None,
            },
        }
    }
}

/// A scalar literal as a borrowed datum, without packing and reading it again for every row;
/// `None` for the kinds held only packed (`Operand::PackedLiteral`).
fn borrowed(d: &Datum) -> Option<DatumRef<'_>> {
    Some(match d {
        Datum::Null => DatumRef::Null,
        Datum::Bool(b) => DatumRef::Bool(*b),
        Datum::Int16(v) => DatumRef::Int16(*v),
        Datum::Int32(v) => DatumRef::Int32(*v),
        Datum::Int64(v) => DatumRef::Int64(*v),
        Datum::Float32(v) => DatumRef::Float32(*v),
        Datum::Float64(v) => DatumRef::Float64(*v),
        Datum::String(s) => DatumRef::String(s),
        Datum::Date(v) => DatumRef::Date(*v),
        Datum::Timestamp(v) => DatumRef::Timestamp(*v),
        Datum::TimestampTz(v) => DatumRef::TimestampTz(*v),
        Datum::Interval(v) => DatumRef::Interval(*v),
        Datum::Time(v) => DatumRef::Time(*v),
        // The packed form of a numeric held inline is its mantissa and scale.
        Datum::Numeric(n) => match n.small_parts() {
            Some((mantissa, scale)) => DatumRef::Numeric(NumericRef::Small {
                mantissa,
                scale: u8::try_from(scale).ok()?,
            }),
            None => return None,
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A literal read in place compares as the same literal packed and read, and as the
    /// owned datums compare.
    #[test]
    fn borrowed_literals_compare_as_packed_ones() {
        let num = |s: &str| Datum::Numeric(s.parse().unwrap());
        let day = chrono::NaiveDate::from_ymd_opt(1998, 12, 1).unwrap();
        let values = vec![
            Datum::Null,
            num("0.05"),
            num("0.050"),
            num("-3"),
            num("79228162514264337593543950335"),
            num("NaN"),
            Datum::Float64(f64::NAN.into()),
            Datum::Float64((-0.0).into()),
            Datum::Float64(0.0.into()),
            Datum::String("MAIL".into()),
            Datum::String("MAIL ".into()),
            Datum::Date(day),
            Datum::Timestamp(day.and_hms_opt(0, 0, 0).unwrap()),
            Datum::Interval(crate::Interval::new(0, 30, 0)),
            Datum::Interval(crate::Interval::new(1, 0, 0)),
            Datum::Int32(-1),
            Datum::Int64(7),
        ];
        let packed: Vec<Row> = values.iter().map(|v| Row::new(vec![v.clone()])).collect();
        fn read(r: &Row) -> DatumRef<'_> {
            r.iter().next().unwrap()
        }
        for (a, pa) in values.iter().zip(&packed) {
            for (b, pb) in values.iter().zip(&packed) {
                let want = a.sql_cmp(b);
                assert_eq!(read(pa).sql_cmp(read(pb)), want, "{a:?} {b:?}");
                if let (Some(x), Some(y)) = (borrowed(a), borrowed(b)) {
                    assert_eq!(x.sql_cmp(y), want, "{a:?} {b:?}");
                    assert_eq!(x.sql_cmp(read(pb)), want, "{a:?} {b:?}");
                }
            }
        }
    }
}
