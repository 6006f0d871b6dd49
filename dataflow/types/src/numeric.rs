//! `numeric`: PostgreSQL's exact decimal numbers, as large and as precise as PostgreSQL allows.
//!
//! Owns the value behind `Datum::Numeric` and everything computed on it with PostgreSQL's
//! rules: result scales of `+ - * / %`, division's choice of scale, rounding half away from
//! zero, the text forms in and out, the limits (131072 digits before the point, 16383 after)
//! and the binary wire form.
//!
//! A value is an integer mantissa and a scale (the digits after the point, kept: `1.50` is not
//! `1.5` on output). Nearly every value met in practice fits a 96-bit mantissa with at most 28
//! digits after the point; those are held inline as a `rust_decimal::Decimal` (no allocation,
//! and `+ - *` run on `i128`). A value that does not fit is held as a boxed big integer. The form
//! is canonical — `Big` only when the mantissa and scale do not fit `Small` — and equality,
//! order and hashing are by value (`1.0 = 1.00`), as PostgreSQL compares numerics. `NaN` and
//! `±Infinity` are a third inline form, with their rules in `special.rs`; the finite helpers
//! below (`parts`, the alignments) are reached only after the public operations have dealt
//! with them.

use crate::error::EvalError;
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive, Zero};
use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// Digits allowed before the point (PostgreSQL: weight up to 32767 base-10000 digits).
const MAX_INTEGER_DIGITS: u64 = 131_072;
/// Digits allowed after the point (PostgreSQL's NUMERIC_DSCALE_MAX).
const MAX_SCALE: u32 = 16_383;
/// The largest scale division chooses (NUMERIC_MAX_DISPLAY_SCALE).
const MAX_DISPLAY_SCALE: i64 = 1000;
/// Division gives at least this many significant digits (NUMERIC_MIN_SIG_DIGITS).
const MIN_SIG_DIGITS: i64 = 16;
/// Mantissas below 2^96 with a scale of at most 28 fit a `Decimal`.
const SMALL_MANTISSA: u128 = 1 << 96;
const SMALL_SCALE: u32 = 28;

/// An exact decimal number.
#[derive(Clone)]
pub struct Numeric(Repr);

#[derive(Clone)]
enum Repr {
    Small(Decimal),
    Big(Box<(BigInt, u32)>),
    Special(Special),
}

mod special;
pub use special::Special;

/// Why text is not a numeric.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// Not numeric syntax (22P02).
    Invalid,
    /// Beyond numeric's limits (22003).
    Overflow,
}

impl ParseError {
    /// The evaluation error for text `value` that failed to parse as `type_name`.
    pub fn into_eval(self, value: &str, type_name: &str) -> EvalError {
        match self {
            ParseError::Invalid => EvalError::InvalidTextRepresentation {
                type_name: type_name.to_string(),
                value: value.to_string(),
            },
            ParseError::Overflow => EvalError::NumericOverflow,
        }
    }
}

/// How a value loses digits when its scale is reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Half away from zero (round, casts).
    HalfAway,
    /// Toward zero (trunc).
    Trunc,
    Floor,
    Ceil,
}

fn pow10(n: u32) -> BigInt {
    num_traits::pow(BigInt::from(10u8), n as usize)
}

/// `m * 10^n` in i128, when it fits.
#[inline]
fn shift_i128(m: i128, n: u32) -> Option<i128> {
    match n {
        0 => Some(m),
        _ => POW10.get(n as usize).and_then(|&f| mul_i128(m, f as i128)),
    }
}

/// `a * b` in i128, when it fits: one widening 64-bit multiplication when both magnitudes
/// fit 64 bits (i128's overflow-checked multiplication is a slow library routine).
#[inline]
fn mul_i128(a: i128, b: i128) -> Option<i128> {
    let (x, y) = (a.unsigned_abs(), b.unsigned_abs());
    let product = match (u64::try_from(x), u64::try_from(y)) {
        (Ok(x), Ok(y)) => u128::from(x) * u128::from(y),
        _ => x.checked_mul(y)?,
    };
    let product = i128::try_from(product).ok()?;
    Some(if (a < 0) != (b < 0) {
        -product
    } else {
        product
    })
}

