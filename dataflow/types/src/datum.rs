//! Values (`Datum`) and rows (`Row`), with PostgreSQL's text input and output rules.
//!
//! A `Datum` is one SQL value; its variant is fixed by the column's `ScalarType` family (all
//! string types are `String`, all numeric(p,s) are `Numeric`).
//!
//! Two equalities. SQL's (`sql_cmp`) holds between values whose text may differ: `3 = 3.00`,
//! `'1 day' = '24 hours'`, `-0 = 0`. A row's identity must not: `SELECT 3.00 UNION ALL
//! SELECT 3` keeps both texts. So `Datum`'s `Eq` and `Ord` — what arrangements consolidate
//! by — tell such values apart: SQL's order first, the representation (a number's scale, an
//! interval's fields, a zero's sign) breaking its ties. Where SQL equality must decide (join and
//! index keys, GROUP BY, DISTINCT, set operations), the runtime keys rows by `canonical`, one
//! chosen representation per SQL-equal class. NULL sorts first; SQL's NULL semantics (NULL
//! yields NULL) are the expression evaluator's.
//! `uuid`, `bytea` and `time` have one text per value, so they need no canonical form: a
//! uuid and a bytea order as their bytes (PostgreSQL's memcmp), a time as its microseconds.
//! `Row` is the owned record that dataflows move and arrange: a packed row (`packed.rs`), read
//! through borrowed `DatumRef`s (`get`, `iter`) or unpacked into owned datums (`datums`).

use crate::datetime;
use crate::error::EvalError;
use crate::interval::Interval;
use crate::numeric::Numeric;
use crate::packed::{DatumRef, PackedIter, PackedRow, RowPacker};
use crate::scalar::ScalarType;
use chrono::{NaiveDate, NaiveDateTime};
use ordered_float::OrderedFloat;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt::{self, Write};

/// One SQL value.
// Hash is by SQL value (`Numeric` and `Interval` hash their value), which SQL-equal values
// share, so values equal by the representation order below hash alike too.
#[allow(clippy::derived_hash_with_manual_eq)]
#[derive(Clone, Debug, Hash, Serialize, Deserialize)]
pub enum Datum {
    Null,
    Bool(bool),
    Int16(i16),
    Int32(i32),
    Int64(i64),
    Float32(OrderedFloat<f32>),
    Float64(OrderedFloat<f64>),
    Numeric(Numeric),
    String(String),
    Date(NaiveDate),
    Timestamp(NaiveDateTime),
    Interval(Interval),
    /// A `time`: microseconds since midnight, 0 to 24:00:00 inclusive.
    Time(i64),
    Uuid([u8; 16]),
    /// A `bytea`.
    Bytes(Vec<u8>),
    /// A `jsonb`, normalized.
    Jsonb(Box<crate::jsonb::Json>),
    /// A one-dimensional array (lower bound 1) of values of its type's element type, or an
    /// `int2vector` (`array.rs`).
    Array(Vec<Datum>),
    /// An `int2vector` (`array/int2vector.rs`).
    Int2Vector(Vec<i16>),
    /// The row `(x, n)` of `_pg_expandarray` (`array/record.rs`).
    Record(Vec<Datum>),
    /// A `timestamp with time zone`: the UTC instant (`datetime/tstz.rs`).
    TimestampTz(NaiveDateTime),
}

impl Datum {
    pub fn is_null(&self) -> bool {
        matches!(self, Datum::Null)
    }

    /// SQL's order of two values of one type: `3 = 3.00`, `'1 day' = '24 hours'`, `-0 = 0`
    /// (NULL first; the evaluator handles NULL before comparing).
    pub fn sql_cmp(&self, other: &Datum) -> Ordering {
        self.compare(other, false)
    }

