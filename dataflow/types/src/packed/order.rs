//! Comparing borrowed datums and packed rows: `Datum`'s two orders (`datum.rs`) over views.
//!
//! `DatumRef::compare` mirrors `Datum::compare` case by case — SQL's order, then (for the
//! identity order) the representation: a float zero's sign, a numeric's scale, an interval's
//! fields — and values of different variants by the same rank. Rows compare datum by datum,
//! a prefix first, as `Vec<Datum>` does; a datum whose bytes are equal is equal without being
//! read (the encoding is canonical), and two strings compare as their bytes.
//! Only jsonb values and numerics beyond 96 bits are made owned to be compared.

use super::datum_ref::{datum_len, read, DatumRef, NumericRef};
use super::numeric_key::{numeric_key, NUMERIC_KEY_BITS};
use super::row::PackedSlice;
use super::tag;
use std::cmp::Ordering;

impl DatumRef<'_> {
    /// SQL's order (`Datum::sql_cmp`).
    pub fn sql_cmp(&self, other: DatumRef<'_>) -> Ordering {
        self.compare(&other, false)
    }

    /// `Datum::compare` over views: SQL's order, then (if `r`) the representation.
    pub fn compare(&self, other: &DatumRef<'_>, r: bool) -> Ordering {
        use DatumRef::*;
        #[inline]
        fn tie(o: Ordering, r: bool, rep: impl FnOnce() -> Ordering) -> Ordering {
            if r {
                o.then_with(rep)
            } else {
                o
            }
        }
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
            (Numeric(a), Numeric(b)) => compare_numeric(a, b, r),
            (String(a), String(b)) => a.cmp(b),
            (Date(a), Date(b)) => a.cmp(b),
            (Timestamp(a), Timestamp(b)) => a.cmp(b),
            (TimestampTz(a), TimestampTz(b)) => a.cmp(b),
            (Interval(a), Interval(b)) => tie(a.cmp(b), r, || a.fields().cmp(&b.fields())),
            (Time(a), Time(b)) => a.cmp(b),
            (Uuid(a), Uuid(b)) => a.cmp(b),
            (Bytes(a), Bytes(b)) => a.cmp(b),
            (Jsonb(a), Jsonb(b)) => a.to_json().compare(&b.to_json(), r),
            (Array(a), Array(b)) | (Record(a), Record(b)) => compare_elements(*a, *b, r),
            (Int2Vector(a), Int2Vector(b)) => a.iter().cmp(b.iter()),
            _ => self.rank().cmp(&other.rank()),
        }
    }

    /// The variant's position (`Datum::rank`).
    fn rank(&self) -> u8 {
        match self {
            DatumRef::Null => 0,
            DatumRef::Bool(_) => 1,
            DatumRef::Int16(_) => 2,
            DatumRef::Int32(_) => 3,
            DatumRef::Int64(_) => 4,
            DatumRef::Float32(_) => 5,
            DatumRef::Float64(_) => 6,
            DatumRef::Numeric(_) => 7,
            DatumRef::String(_) => 8,
            DatumRef::Date(_) => 9,
            DatumRef::Timestamp(_) => 10,
            DatumRef::Interval(_) => 11,
            DatumRef::Time(_) => 12,
            DatumRef::Uuid(_) => 13,
            DatumRef::Bytes(_) => 14,
            DatumRef::Jsonb(_) => 15,
            DatumRef::Array(_) => 16,
            DatumRef::Int2Vector(_) => 17,
            DatumRef::Record(_) => 18,
            DatumRef::TimestampTz(_) => 19,
        }
    }
}

/// Numeric order, then (if `r`) the scale; mantissas of one scale compare directly.
fn compare_numeric(a: &NumericRef<'_>, b: &NumericRef<'_>, r: bool) -> Ordering {
    if let (
        NumericRef::Small {
            mantissa: ma,
            scale: sa,
        },
        NumericRef::Small {
            mantissa: mb,
            scale: sb,
        },
    ) = (a, b)
    {
        if sa == sb {
            return ma.cmp(mb);
        }
    }
    let o = a.to_numeric().cmp(&b.to_numeric());
    if r {
        o.then_with(|| a.scale().cmp(&b.scale()))
    } else {
        o
    }
}