/// 10^0 ..= 10^38: the powers of ten below 2^128.
const POW10: [u128; 39] = {
    let mut t = [1u128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// Quotient and remainder, on the hardware's 64-bit division when both operands fit it (the
/// 128-bit one is a slow library routine).
fn div_rem_u128(a: u128, b: u128) -> (u128, u128) {
    match (u64::try_from(a), u64::try_from(b)) {
        (Ok(a), Ok(b)) => ((a / b).into(), (a % b).into()),
        _ => (a / b, a % b),
    }
}

/// Decimal digits of `v` (0 has none).
fn digits_u128(v: u128) -> u32 {
    v.checked_ilog10().map_or(0, |d| d + 1)
}

/// PostgreSQL's weight (position of the first base-10000 digit) and that first digit of
/// `magnitude / 10^scale`, for a magnitude below 2^128 (the scale may be negative); (0, 0) for
/// zero.
fn weight_and_first_digit_u128(magnitude: u128, scale: i64) -> (i64, u32) {
    let digits = i64::from(digits_u128(magnitude));
    if digits == 0 {
        return (0, 0);
    }
    // The leading digit is worth 10^e.
    let e = digits - 1 - scale;
    let weight = e.div_euclid(4);
    // The first base-10000 digit holds the digits worth 10^(4 weight) and up: 1 to 4 of
    // them, so 0.5 is 5000 · 10000^-1.
    let in_first = e - 4 * weight + 1;
    let first = if in_first <= digits {
        div_rem_u128(magnitude, POW10[(digits - in_first) as usize]).0
    } else {
        magnitude * POW10[(in_first - digits) as usize]
    };
    (weight, first as u32)
}

/// Decimal digits of `|m|` (0 has none).
fn digit_count(m: &BigInt) -> u64 {
    if m.is_zero() {
        return 0;
    }
    match m.abs().to_u128() {
        Some(v) => u64::from(v.ilog10()) + 1,
        None => m.abs().to_str_radix(10).len() as u64,
    }
}

/// Divides `m` by `10^n`, losing the digits as `rounding` says.
fn div_pow10(m: &BigInt, n: u32, rounding: Rounding) -> BigInt {
    if n == 0 {
        return m.clone();
    }
    if let (Some(v), Some(&f)) = (m.to_i128(), POW10.get(n as usize)) {
        let f = f as i128;
        let (q, r) = (v / f, v % f);
        let adjust = match rounding {
            Rounding::HalfAway => {
                if r.unsigned_abs() >= (f as u128).div_ceil(2) {
                    v.signum()
                } else {
                    0
                }
            }
            Rounding::Trunc => 0,
            Rounding::Floor => -i128::from(r < 0),
            Rounding::Ceil => i128::from(r > 0),
        };
        return BigInt::from(q + adjust);
    }
    let f = pow10(n);
    let (q, r) = (m / &f, m % &f);
    let one = BigInt::from(1);
    match rounding {
        Rounding::HalfAway if r.abs() * 2 >= f => q + m.signum() * one,
        Rounding::Floor if r.is_negative() => q - one,
        Rounding::Ceil if r.is_positive() => q + one,
        _ => q,
    }
}

impl Numeric {
    pub const ZERO: Numeric = Numeric(Repr::Small(Decimal::ZERO));
    pub const NAN: Numeric = Numeric(Repr::Special(Special::NaN));

    /// `NaN`, `Infinity` or `-Infinity`.
    pub const fn special_value(s: Special) -> Numeric {
        Numeric(Repr::Special(s))
    }

    /// Which special value this is, if it is not a finite number.
    #[inline]
    pub fn special(&self) -> Option<Special> {
        match &self.0 {
            Repr::Special(s) => Some(*s),
            _ => None,
        }
    }

    pub fn is_nan(&self) -> bool {
        self.special() == Some(Special::NaN)
    }

    /// Whether the value is a finite number.
    #[inline]
    pub fn is_finite(&self) -> bool {
        self.special().is_none()
    }

    /// `mantissa / 10^scale` for values known to be small (i64 mantissa, scale ≤ 28).
    pub fn new(mantissa: i64, scale: u32) -> Numeric {
        assert!(scale <= SMALL_SCALE, "scale {scale} of a small numeric");
        Numeric(Repr::Small(Decimal::new(mantissa, scale)))
    }

    /// `mantissa / 10^scale` from an `i128` mantissa, checked against numeric's limits.
    #[inline]
    pub fn from_i128(mantissa: i128, scale: u32) -> Result<Numeric, EvalError> {
        let magnitude = mantissa.unsigned_abs();
        if scale <= SMALL_SCALE && magnitude < SMALL_MANTISSA {
            return Ok(Numeric(Repr::Small(Decimal::from_parts(
                magnitude as u32,
                (magnitude >> 32) as u32,
                (magnitude >> 64) as u32,
                mantissa < 0,
                scale,
            ))));
        }
        Numeric::from_parts(BigInt::from(mantissa), scale)
    }

    /// `mantissa / 10^scale`, checked against numeric's limits (22003 beyond them).
    pub fn from_parts(mantissa: BigInt, scale: u32) -> Result<Numeric, EvalError> {
        if let Some(m) = mantissa.to_i128() {
            if scale <= SMALL_SCALE && m.unsigned_abs() < SMALL_MANTISSA {
                return Numeric::from_i128(m, scale);
            }
        }
        if scale > MAX_SCALE || digit_count(&mantissa) > MAX_INTEGER_DIGITS + u64::from(scale) {
            return Err(EvalError::NumericOverflow);
        }
        Ok(Numeric(Repr::Big(Box::new((mantissa, scale)))))
    }

    /// The mantissa and scale when the value is held inline (an `i128` mantissa).
    #[inline]
    pub fn small_parts(&self) -> Option<(i128, u32)> {
        match &self.0 {
            Repr::Small(d) => Some((d.mantissa(), d.scale())),
            Repr::Big(_) | Repr::Special(_) => None,
        }
    }

    /// The value as a `Decimal`, when it fits one.
    pub fn to_decimal(&self) -> Option<Decimal> {
        match &self.0 {
            Repr::Small(d) => Some(*d),
            Repr::Big(_) | Repr::Special(_) => None,
        }
    }

    /// The mantissa and scale of a finite value (callers deal with the special values
    /// first: reaching one here is a broken invariant).
    pub fn parts(&self) -> (BigInt, u32) {
        match &self.0 {
            Repr::Small(d) => (BigInt::from(d.mantissa()), d.scale()),
            Repr::Big(b) => (b.0.clone(), b.1),
            Repr::Special(s) => panic!("mantissa of numeric {}", s.text()),
        }
    }

    /// Digits after the point (0 for the special values).
    pub fn scale(&self) -> u32 {
        match &self.0 {
            Repr::Small(d) => d.scale(),
            Repr::Big(b) => b.1,
            Repr::Special(_) => 0,
        }
    }

    pub fn is_zero(&self) -> bool {
        match &self.0 {
            Repr::Small(d) => d.is_zero(),
            Repr::Big(b) => b.0.is_zero(),
            Repr::Special(_) => false,
        }
    }

    /// -1, 0 or 1 (±1 for the infinities, 0 for NaN: see [`Numeric::sign`]).
    pub fn signum(&self) -> i32 {
        match &self.0 {
            Repr::Small(d) => d.mantissa().signum() as i32,
            Repr::Big(b) => match b.0.sign() {
                num_bigint::Sign::Minus => -1,
                num_bigint::Sign::NoSign => 0,
                num_bigint::Sign::Plus => 1,
            },
            Repr::Special(Special::NegInf) => -1,
            Repr::Special(Special::PosInf) => 1,
            Repr::Special(Special::NaN) => 0,
        }
    }

    /// PostgreSQL's `sign(numeric)`: -1, 0 or 1, and NaN for NaN.
    pub fn sign(&self) -> Numeric {
        match self.special() {
            Some(Special::NaN) => Numeric::NAN,
            _ => Numeric::new(self.signum().into(), 0),
        }
    }

    fn map_mantissa(&self, f: impl Fn(i128) -> i128, g: impl Fn(&BigInt) -> BigInt) -> Numeric {
        match &self.0 {
            // Negating or taking the absolute value keeps a mantissa below 2^96.
            Repr::Small(d) => Numeric::from_i128(f(d.mantissa()), d.scale()).expect("small"),
            Repr::Big(b) => Numeric(Repr::Big(Box::new((g(&b.0), b.1)))),
            Repr::Special(s) => Numeric(Repr::Special(*s)),
        }
    }

    pub fn neg(&self) -> Numeric {
        match self.special() {
            Some(Special::PosInf) => Numeric::special_value(Special::NegInf),
            Some(Special::NegInf) => Numeric::special_value(Special::PosInf),
            _ => self.map_mantissa(|m| -m, |m| -m),
        }
    }

    pub fn abs(&self) -> Numeric {
        match self.special() {
            Some(Special::NegInf) => Numeric::special_value(Special::PosInf),
            _ => self.map_mantissa(i128::abs, BigInt::abs),
        }
    }

    /// The value with at least `scale` digits after the point (zeros appended).
    pub fn with_min_scale(self, scale: u32) -> Result<Numeric, EvalError> {
        let s = self.scale();
        if s >= scale || !self.is_finite() {
            return Ok(self);
        }
        if let Some(m) = self
            .small_parts()
            .and_then(|(m, _)| shift_i128(m, scale - s))
        {
            return Numeric::from_i128(m, scale);
        }
        let (m, _) = self.parts();
        Numeric::from_parts(m * pow10(scale - s), scale)
    }

    /// Both mantissas at the larger of the two scales.
    fn aligned(&self, other: &Numeric) -> (BigInt, BigInt, u32) {
        let ((a, sa), (b, sb)) = (self.parts(), other.parts());
        let s = sa.max(sb);
        (a * pow10(s - sa), b * pow10(s - sb), s)
    }

    /// Both mantissas at the larger scale in i128, when they fit.
    #[inline]
    fn aligned_small(&self, other: &Numeric) -> Option<(i128, i128, u32)> {
        let ((a, sa), (b, sb)) = (self.small_parts()?, other.small_parts()?);
        let s = sa.max(sb);
        Some((shift_i128(a, s - sa)?, shift_i128(b, s - sb)?, s))
    }

    /// `self + other`, with the larger of the two scales.
    #[inline]
    pub fn checked_add(&self, other: &Numeric) -> Result<Numeric, EvalError> {
        self.add_signed(other, false)
    }

    /// `self - other`, with the larger of the two scales.
    #[inline]
    pub fn checked_sub(&self, other: &Numeric) -> Result<Numeric, EvalError> {
        self.add_signed(other, true)
    }

    #[inline]
    fn add_signed(&self, other: &Numeric, subtract: bool) -> Result<Numeric, EvalError> {
        if let Some((a, b, s)) = self.aligned_small(other) {
            let sum = if subtract {
                a.checked_sub(b)
            } else {
                a.checked_add(b)
            };
            if let Some(m) = sum {
                return Numeric::from_i128(m, s);
            }
        }
        if let Some(r) = special::add(self, other, subtract) {
            return Ok(r);
        }
        let (a, b, s) = self.aligned(other);
        Numeric::from_parts(if subtract { a - b } else { a + b }, s)
    }

    /// `self * other`, with the sum of the two scales.
    #[inline]
    pub fn checked_mul(&self, other: &Numeric) -> Result<Numeric, EvalError> {
        if let (Some((a, sa)), Some((b, sb))) = (self.small_parts(), other.small_parts()) {
            if let Some(m) = mul_i128(a, b) {
                return Numeric::from_i128(m, sa + sb);
            }
        }
        if let Some(r) = special::mul(self, other) {
            return Ok(r);
        }
        let ((a, sa), (b, sb)) = (self.parts(), other.parts());
        Numeric::from_parts(a * b, sa + sb)
    }

    /// PostgreSQL's weight (position of the first base-10000 digit) and that first digit;
    /// (0, 0) for zero.
    fn weight_and_first_digit(&self) -> (i64, u32) {
        if let Some((m, s)) = self.small_parts() {
            return weight_and_first_digit_u128(m.unsigned_abs(), s.into());
        }
        // Only the leading four digits matter: the same value cut to them, its scale moved
        // by the digits cut.
        let (m, s) = self.parts();
        let cut = (digit_count(&m) as u32).saturating_sub(4);
        let lead = div_pow10(&m.abs(), cut, Rounding::Trunc);
        weight_and_first_digit_u128(
            lead.to_u128().expect("four digits"),
            i64::from(s) - i64::from(cut),
        )
    }

    /// The square root at PostgreSQL's scale (`numeric_sqrt`): at least 16 significant
    /// digits, no fewer digits after the point than the argument, at most 1000; rounded half
    /// away from zero from the exact root. 2201F for a negative argument.
    pub fn sqrt(&self) -> Result<Numeric, EvalError> {
        if matches!(self.special(), Some(Special::NaN | Special::PosInf)) {
            return Ok(self.clone());
        }
        if self.signum() < 0 {
            return Err(EvalError::InvalidPowerArgument(
                "cannot take square root of a negative number".into(),
            ));
        }
        let (weight, _) = self.weight_and_first_digit();
        // The root's weight in decimal digits, as PostgreSQL estimates it.
        let root_weight = (weight + 1) * 2 - 1;
        let (m, s) = self.parts();
        let scale = (MIN_SIG_DIGITS - root_weight)
            .max(i64::from(s))
            .min(MAX_DISPLAY_SCALE) as u32;
        // floor(sqrt(m * 10^(2 * scale + 2 - s))) is the root with one more digit.
        let root = (m * pow10(2 * scale + 2 - s)).sqrt();
        let (q, last) = root.div_rem(&BigInt::from(10u8));
        let q = if last >= BigInt::from(5u8) { q + 1 } else { q };
        Numeric::from_parts(q, scale)
    }

    /// `self / other` at PostgreSQL's scale (`select_div_scale`): at least 16 significant
    /// digits, no fewer digits after the point than either operand, at most 1000; rounded
    /// half away from zero.
    pub fn checked_div(&self, other: &Numeric) -> Result<Numeric, EvalError> {
        if let Some(r) = special::div(self, other) {
            return r;
        }
        if other.is_zero() {
            return Err(EvalError::DivisionByZero);
        }
        let (w1, f1) = self.weight_and_first_digit();
        let (w2, f2) = other.weight_and_first_digit();
        let mut qweight = w1 - w2;
        if f1 <= f2 {
            qweight -= 1;
        }
        let rscale = (MIN_SIG_DIGITS - qweight * 4)
            .max(i64::from(self.scale()))
            .max(i64::from(other.scale()))
            .clamp(0, MAX_DISPLAY_SCALE) as u32;
        if let (Some((a, sa)), Some((b, sb))) = (self.small_parts(), other.small_parts()) {
            // In 128 bits when the shifted dividend fits (rscale ≥ sa: the cap is far above 28).
            let shifted = POW10
                .get((rscale + sb - sa) as usize)
                .and_then(|&f| mul_i128(a.abs(), f as i128))
                .map(i128::unsigned_abs);
            if let Some(num) = shifted {
                let den = b.unsigned_abs();
                let (q, r) = div_rem_u128(num, den);
                // r < den < 2^96: doubling it cannot overflow.
                let q = q + u128::from(2 * r >= den);
                if let Ok(q) = i128::try_from(q) {
                    let negative = (a < 0) != (b < 0);
                    return Numeric::from_i128(if negative { -q } else { q }, rscale);
                }
            }
        }
        let ((a, sa), (b, sb)) = (self.parts(), other.parts());
        // a/10^sa ÷ b/10^sb = (a · 10^(rscale + sb - sa) / b) / 10^rscale. The exponent is
        // negative only when the scale was capped below the dividend's (1e-2000 / 3).
        let shift = i64::from(rscale) + i64::from(sb) - i64::from(sa);
        let (num, b) = if shift >= 0 {
            (a * pow10(shift as u32), b)
        } else {
            (a, b * pow10((-shift) as u32))
        };
        let (q, r) = num.div_rem(&b);
        let q = if r.abs() * 2 >= b.abs() {
            let sign = if num.is_negative() == b.is_negative() {
                1
            } else {
                -1
            };
            q + BigInt::from(sign)
        } else {
            q
        };
        Numeric::from_parts(q, rscale)
    }

    /// `self % other`: the remainder of the division truncated toward zero, with the larger of
    /// the two scales and the sign of `self`.
    pub fn checked_rem(&self, other: &Numeric) -> Result<Numeric, EvalError> {
        if let Some(r) = special::rem(self, other) {
            return r;
        }
        if other.is_zero() {
            return Err(EvalError::DivisionByZero);
        }
        if let Some((a, b, s)) = self.aligned_small(other) {
            return Numeric::from_i128(a.checked_rem(b).unwrap_or(0), s);
        }
        let (a, b, s) = self.aligned(other);
        Numeric::from_parts(a % b, s)
    }

    /// The value with `places` digits after the point (negative: rounded left of it), losing
    /// digits as `rounding` says; the result has scale `max(places, 0)`, as PostgreSQL's
    /// round(x, n) and trunc(x, n). `places` is limited to the scales a numeric can have: at
    /// most 16383 after the point, and one place beyond the 131072 digits before it, where
    /// every value rounds to zero (rounding up to 10^131072 overflows, 22003, as PostgreSQL).
    pub fn round(&self, places: i64, rounding: Rounding) -> Result<Numeric, EvalError> {
        if !self.is_finite() {
            return Ok(self.clone());
        }
        let lowest = -(MAX_INTEGER_DIGITS as i64) - 1;
        let places = places.clamp(lowest, i64::from(MAX_SCALE));
        let s = i64::from(self.scale());
        if places >= s {
            return self.clone().with_min_scale(places as u32);
        }
        // Below half of 10^-places: zero, without building that power of ten.
        let below = self.leading_digits().is_none_or(|d| d < -places);
        if places < 0 && below && matches!(rounding, Rounding::HalfAway | Rounding::Trunc) {
            return Ok(Numeric::ZERO);
        }
        let (m, _) = self.parts();
        let q = div_pow10(&m, (s - places) as u32, rounding);
        if places >= 0 {
            Numeric::from_parts(q, places as u32)
        } else {
            Numeric::from_parts(q * pow10((-places) as u32), 0)
        }
    }

    /// Digits before the point, counted from the first nonzero digit: 3 for 123.4, 0 for
    /// 0.5, -2 for 0.005 (`None` for zero).
    fn leading_digits(&self) -> Option<i64> {
        if !self.is_finite() {
            return None;
        }
        if let Some((m, s)) = self.small_parts() {
            let m = m.unsigned_abs();
            return (m > 0).then(|| i64::from(m.ilog10()) + 1 - i64::from(s));
        }
        let (m, s) = self.parts();
        let digits = digit_count(&m) as i64;
        (digits > 0).then(|| digits - i64::from(s))
    }

    /// Applies a `numeric(precision, scale)` type: rounds to the scale (left of the point
    /// when it is negative) and refuses a value with more than `precision - scale` digits
    /// before the point (22003), as PostgreSQL's `apply_typmod`.
    pub fn apply_typmod(&self, precision: u16, scale: i16) -> Result<Numeric, EvalError> {
        match self.special() {
            Some(Special::NaN) => return Ok(Numeric::NAN),
            Some(_) => return Err(EvalError::NumericFieldInfinite { precision, scale }),
            None => {}
        }
        let r = self.round(i64::from(scale), Rounding::HalfAway)?;
        if r.leading_digits().unwrap_or(i64::MIN) > i64::from(precision) - i64::from(scale) {
            return Err(EvalError::NumericFieldOverflow { precision, scale });
        }
        Ok(r)
    }

    /// Rounded half away from zero to an integer, if it fits `i64`.
    pub fn to_i64_rounded(&self) -> Option<i64> {
        if !self.is_finite() {
            return None;
        }
        self.round(0, Rounding::HalfAway).ok()?.parts().0.to_i64()
    }

    /// A double as numeric, as PostgreSQL converts it: its `digits` significant digits (15
    /// for float8, 6 for float4) without trailing zeros, so `(0.1 + 0.2)::numeric` is 0.3.
    pub fn from_f64(f: f64, digits: usize) -> Result<Numeric, EvalError> {
        if f.is_nan() {
            return Ok(Numeric::NAN);
        }
        if f.is_infinite() {
            let s = if f > 0.0 {
                Special::PosInf
            } else {
                Special::NegInf
            };
            return Ok(Numeric::special_value(s));
        }
        let text = format!("{f:.*e}", digits.saturating_sub(1));
        let n = Numeric::parse(&text).map_err(|_| EvalError::NumericOverflow)?;
        Ok(n.trim_scale())
    }

    /// The value with trailing zeros after the point removed.
    pub fn trim_scale(self) -> Numeric {
        match &self.0 {
            Repr::Small(d) => return Numeric::from(d.normalize()),
            Repr::Special(_) => return self,
            Repr::Big(_) => {}
        }
        let (mut m, mut s) = self.parts();
        if m.is_zero() {
            return Numeric::ZERO;
        }
        let ten = BigInt::from(10u8);
        while s > 0 && (&m % &ten).is_zero() {
            m /= &ten;
            s -= 1;
        }
        Numeric::from_parts(m, s).expect("fewer digits than a valid value")
    }

    /// Whether the value has no trailing zero after the point (`trim_scale` would keep it).
    pub fn is_trimmed(&self) -> bool {
        match &self.0 {
            Repr::Small(d) => d.scale() == 0 || d.mantissa() % 10 != 0,
            Repr::Big(b) => b.1 == 0 || !(&b.0 % BigInt::from(10u8)).is_zero(),
            Repr::Special(_) => true,
        }
    }

    /// Parses PostgreSQL's numeric input: `[+-]digits[.digits][e[+-]digits]` (surrounding
    /// blanks are the caller's). The scale is the digits written after the point, less the
    /// exponent, at least 0: `1.50` has scale 2, `1e-40` 40, `1e5` 0.
    pub fn parse(text: &str) -> Result<Numeric, ParseError> {
        if let Some(n) = Numeric::parse_plain(text) {
            return Ok(n);
        }
        Numeric::parse_general(text)
    }

    /// `parse` of the common case, without allocating: `[+-]digits[.digits]` with at most 28
    /// digits in all (so the mantissa is below 2^96 and the scale at most 28: a `Decimal`).
    /// `None` for anything else, which `parse_general` reads.
    fn parse_plain(text: &str) -> Option<Numeric> {
        let (mantissa, scale) = Numeric::plain_parts(text.as_bytes())?;
        Numeric::from_i128(mantissa, scale).ok()
    }

    /// The signed mantissa and scale of `[+-]digits[.digits]` with at most 28 digits in all
    /// (leading zeros included), read without allocating; `None` for any other text. What
    /// `parse_plain` builds on, and the packer's input of `numeric(p, s)` fields.
    pub(crate) fn plain_parts(bytes: &[u8]) -> Option<(i128, u32)> {
        let (negative, body) = match bytes.first()? {
            b'-' => (true, &bytes[1..]),
            b'+' => (false, &bytes[1..]),
            _ => (false, bytes),
        };
        if body.is_empty() || body.len() > 29 {
            return None;
        }
        let mut mantissa: i128 = 0;
        let mut digits = 0u32;
        let mut point: Option<u32> = None;
        for &c in body {
            match c {
                b'0'..=b'9' => {
                    mantissa = mantissa * 10 + i128::from(c - b'0');
                    digits += 1;
                }
                b'.' if point.is_none() => point = Some(digits),
                _ => return None,
            }
        }
        if digits == 0 || digits > SMALL_SCALE {
            return None;
        }
        let scale = point.map_or(0, |p| digits - p);
        Some((if negative { -mantissa } else { mantissa }, scale))
    }

    /// `parse` of every form: exponents, the special values, any number of digits.
    fn parse_general(text: &str) -> Result<Numeric, ParseError> {
        if let Some(s) = Special::parse(text) {
            return Ok(Numeric::special_value(s));
        }
        let bytes = text.as_bytes();
        let mut i = 0;
        let negative = match bytes.first() {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let mut digits = String::new();
        let mut fraction = 0i64;
        let mut seen_point = false;
        while let Some(&c) = bytes.get(i) {
            match c {
                b'0'..=b'9' => {
                    digits.push(c as char);
                    fraction += i64::from(seen_point);
                }
                b'.' if !seen_point => seen_point = true,
                _ => break,
            }
            i += 1;
        }
        if digits.is_empty() {
            return Err(ParseError::Invalid);
        }
        let mut exponent = 0i64;
        if let Some(b'e' | b'E') = bytes.get(i) {
            let rest = &text[i + 1..];
            let unsigned = rest.strip_prefix(['+', '-']).unwrap_or(rest);
            if unsigned.is_empty() || !unsigned.bytes().all(|c| c.is_ascii_digit()) {
                return Err(ParseError::Invalid);
            }
            exponent = rest.parse().map_err(|_| ParseError::Overflow)?;
            i = bytes.len();
        }
        if i != bytes.len() {
            return Err(ParseError::Invalid);
        }
        let significant = digits.trim_start_matches('0');
        let scale = fraction - exponent;
        // Digits before the point once the exponent is applied, checked before any power of
        // ten is computed, so `1e999999999` costs nothing.
        if significant.len() as i64 - scale > MAX_INTEGER_DIGITS as i64 {
            return Err(ParseError::Overflow);
        }
        if scale > i64::from(MAX_SCALE) {
            return Err(ParseError::Overflow);
        }
        let mut mantissa = if significant.len() <= 38 {
            BigInt::from(significant.parse::<i128>().unwrap_or(0))
        } else {
            BigInt::parse_bytes(significant.as_bytes(), 10).expect("decimal digits")
        };
        if negative {
            mantissa = -mantissa;
        }
        let scale = if scale < 0 {
            mantissa *= pow10((-scale) as u32);
            0
        } else {
            scale as u32
        };
        Numeric::from_parts(mantissa, scale).map_err(|_| ParseError::Overflow)
    }

    /// PostgreSQL's binary form (`numeric_send`): digit count, weight, sign and display scale
    /// as 16-bit words, then the base-10000 digits, without leading or trailing zero digits.
    pub fn to_pg_binary(&self) -> Vec<u8> {
        if let Some(special) = self.special() {
            let mut out = vec![0u8; 4];
            out.extend(special.sign_word().to_be_bytes());
            out.extend(special.binary_dscale().to_be_bytes());
            return out;
        }
        let (m, s) = self.parts();
        let sign: u16 = if m.is_negative() { 0x4000 } else { 0 };
        // Pad the fraction to whole base-10000 digits.
        let pad = (4 - s % 4) % 4;
        let text = (m.abs() * pow10(pad)).to_str_radix(10);
        let frac_groups = ((s + pad) / 4) as usize;
        let mut groups: Vec<u16> = Vec::new();
        let mut end = text.len();
        while end > 0 {
            let start = end.saturating_sub(4);
            groups.push(text[start..end].parse().expect("digits"));
            end = start;
        }
        // At least as many groups as the fraction has (leading zeros of a small fraction).
        while groups.len() < frac_groups {
            groups.push(0);
        }
        groups.reverse();
        let mut weight = groups.len() as i64 - frac_groups as i64 - 1;
        let leading = groups.iter().take_while(|&&g| g == 0).count();
        groups.drain(..leading);
        weight -= leading as i64;
        while groups.last() == Some(&0) {
            groups.pop();
        }
        if groups.is_empty() {
            weight = 0;
        }
        let mut out = Vec::with_capacity(8 + 2 * groups.len());
        out.extend((groups.len() as u16).to_be_bytes());
        out.extend((weight as i16).to_be_bytes());
        out.extend(sign.to_be_bytes());
        out.extend((s as u16).to_be_bytes());
        for g in groups {
            out.extend(g.to_be_bytes());
        }
        out
    }

    /// The value's mantissa with trailing zeros removed, and the scale that goes with it:
    /// the same for every representation of one value.
    fn normalized(&self) -> (BigInt, u32) {
        self.clone().trim_scale().parts()
    }
}

impl From<Decimal> for Numeric {
    fn from(d: Decimal) -> Numeric {
        // Through the mantissa, so that a negative zero becomes zero.
        Numeric::from_i128(d.mantissa(), d.scale()).expect("a decimal fits")
    }
}

impl From<i32> for Numeric {
    fn from(v: i32) -> Numeric {
        Numeric::new(v.into(), 0)
    }
}

impl From<i64> for Numeric {
    fn from(v: i64) -> Numeric {
        Numeric::new(v, 0)
    }
}

impl std::str::FromStr for Numeric {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Numeric, ParseError> {
        Numeric::parse(s)
    }
}

impl PartialEq for Numeric {
    fn eq(&self, other: &Numeric) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Numeric {}

impl Ord for Numeric {
    #[inline]
    fn cmp(&self, other: &Numeric) -> Ordering {
        match (&self.0, &other.0) {
            (Repr::Small(a), Repr::Small(b)) => a.cmp(b),
            (Repr::Special(a), Repr::Special(b)) => a.cmp(b),
            (Repr::Special(a), _) => match a {
                Special::NegInf => Ordering::Less,
                _ => Ordering::Greater,
            },
            (_, Repr::Special(_)) => other.cmp(self).reverse(),
            _ => {
                let (a, b, _) = self.aligned(other);
                a.cmp(&b)
            }
        }
    }
}

impl PartialOrd for Numeric {
    fn partial_cmp(&self, other: &Numeric) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Hash for Numeric {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Equal values hash alike whatever their scale or form: the mantissa without trailing
        // zeros, as i128 when it fits.
        match &self.0 {
            Repr::Small(d) => {
                let n = d.normalize();
                (n.mantissa(), n.scale()).hash(state)
            }
            Repr::Special(s) => s.hash(state),
            Repr::Big(_) => {
                let (m, s) = self.normalized();
                match m.to_i128() {
                    Some(v) => (v, s).hash(state),
                    None => (m.to_signed_bytes_le(), s).hash(state),
                }
            }
        }
    }
}

impl fmt::Display for Numeric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Small(d) => write!(f, "{d}"),
            Repr::Special(s) => f.write_str(s.text()),
            Repr::Big(b) => {
                let (m, s) = (&b.0, b.1 as usize);
                let digits = m.abs().to_str_radix(10);
                if m.is_negative() {
                    f.write_str("-")?;
                }
                if s == 0 {
                    return f.write_str(&digits);
                }
                let padded = if digits.len() <= s {
                    format!("{}{digits}", "0".repeat(s + 1 - digits.len()))
                } else {
                    digits
                };
                let (int, frac) = padded.split_at(padded.len() - s);
                write!(f, "{int}.{frac}")
            }
        }
    }
}

impl fmt::Debug for Numeric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

// As text: exact, and readable by formats (bincode between processes) that cannot ask a
// value what it is.
impl Serialize for Numeric {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Numeric {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Numeric, D::Error> {
        let text = String::deserialize(d)?;
        Numeric::parse(&text).map_err(|e| serde::de::Error::custom(format!("numeric: {e:?}")))
    }
}

#[cfg(test)]
mod tests;
