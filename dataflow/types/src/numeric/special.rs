//! numeric's three values that are not numbers: `NaN`, `Infinity` and `-Infinity`, as
//! PostgreSQL 14 and later have them.
//!
//! They are held inline beside the finite forms (no allocation), ordered `-Infinity` < every
//! finite value < `Infinity` < `NaN` (numeric's sort order, in which `NaN = NaN`), and read
//! case-insensitively as `NaN`, `[+-]Infinity` and `[+-]inf` (a sign before `NaN` is invalid).
//! This file owns the rules of arithmetic when an operand is one of them, following
//! PostgreSQL's `numeric.c`: any `NaN` operand gives `NaN`; `Infinity - Infinity`,
//! `Infinity * 0`, `Infinity / Infinity` and `Infinity % x` are `NaN`; a finite value divided by
//! an infinity is `0`, its remainder by one is itself; dividing anything but `NaN` by zero is
//! still 22012. Each rule returns `None` when both operands are finite, for the caller's
//! finite arithmetic.

use super::Numeric;
use crate::error::EvalError;

/// A numeric that is not a finite number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Special {
    NegInf,
    PosInf,
    NaN,
}

impl Special {
    /// PostgreSQL's text for it.
    pub fn text(self) -> &'static str {
        match self {
            Special::NegInf => "-Infinity",
            Special::PosInf => "Infinity",
            Special::NaN => "NaN",
        }
    }

    /// PostgreSQL's sign word in the binary form.
    pub(super) fn sign_word(self) -> u16 {
        match self {
            Special::NaN => 0xC000,
            Special::PosInf => 0xD000,
            Special::NegInf => 0xF000,
        }
    }

    /// The display scale PostgreSQL sends with it: its stored header read as a short
    /// numeric's, which for the infinities has the bit worth 32 set.
    pub(super) fn binary_dscale(self) -> u16 {
        (self.sign_word() & 0x1F80) >> 7
    }

    /// The special value `text` spells, if any (surrounding blanks are the caller's).
    pub(super) fn parse(text: &str) -> Option<Special> {
        if text.eq_ignore_ascii_case("nan") {
            return Some(Special::NaN);
        }
        let (negative, unsigned) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        let infinite = ["infinity", "inf"]
            .iter()
            .any(|w| unsigned.eq_ignore_ascii_case(w));
        match (infinite, negative) {
            (false, _) => None,
            (true, false) => Some(Special::PosInf),
            (true, true) => Some(Special::NegInf),
        }
    }

    fn negated(self) -> Special {
        match self {
            Special::NegInf => Special::PosInf,
            Special::PosInf => Special::NegInf,
            Special::NaN => Special::NaN,
        }
    }
}

/// -1, 0 or 1 for a finite value, ±1 for an infinity; `None` for NaN.
fn sign(n: &Numeric) -> Option<i32> {
    match n.special() {
        Some(Special::NaN) => None,
        Some(Special::PosInf) => Some(1),
        Some(Special::NegInf) => Some(-1),
        None => Some(n.signum()),
    }
}

fn infinity(sign: i32) -> Numeric {
    Numeric::special_value(if sign < 0 {
        Special::NegInf
    } else {
        Special::PosInf
    })
}

const NAN: Numeric = Numeric::NAN;

/// `a + b` (or `a - b`) when either is special.
pub(super) fn add(a: &Numeric, b: &Numeric, subtract: bool) -> Option<Numeric> {
    let sb = b.special().map(|s| if subtract { s.negated() } else { s });
    match (a.special(), sb) {
        (None, None) => None,
        (Some(Special::NaN), _) | (_, Some(Special::NaN)) => Some(NAN),
        (Some(x), Some(y)) if x != y => Some(NAN),
        (Some(x), _) | (None, Some(x)) => Some(Numeric::special_value(x)),
    }
}

/// `a * b` when either is special.
pub(super) fn mul(a: &Numeric, b: &Numeric) -> Option<Numeric> {
    if a.special().is_none() && b.special().is_none() {
        return None;
    }
    Some(match (sign(a), sign(b)) {
        (Some(x), Some(y)) if x * y != 0 => infinity(x * y),
        _ => NAN,
    })
}