    /// The representation that stands for every value SQL-equal to this one, or `None` when
    /// this one is it: a number without trailing zeros after the point, an interval as whole
    /// months, days and microseconds of its span, a float's zero without sign.
    pub fn canonical(&self) -> Option<Datum> {
        match self {
            Datum::Numeric(n) if !n.is_trimmed() => Some(Datum::Numeric(n.clone().trim_scale())),
            Datum::Interval(iv) => iv.canonical().map(Datum::Interval),
            Datum::Float32(f) if f.0 == 0.0 && f.0.is_sign_negative() => {
                Some(Datum::Float32(OrderedFloat(0.0)))
            }
            Datum::Float64(f) if f.0 == 0.0 && f.0.is_sign_negative() => {
                Some(Datum::Float64(OrderedFloat(0.0)))
            }
            Datum::Array(a) => crate::array::canonical(a),
            _ => None,
        }
    }

    /// Compares by SQL's order, then (if `representation`) by what SQL equality ignores.
    fn compare(&self, other: &Datum, representation: bool) -> Ordering {
        use Datum::*;
        // Called for every comparison an arrangement makes: generic, so it inlines.
        #[inline]
        fn tie(o: Ordering, representation: bool, rep: impl FnOnce() -> Ordering) -> Ordering {
            if representation {
                o.then_with(rep)
            } else {
                o
            }
        }
        let r = representation;
        match (self, other) {
            (Null, Null) => Ordering::Equal,
            (Bool(a), Bool(b)) => a.cmp(b),
            (Int16(a), Int16(b)) => a.cmp(b),
            (Int32(a), Int32(b)) => a.cmp(b),
            (Int64(a), Int64(b)) => a.cmp(b),
            (Float32(a), Float32(b)) => tie(a.cmp(b), r, || {
                b.0.is_sign_negative().cmp(&a.0.is_sign_negative())
            }),
            (Float64(a), Float64(b)) => tie(a.cmp(b), r, || {
                b.0.is_sign_negative().cmp(&a.0.is_sign_negative())
            }),
            (Numeric(a), Numeric(b)) => tie(a.cmp(b), r, || a.scale().cmp(&b.scale())),
            (String(a), String(b)) => a.cmp(b),
            (Date(a), Date(b)) => a.cmp(b),
            (Timestamp(a), Timestamp(b)) => a.cmp(b),
            (TimestampTz(a), TimestampTz(b)) => a.cmp(b),
            (Interval(a), Interval(b)) => tie(a.cmp(b), r, || a.fields().cmp(&b.fields())),
            (Time(a), Time(b)) => a.cmp(b),
            (Uuid(a), Uuid(b)) => a.cmp(b),
            (Bytes(a), Bytes(b)) => a.cmp(b),
            (Jsonb(a), Jsonb(b)) => a.compare(b, r),
            (Array(a), Array(b)) => crate::array::compare(a, b, r),
            (Int2Vector(a), Int2Vector(b)) => a.cmp(b),
            (Record(a), Record(b)) => crate::array::compare(a, b, r),
            _ => self.rank().cmp(&other.rank()),
        }
    }

    /// The variant's position, ordering values of different types (only NULL against a
    /// value happens in practice).
    fn rank(&self) -> u8 {
        match self {
            Datum::Null => 0,
            Datum::Bool(_) => 1,
            Datum::Int16(_) => 2,
            Datum::Int32(_) => 3,
            Datum::Int64(_) => 4,
            Datum::Float32(_) => 5,
            Datum::Float64(_) => 6,
            Datum::Numeric(_) => 7,
            Datum::String(_) => 8,
            Datum::Date(_) => 9,
            Datum::Timestamp(_) => 10,
            Datum::Interval(_) => 11,
            Datum::Time(_) => 12,
            Datum::Uuid(_) => 13,
            Datum::Bytes(_) => 14,
            Datum::Jsonb(_) => 15,
            Datum::Array(_) => 16,
            Datum::Int2Vector(_) => 17,
            Datum::Record(_) => 18,
            Datum::TimestampTz(_) => 19,
        }
    }