/// Arrays and records (`array::compare`): element by element, a NULL after every value, a
/// prefix first.
fn compare_elements(a: PackedSlice<'_>, b: PackedSlice<'_>, r: bool) -> Ordering {
    let (mut x, mut y) = (a.iter(), b.iter());
    loop {
        match (x.next(), y.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) => {
                let o = match (p.is_null(), q.is_null()) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Greater,
                    (false, true) => Ordering::Less,
                    (false, false) => p.compare(&q, r),
                };
                if o.is_ne() {
                    return o;
                }
            }
        }
    }
}

impl Ord for DatumRef<'_> {
    /// Identity: `Datum`'s `Ord`.
    fn cmp(&self, other: &Self) -> Ordering {
        self.compare(other, true)
    }
}

impl PartialOrd for DatumRef<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for DatumRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for DatumRef<'_> {}

/// The identity order of two packed rows: `Vec<Datum>`'s. The bytes the rows share are
/// skipped first (equal rows, frequent in consolidation, in one pass): the datums that end
/// within them are equal, and lie at the same offsets in both.
pub(super) fn compare_rows(a: &[u8], b: &[u8]) -> Ordering {
    let common = common_prefix(a, b);
    if common == a.len() && common == b.len() {
        return Ordering::Equal;
    }
    let mut start = 0;
    while start < common {
        let n = datum_len(&a[start..]);
        if start + n > common {
            break;
        }
        start += n;
    }
    let (mut i, mut j) = (start, start);
    // The datum at `start` holds the first differing byte: it is decoded without comparing
    // its bytes again.
    let mut differs = true;
    loop {
        match (i < a.len(), j < b.len()) {
            (false, false) => return Ordering::Equal,
            (false, true) => return Ordering::Less,
            (true, false) => return Ordering::Greater,
            (true, true) => {}
        }
        let (x, y) = (&a[i..], &b[j..]);
        // Two short strings: their bytes, without reading them as text.
        if x[0] >= tag::SHORT_STRING && y[0] >= tag::SHORT_STRING {
            let (n, m) = (
                usize::from(x[0] - tag::SHORT_STRING),
                usize::from(y[0] - tag::SHORT_STRING),
            );
            let o = x[1..1 + n].cmp(&y[1..1 + m]);
            if o.is_ne() {
                return o;
            }
            i += 1 + n;
            j += 1 + m;
            differs = false;
            continue;
        }
        // Equal bytes are equal datums (the encoding is canonical): decode only when not.
        let (n, m) = (datum_len(x), datum_len(y));
        if std::mem::take(&mut differs) || x[..n] != y[..m] {
            let (p, q) = (read(x).0, read(y).0);
            let o = p.cmp(&q);
            if o.is_ne() {
                return o;
            }
        }
        i += n;
        j += m;
    }
}