/// `a / b` when either is special.
pub(super) fn div(a: &Numeric, b: &Numeric) -> Option<Result<Numeric, EvalError>> {
    if a.special().is_none() && b.special().is_none() {
        return None;
    }
    Some(match (sign(a), sign(b), a.special().is_some()) {
        (None, _, _) | (_, None, _) => Ok(NAN),
        // Infinity / ±Infinity.
        (_, _, true) if b.special().is_some() => Ok(NAN),
        (_, Some(0), _) => Err(EvalError::DivisionByZero),
        (Some(x), Some(y), true) => Ok(infinity(x * y)),
        // Finite / ±Infinity.
        _ => Ok(Numeric::ZERO),
    })
}

/// `a % b` when either is special.
pub(super) fn rem(a: &Numeric, b: &Numeric) -> Option<Result<Numeric, EvalError>> {
    if a.special().is_none() && b.special().is_none() {
        return None;
    }
    Some(match (sign(a), sign(b), a.special().is_some()) {
        (None, _, _) | (_, None, _) => Ok(NAN),
        (_, Some(0), _) => Err(EvalError::DivisionByZero),
        (_, _, true) => Ok(NAN),
        // Finite % ±Infinity.
        _ => Ok(a.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Numeric {
        Numeric::parse(s).unwrap()
    }

    #[test]
    fn order_puts_nan_last_and_equal_to_itself() {
        let sorted = ["-Infinity", "-1e100", "0", "1e100", "Infinity", "NaN"].map(n);
        for (i, a) in sorted.iter().enumerate() {
            for (j, b) in sorted.iter().enumerate() {
                assert_eq!(a.cmp(b), i.cmp(&j), "{a} vs {b}");
            }
        }
        assert_eq!(n("nan"), n("NaN"));
    }

    #[test]
    fn arithmetic_follows_postgresql() {
        let cases = [
            ("Infinity", "+", "-Infinity", Ok("NaN")),
            ("Infinity", "-", "Infinity", Ok("NaN")),
            ("Infinity", "+", "1", Ok("Infinity")),
            ("1", "-", "Infinity", Ok("-Infinity")),
            ("Infinity", "*", "0", Ok("NaN")),
            ("-Infinity", "*", "-2", Ok("Infinity")),
            ("NaN", "*", "0", Ok("NaN")),
            ("1.50", "/", "Infinity", Ok("0")),
            ("Infinity", "/", "-3", Ok("-Infinity")),
            ("Infinity", "/", "Infinity", Ok("NaN")),
            ("Infinity", "/", "0", Err(EvalError::DivisionByZero)),
            ("NaN", "/", "0", Ok("NaN")),
            ("Infinity", "%", "2", Ok("NaN")),
            ("Infinity", "%", "0", Err(EvalError::DivisionByZero)),
            ("-2.5", "%", "-Infinity", Ok("-2.5")),
            ("NaN", "%", "0", Ok("NaN")),
        ];
        for (a, op, b, want) in cases {
            let (a, b) = (n(a), n(b));
            let got = match op {
                "+" => a.checked_add(&b),
                "-" => a.checked_sub(&b),
                "*" => a.checked_mul(&b),
                "/" => a.checked_div(&b),
                _ => a.checked_rem(&b),
            };
            assert_eq!(
                got.map(|v| v.to_string()),
                want.map(str::to_string),
                "{a} {op} {b}"
            );
        }
    }

    #[test]
    fn binary_form_has_the_special_sign_words() {
        assert_eq!(n("NaN").to_pg_binary(), [0, 0, 0, 0, 0xC0, 0, 0, 0]);
        assert_eq!(n("inf").to_pg_binary(), [0, 0, 0, 0, 0xD0, 0, 0, 32]);
        assert_eq!(n("-inf").to_pg_binary(), [0, 0, 0, 0, 0xF0, 0, 0, 32]);
    }
}