    /// Writes the value in PostgreSQL's text output format. NULL writes nothing; callers that
    /// need a NULL marker check `is_null` first.
    pub fn write_text(&self, out: &mut String) {
        match self {
            Datum::Null => {}
            Datum::Bool(b) => out.push(if *b { 't' } else { 'f' }),
            Datum::Int16(i) => write!(out, "{i}").unwrap(),
            Datum::Int32(i) => write!(out, "{i}").unwrap(),
            Datum::Int64(i) => write!(out, "{i}").unwrap(),
            Datum::Float32(f) => write_float(f.0, f64::from(f.0), 6, out),
            Datum::Float64(f) => write_float(f.0, f.0, 15, out),
            Datum::Numeric(d) => write!(out, "{d}").unwrap(),
            Datum::String(s) => out.push_str(s),
            Datum::Date(d) => datetime::write_date(d, out, true),
            Datum::Timestamp(t) => datetime::write_timestamp(t, out),
            Datum::TimestampTz(t) => {
                datetime::write_timestamptz_styled(t, &datetime::DateSettings::default(), out)
            }
            Datum::Interval(iv) => iv.write_text(out),
            Datum::Time(t) => datetime::write_time(*t, out),
            Datum::Uuid(u) => crate::bytes_text::write_uuid(u, out),
            Datum::Bytes(b) => crate::bytes_text::write_bytea(b, out),
            Datum::Jsonb(j) => j.write(out),
            Datum::Array(a) => crate::array::write(a, out, Datum::write_text),
            Datum::Int2Vector(v) => crate::array::int2vector::write(v, out),
            Datum::Record(f) => crate::array::record::write(f, out, Datum::write_text),
        }
    }

    /// The text form, or `None` for NULL.
    pub fn to_text(&self) -> Option<String> {
        if self.is_null() {
            return None;
        }
        let mut s = String::new();
        self.write_text(&mut s);
        Some(s)
    }

    /// Parses PostgreSQL text input for a value of type `ty`.
    pub fn parse_text(text: &str, ty: &ScalarType) -> Result<Datum, EvalError> {
        let invalid = || EvalError::InvalidTextRepresentation {
            type_name: ty.base().to_string(),
            value: text.to_string(),
        };
        let trimmed = text.trim();
        match ty {
            ScalarType::Bool => match trimmed.to_ascii_lowercase().as_str() {
                "t" | "true" | "yes" | "y" | "on" | "1" => Ok(Datum::Bool(true)),
                "f" | "false" | "no" | "n" | "off" | "0" => Ok(Datum::Bool(false)),
                _ => Err(invalid()),
            },
            ScalarType::Int16 | ScalarType::Int32 => {
                let v: i64 = trimmed.parse().map_err(|_| {
                    if is_integer_syntax(trimmed) {
                        EvalError::OutOfRangeValue {
                            value: text.to_string(),
                            type_name: ty.to_string(),
                        }
                    } else {
                        invalid()
                    }
                })?;
                let out_of_range = || EvalError::OutOfRangeValue {
                    value: text.to_string(),
                    type_name: ty.to_string(),
                };
                if *ty == ScalarType::Int16 {
                    i16::try_from(v)
                        .map(Datum::Int16)
                        .map_err(|_| out_of_range())
                } else {
                    i32::try_from(v)
                        .map(Datum::Int32)
                        .map_err(|_| out_of_range())
                }
            }
            ScalarType::Int64 => trimmed.parse().map(Datum::Int64).map_err(|_| {
                if is_integer_syntax(trimmed) {
                    EvalError::OutOfRangeValue {
                        value: text.to_string(),
                        type_name: ty.to_string(),
                    }
                } else {
                    invalid()
                }
            }),
            ScalarType::Float32 | ScalarType::Float64 => {
                let out_of_range = || EvalError::FloatInputOutOfRange {
                    value: text.to_string(),
                    type_name: ty.to_string(),
                };
                let f = parse_float(trimmed).ok_or_else(invalid)?;
                if out_of_float_range(trimmed, f) {
                    return Err(out_of_range());
                }
                match ty {
                    ScalarType::Float32 => float32(f).map_err(|_| out_of_range()),
                    _ => Ok(Datum::Float64(OrderedFloat(f))),
                }
            }
            ScalarType::Numeric { .. } => {
                let d = Numeric::parse(trimmed).map_err(|e| e.into_eval(text, "numeric"))?;
                Datum::Numeric(d).cast_numeric(ty)
            }
            ScalarType::Text => Ok(Datum::String(text.to_string())),
            ScalarType::VarChar { .. } => Datum::String(text.to_string()).cast_varchar(ty),
            ScalarType::Char { .. } => Datum::String(text.to_string()).cast_char(ty),
            ScalarType::Date => datetime::parse_date_text(text).map(Datum::Date),
            ScalarType::Timestamp => datetime::parse_timestamp(text).map(Datum::Timestamp),
            ScalarType::Interval => Interval::parse(text, None).map(Datum::Interval),
            // Input text of a qualified interval (a constant, a value for such a column):
            // the qualifier steers its reading.
            ScalarType::IntervalOf(t) => t.parse(text).map(Datum::Interval),
            ScalarType::TimestampOf(p) => {
                datetime::round_timestamp(datetime::parse_timestamp(text)?, *p)
                    .map(Datum::Timestamp)
            }
            ScalarType::TimestampTz => {
                datetime::parse_timestamptz(text, &datetime::Zone::UTC).map(Datum::TimestampTz)
            }
            ScalarType::TimestampTzOf(p) => datetime::round_timestamp(
                datetime::parse_timestamptz(text, &datetime::Zone::UTC)?,
                *p,
            )
            .map(Datum::TimestampTz),
            ScalarType::Time => datetime::parse_time(text).map(Datum::Time),
            ScalarType::TimeOf(p) => {
                datetime::parse_time(text).map(|t| Datum::Time(datetime::round_time(t, *p)))
            }
            ScalarType::Uuid => crate::bytes_text::parse_uuid(text).map(Datum::Uuid),
            ScalarType::Bytea => crate::bytes_text::parse_bytea(text).map(Datum::Bytes),
            ScalarType::Jsonb => crate::jsonb::Json::parse(text).map(|j| Datum::Jsonb(Box::new(j))),
            ScalarType::Array(elem) => crate::array::parse(text, elem.get()),
            ScalarType::Int2Vector => crate::array::int2vector::parse(text),
            ScalarType::ExpandedElement(_) => Err(EvalError::Unsupported(
                "input of records (_pg_expandarray's rows)".into(),
            )),
        }
    }