/// How many leading bytes `a` and `b` share, compared eight at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let x = u64::from_le_bytes(a[i..i + 8].try_into().expect("eight bytes"));
        let y = u64::from_le_bytes(b[i..i + 8].try_into().expect("eight bytes"));
        if x != y {
            return i + ((x ^ y).trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// Bits of a row's sort key below its first datum's rank.
const KEY_PAYLOAD_BITS: u32 = NUMERIC_KEY_BITS;
/// Bits of a datum's rank + 1 at the top of its key.
const RANK_BITS: u32 = 64 - KEY_PAYLOAD_BITS;

/// `x` offset to be non-negative and clamped into the payload's bits: monotone, and exact for
/// |x| < 2^58 (times of day, in microseconds).
fn clamped_payload(x: i64) -> u64 {
    let max = (1i128 << KEY_PAYLOAD_BITS) - 1;
    (i128::from(x) + (1i128 << (KEY_PAYLOAD_BITS - 1))).clamp(0, max) as u64
}

/// A row's order-preserving prefix. Datums whose value a few bits hold exactly — NULL, booleans,
/// integers, dates — each take their rank + 1 in five bits and then a code of their value
/// (`int_code`: small values take few bits), one after another, so that a key whose first
/// columns tie (a boolean, a small integer) still tells rows apart by the next ones. The first
/// datum that is not such ends the key with the top bits of its own key (`datum_key`), one
/// whose code does not fit with the top bits of its code. Equal codes mean equal datums, and
/// codes are prefix-free (the rank gives the variant, the variant the code's form), so every
/// datum after a run of codes is compared only where the run ties; a row ending early leaves
/// zeros, below every datum's code (its rank + 1 is at least 1), as a shorter row orders first.
pub(super) fn row_sort_key(row: &[u8]) -> u64 {
    row_sort_key_prefix(row).0
}

/// `row_sort_key`, and for a row that ends within the key (all its datums coded), the bits
/// that identify it (`SortKey::sort_key_prefix`): its codes and the five zero bits of its end,
/// which no row going on has there (its next datum's rank + 1 is at least 1).
pub(super) fn row_sort_key_prefix(row: &[u8]) -> (u64, Option<u32>) {
    let mut key = 0u64;
    let mut left = 64u32;
    let mut at = row;
    while !at.is_empty() {
        if left == 0 {
            return (key, None);
        }
        let (datum, len) = read(at);
        match exact_code(datum) {
            Some((bits, code)) if bits <= left => {
                left -= bits;
                key |= (code as u64) << left;
            }
            Some((bits, code)) => return (key | (code >> (bits - left)) as u64, None),
            None => return (key | datum_key(datum) >> (64 - left), None),
        }
        at = &at[len..];
    }
    let n = 64 - left + RANK_BITS;
    (key, (n <= 64).then_some(n))
}

/// The datum's rank + 1 in five bits, then its value's code, and the number of bits, for the
/// variants whose value a code holds exactly (equal codes, equal datums).
fn exact_code(datum: DatumRef<'_>) -> Option<(u32, u128)> {
    let (bits, value) = match datum {
        DatumRef::Null => (0, 0),
        DatumRef::Bool(b) => (1, u128::from(b)),
        DatumRef::Int16(i) => int_code(i64::from(i), 4),
        DatumRef::Int32(i) => int_code(i64::from(i), 5),
        DatumRef::Int64(i) => int_code(i, 6),
        DatumRef::Date(d) => int_code(i64::from(chrono::Datelike::num_days_from_ce(&d)), 5),
        _ => return None,
    };
    let rank = u128::from(datum.rank()) + 1;
    Some((RANK_BITS + bits, rank << bits | value))
}

/// An integer's order-preserving, prefix-free code and its length: a sign bit (1 for `v >= 0`),
/// then the bit length `l` of the magnitude `m` (`v`, or `!v = -v - 1` for negative `v`) in
/// `len_bits` bits, then `m`'s `l - 1` bits below its leading one. Codes of larger magnitudes
/// are longer or, as long, greater in their bits; a negative value's code is its magnitude's
/// inverted, which reverses that order (bit length first, as the reader decodes it).
fn int_code(v: i64, len_bits: u32) -> (u32, u128) {
    let (sign, m) = if v >= 0 {
        (1, v as u64)
    } else {
        (0, !v as u64)
    };
    let l = 64 - m.leading_zeros();
    let rest = l.saturating_sub(1);
    let width = len_bits + rest;
    let low = u128::from(m) & ((1u128 << rest) - 1);
    let magnitude = u128::from(l) << rest | low;
    let magnitude = if sign == 1 {
        magnitude
    } else {
        !magnitude & ((1u128 << width) - 1)
    };
    (1 + width, sign << width | magnitude)
}

/// One datum's order-preserving 64-bit key, for the variants `exact_code` does not code: its
/// rank + 1 in the top five bits (datums of different variants order by rank), then an
/// order-preserving payload where the variant's order allows one — times by value (clamped),
/// strings, bytea and uuids by their first seven bytes, numerics by sign, exponent and leading
/// digits (`numeric_key.rs`) — and 0 for the rest, whose ties the full compare breaks.
fn datum_key(datum: DatumRef<'_>) -> u64 {
    let payload = match datum {
        DatumRef::Time(t) => clamped_payload(t),
        DatumRef::String(s) => kpg_sortkey::bytes_key(s.as_bytes()) >> 8,
        DatumRef::Bytes(b) => kpg_sortkey::bytes_key(b) >> 8,
        DatumRef::Uuid(u) => kpg_sortkey::bytes_key(u) >> 8,
        DatumRef::Numeric(n) => numeric_key(&n),
        _ => 0,
    };
    ((u64::from(datum.rank()) + 1) << KEY_PAYLOAD_BITS) | payload
}