    /// Applies a numeric type's precision and scale: rounds to the scale (half away from
    /// zero, as PostgreSQL does) and checks the precision.
    pub fn cast_numeric(self, ty: &ScalarType) -> Result<Datum, EvalError> {
        match (self, ty) {
            (
                Datum::Numeric(d),
                ScalarType::Numeric {
                    precision: Some(p),
                    scale,
                },
            ) => Ok(Datum::Numeric(d.apply_typmod(*p, scale.unwrap_or(0))?)),
            (other, _) => Ok(other),
        }
    }

    /// Applies a varchar(n) length limit, with PostgreSQL's rule that trailing spaces beyond
    /// the limit are silently cut.
    pub fn cast_varchar(self, ty: &ScalarType) -> Result<Datum, EvalError> {
        let Datum::String(s) = self else {
            return Ok(self);
        };
        if let ScalarType::VarChar {
            max_length: Some(n),
        } = ty
        {
            let kept = varchar_fit(&s, *n as usize)?;
            if kept.len() < s.len() {
                return Ok(Datum::String(kept.to_string()));
            }
        }
        Ok(Datum::String(s))
    }
}

/// A varchar(n) value `s`: itself, or its first `n` characters when only blanks follow them
/// (PostgreSQL cuts those silently); longer is an error (22001).
pub(crate) fn varchar_fit(s: &str, n: usize) -> Result<&str, EvalError> {
    // No more bytes than `n`: no more characters either (the common case, without counting).
    if s.len() <= n {
        return Ok(s);
    }
    match s.char_indices().nth(n) {
        None => Ok(s),
        Some((idx, _)) if s[idx..].chars().all(|c| c == ' ') => Ok(&s[..idx]),
        Some(_) => Err(EvalError::StringTooLong { max_length: n }),
    }
}

/// A char(n) value `s`: the part of it kept and how many blanks pad it to `n` characters; a
/// longer value is an error (22001) unless only blanks are cut.
pub(crate) fn char_fit(s: &str, n: usize) -> Result<(&str, usize), EvalError> {
    // ASCII text has as many characters as bytes.
    let len = match s.is_ascii() {
        true => s.len(),
        false => s.chars().count(),
    };
    if len > n {
        let idx = s.char_indices().nth(n).map(|(i, _)| i).unwrap_or(s.len());
        if s[idx..].chars().all(|c| c == ' ') {
            return Ok((&s[..idx], 0));
        }
        return Err(EvalError::CharTooLong { length: n });
    }
    Ok((s, n - len))
}

impl Datum {
    /// Applies a char(n) length: pads with blanks to `n` characters; a longer value is an
    /// error (22001) unless only blanks are cut, as in PostgreSQL's assignment.
    pub fn cast_char(self, ty: &ScalarType) -> Result<Datum, EvalError> {
        let (Datum::String(s), ScalarType::Char { length: Some(n) }) = (&self, ty) else {
            return Ok(self);
        };
        let (kept, blanks) = char_fit(s, *n as usize)?;
        let mut padded = String::with_capacity(kept.len() + blanks);
        padded.push_str(kept);
        padded.extend(std::iter::repeat_n(' ', blanks));
        Ok(Datum::String(padded))
    }
}

fn is_integer_syntax(s: &str) -> bool {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
}

/// A double as a real: an error when a finite value is too large for float4 (overflow) or a
/// nonzero one too small (underflow), as PostgreSQL's float8-to-float4 conversion.
pub fn float32(f: f64) -> Result<Datum, EvalError> {
    let r = f as f32;
    if r.is_infinite() && f.is_finite() {
        return Err(EvalError::FloatOverflow);
    }
    if r == 0.0 && f != 0.0 {
        return Err(EvalError::FloatUnderflow);
    }
    Ok(Datum::Float32(OrderedFloat(r)))
}

/// Whether the number text `s`, read as `f`, was out of the double range, as strtod's ERANGE
/// tells PostgreSQL: too large (infinite, though no infinity was written), or nonzero digits
/// that read as zero.
fn out_of_float_range(s: &str, f: f64) -> bool {
    let written_infinity = s.to_ascii_lowercase().contains("inf");
    let mantissa = s.split(['e', 'E']).next().unwrap_or("");
    let nonzero = mantissa.chars().any(|c| matches!(c, '1'..='9'));
    (f.is_infinite() && !written_infinity) || (f == 0.0 && nonzero)
}

fn parse_float(s: &str) -> Option<f64> {
    match s.to_ascii_lowercase().as_str() {
        "nan" => Some(f64::NAN),
        "infinity" | "+infinity" | "inf" => Some(f64::INFINITY),
        "-infinity" | "-inf" => Some(f64::NEG_INFINITY),
        other => other.parse().ok(),
    }
}

/// PostgreSQL's float4 and float8 output, with its words for the special values.
fn write_float<F: crate::float_text::PgFloat>(value: F, f: f64, digits: i32, out: &mut String) {
    if f.is_nan() {
        out.push_str("NaN");
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" });
    } else if f == 0.0 {
        out.push_str(if f.is_sign_negative() { "-0" } else { "0" });
    } else {
        crate::float_text::write(value, f < 0.0, digits, out);
    }
}

/// Identity: SQL's order, ties broken by representation (see the module doc).
impl Ord for Datum {
    fn cmp(&self, other: &Datum) -> Ordering {
        self.compare(other, true)
    }
}

impl PartialOrd for Datum {
    fn partial_cmp(&self, other: &Datum) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Datum {
    fn eq(&self, other: &Datum) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Datum {}

/// A record: one datum per column, packed (`packed.rs`): its order and equality are those of
/// its datums as a `Vec<Datum>`.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Row(PackedRow);

impl kpg_sortkey::SortKey for Row {
    const HAS_KEY: bool = true;
    #[inline]
    fn sort_key(&self) -> u64 {
        self.0.sort_key()
    }
    #[inline]
    fn sort_key_prefix(&self) -> (u64, Option<u32>) {
        self.0.sort_key_prefix()
    }
}

impl kpg_sortkey::ArenaCopy for Row {
    const USES_ARENA: bool = true;
    #[inline]
    fn arena_len(&self) -> usize {
        self.0.arena_len()
    }
    #[inline]
    unsafe fn arena_copy(&self, arena: &mut kpg_sortkey::Arena) -> Row {
        // SAFETY: the caller keeps the contract of `ArenaCopy::arena_copy`.
        Row(unsafe { self.0.arena_copy(arena) })
    }
}

impl Row {
    pub fn new(datums: Vec<Datum>) -> Self {
        Row(PackedRow::pack(&datums))
    }

    pub fn empty() -> Self {
        Row(PackedRow::empty())
    }

    /// A row of a packer's datums.
    pub fn from_packed(row: PackedRow) -> Self {
        Row(row)
    }

    pub fn packed(&self) -> &PackedRow {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Column `i`, borrowed.
    pub fn get(&self, i: usize) -> DatumRef<'_> {
        self.0.get(i)
    }

    /// The columns, borrowed.
    pub fn iter(&self) -> PackedIter<'_> {
        self.0.iter()
    }

    pub fn into_datums(self) -> Vec<Datum> {
        self.0.unpack()
    }

    /// The columns, owned.
    pub fn datums(&self) -> Vec<Datum> {
        self.0.unpack()
    }

    /// Whether this row's first columns are `prefix`'s (the encoding is canonical and
    /// self-delimiting, so this is a prefix of bytes).
    pub fn starts_with(&self, prefix: &Row) -> bool {
        self.0.as_bytes().starts_with(prefix.0.as_bytes())
    }

    /// The row made of the given columns of this one.
    pub fn project(&self, columns: &[usize]) -> Row {
        // Columns are copied as bytes, found by one pass over the row.
        let slice = self.0.as_slice();
        let width = columns.iter().max().map_or(0, |m| m + 1);
        let mut offsets: smallvec::SmallVec<[usize; 24]> = smallvec::smallvec![0];
        while offsets.len() <= width {
            offsets.push(slice.skip_at(offsets[offsets.len() - 1]));
        }
        let mut p = RowPacker::new();
        for &c in columns {
            p.extend_packed(slice.between(offsets[c], offsets[c + 1]));
        }
        Row(p.finish())
    }

    /// The row of the datums' `canonical` representations, or `None` when it is this one.
    pub fn canonical(&self) -> Option<Row> {
        // Read in place: most rows are canonical and cost no allocation.
        self.0.as_slice().replace_datums(|d| d.canonical()).map(Row)
    }

    /// The row as its canonical representation (see `canonical`).
    pub fn into_canonical(self) -> Row {
        match self.canonical() {
            Some(c) => c,
            None => self,
        }
    }

    /// Appends one datum as a last column.
    pub fn push(&mut self, datum: Datum) {
        // One packer per thread: appending a table row's position to every row of a large
        // append would otherwise grow a fresh buffer for each (an allocation, a reallocation
        // and two copies a row).
        thread_local! {
            static PACKER: std::cell::RefCell<RowPacker> =
                std::cell::RefCell::new(RowPacker::new());
        }
        PACKER.with(|p| {
            let mut p = p.borrow_mut();
            p.clear();
            p.extend_packed(self.0.as_slice());
            p.push(&datum);
            self.0 = p.finish();
        });
    }

    /// The row without its last column (a stored table row without its position).
    pub fn without_last(&self) -> Row {
        // The bytes before the last datum, found by skipping datums without decoding them.
        let slice = self.0.as_slice();
        let (mut start, mut last) = (0, 0);
        while start < slice.as_bytes().len() {
            last = start;
            start = slice.skip_at(start);
        }
        Row(slice.between(0, last).to_owned_row())
    }

    /// This row followed by `other`'s columns.
    pub fn concat(&self, other: &Row) -> Row {
        Row(self.0.concat(&other.0))
    }
}

impl From<Vec<Datum>> for Row {
    fn from(datums: Vec<Datum>) -> Self {
        Row::new(datums)
    }
}

impl fmt::Display for Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let texts: Vec<String> = self
            .datums()
            .iter()
            .map(|d| d.to_text().unwrap_or_else(|| "NULL".into()))
            .collect();
        write!(f, "({})", texts.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(d: Datum) -> String {
        d.to_text().unwrap()
    }

    /// Found by the random-query test: `ceil(-0.5)` printed `-0`.
    #[test]
    fn numeric_zero_prints_without_sign() {
        let d = |s: &str| s.parse::<Numeric>().unwrap();
        let ceil = d("-0.5").round(0, crate::numeric::Rounding::Ceil).unwrap();
        assert_eq!(text(Datum::Numeric(ceil)), "0");
        assert_eq!(text(Datum::Numeric(d("0.00").neg())), "0.00");
        assert_eq!(text(Datum::Numeric(d("-0.50"))), "-0.50");
    }

    #[test]
    fn float_output_matches_postgres() {
        let cases = [
            (1.5, "1.5"),
            (0.1, "0.1"),
            (1e20, "1e+20"),
            (123456789012345.0, "123456789012345"),
            (1e15, "1e+15"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.25, "-2.25"),
            // Found by the numeric differential test, PostgreSQL 15's output:
            // the float below 1e23 (1e23 itself reads back as the float above it),
            (99999999999999991611392.0, "9.999999999999999e+22"),
            (-99999999999999991611392.0, "-9.999999999999999e+22"),
            (2.372989659007083e16, "2.3729896590070832e+16"),
            // the form chosen by the exponent of the printed digits, not of the value.
            (999999999999999.9, "999999999999999.9"),
            (-0.0000999999999999999, "-9.99999999999999e-05"),
            (100.0, "100"),
            (1234.5, "1234.5"),
        ];
        for (f, want) in cases {
            assert_eq!(text(Datum::Float64(OrderedFloat(f))), want, "{f}");
        }
        for (f, want) in [
            (2506191.3f32, "2.5061912e+06"),
            (343041.62, "343041.62"),
            (63044550.92825, "6.3044552e+07"),
            (1.5, "1.5"),
            (0.0001, "0.0001"),
            (999999.0, "999999"),
            (1000000.0, "1e+06"),
        ] {
            assert_eq!(text(Datum::Float32(OrderedFloat(f))), want, "{f}");
        }
    }

    #[test]
    fn numeric_cast_rounds_and_checks_precision() {
        let ty = ScalarType::Numeric {
            precision: Some(5),
            scale: Some(2),
        };
        let d = Datum::parse_text("12.345", &ty).unwrap();
        assert_eq!(text(d), "12.35");
        let d = Datum::parse_text("7", &ty).unwrap();
        assert_eq!(text(d), "7.00");
        let err = Datum::parse_text("1234.5", &ty).unwrap_err();
        assert_eq!(err.sqlstate(), "22003");
    }

    #[test]
    fn integer_input_errors() {
        let e = Datum::parse_text("abc", &ScalarType::Int32).unwrap_err();
        assert_eq!(e.sqlstate(), "22P02");
        assert_eq!(
            e.to_string(),
            "invalid input syntax for type integer: \"abc\""
        );
        let e = Datum::parse_text("99999999999", &ScalarType::Int32).unwrap_err();
        assert_eq!(e.sqlstate(), "22003");
        assert_eq!(
            Datum::parse_text(" 42 ", &ScalarType::Int64).unwrap(),
            Datum::Int64(42)
        );
    }

    #[test]
    fn varchar_limit() {
        let ty = ScalarType::VarChar {
            max_length: Some(3),
        };
        assert_eq!(
            Datum::parse_text("ab   ", &ty).unwrap(),
            Datum::String("ab ".into())
        );
        assert_eq!(
            Datum::parse_text("abcd", &ty).unwrap_err().sqlstate(),
            "22001"
        );
    }

    #[test]
    fn null_sorts_first() {
        assert!(Datum::Null < Datum::Int32(i32::MIN));
    }
}
