//! PostgreSQL's text output of `real` and `double precision` (PostgreSQL 12 and later): the
//! shortest digits that read back as the value, then a fixed or exponent layout.
//!
//! PostgreSQL runs the Ryū algorithm with one difference from the `ryu` crate: it never prints
//! a decimal that lies exactly halfway between two floats, even where reading it back (rounding
//! half to even) would give the value. So the float just below 1e23 prints as
//! `9.999999999999999e+22`, not `1e+23`. The digits come from `ryu`, are checked to lie strictly
//! inside the value's rounding interval, and in the rare case they lie on its edge the next
//! longer correctly rounded decimal is taken.
//!
//! With `extra_float_digits` at 0 or below, PostgreSQL prints `%.*g` instead: 15 (double) or 6
//! (real) significant digits plus the setting, at least 1 (`Datum::write_text_float_digits`).

use std::fmt::Write;

use crate::datum::Datum;

impl Datum {
    /// The text output as PostgreSQL writes it under `extra_float_digits` (-15 ..= 3): only
    /// `real` and `double precision` depend on it; `write_text` is the default (1).
    pub fn write_text_float_digits(&self, extra_float_digits: i32, out: &mut String) {
        match self {
            Datum::Float32(f) if extra_float_digits <= 0 && f.0.is_finite() => {
                write_g(f64::from(f.0), 6 + extra_float_digits, out)
            }
            Datum::Float64(f) if extra_float_digits <= 0 && f.0.is_finite() => {
                write_g(f.0, 15 + extra_float_digits, out)
            }
            Datum::Array(a) => crate::array::write(a, out, |d, out| {
                d.write_text_float_digits(extra_float_digits, out)
            }),
            Datum::Record(f) => crate::array::record::write(f, out, |d, out| {
                d.write_text_float_digits(extra_float_digits, out)
            }),
            d => d.write_text(out),
        }
    }

    /// `write_text_float_digits` as a string, `None` for NULL.
    pub fn to_text_float_digits(&self, extra_float_digits: i32) -> Option<String> {
        if self.is_null() {
            return None;
        }
        let mut s = String::new();
        self.write_text_float_digits(extra_float_digits, &mut s);
        Some(s)
    }
}

/// C's `%.*g` of a finite `value` with `precision` significant digits (at least 1): exponent
/// form when the exponent is below -4 or at least the precision, trailing zeros removed.
fn write_g(value: f64, precision: i32, out: &mut String) {
    let precision = precision.max(1) as usize;
    let exp_form = format!("{:.*e}", precision - 1, value);
    let (mantissa, exp) = exp_form.split_once('e').expect("exponent");
    let exp: i32 = exp.parse().expect("exponent");
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if exp < -4 || exp >= precision as i32 {
        out.push_str(&trim(mantissa));
        write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs()).unwrap();
    } else {
        let decimals = (precision as i32 - 1 - exp) as usize;
        out.push_str(&trim(&format!("{value:.decimals$}")));
    }
}

/// A float type as far as its text is concerned.
pub(crate) trait PgFloat:
    ryu::Float
    + std::str::FromStr
    + PartialEq
    + Copy
    + std::fmt::LowerExp
    + std::ops::Neg<Output = Self>
{
    /// Significant digits that always identify a value (17 for double, 9 for real).
    const MAX_DIGITS: usize;
}

impl PgFloat for f64 {
    const MAX_DIGITS: usize = 17;
}

impl PgFloat for f32 {
    const MAX_DIGITS: usize = 9;
}

/// Digits (no leading or trailing zeros) and the decimal exponent of the first one, from a
/// finite, nonzero, unsigned decimal text such as `1e23`, `1.5e-7`, `123.0` or `0.001`.
fn digits_and_exponent(text: &str) -> (String, i32) {
    let (mantissa, exp) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().expect("exponent")),
        None => (text, 0),
    };
    let point = mantissa.find('.').unwrap_or(mantissa.len()) as i32;
    let all: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let significant = all.trim_start_matches('0');
    let leading = (all.len() - significant.len()) as i32;
    (
        significant.trim_end_matches('0').to_string(),
        exp + point - 1 - leading,
    )
}

/// Whether `digits` × 10^(`exp` - len + 1) reads back as `value` and is not on the edge of its
/// rounding interval: nudged by far less than any distance that matters, up and down, it
/// still reads back as `value` (and so does the decimal itself, which lies between the two).
fn strictly_identifies<F: PgFloat>(digits: &str, exp: i32, value: F) -> bool {
    const NUDGE: usize = 60;
    let reads = |text: &str| text.parse::<F>().is_ok_and(|v| v == value);
    let scale = exp - digits.len() as i32 + 1;
    let up = format!(
        "{digits}{}1e{}",
        "0".repeat(NUDGE),
        scale - NUDGE as i32 - 1
    );
    // digits − 1 (with borrows), then nines: the decimal just below.
    let mut below: Vec<u8> = digits.bytes().collect();
    for d in below.iter_mut().rev() {
        if *d == b'0' {
            *d = b'9';
        } else {
            *d -= 1;
            break;
        }
    }
    let down = format!(
        "{}{}e{}",
        String::from_utf8(below).expect("digits"),
        "9".repeat(NUDGE + 1),
        scale - NUDGE as i32 - 1
    );
    reads(&up) && reads(&down)
}

/// Writes `value` (finite, nonzero) as PostgreSQL does: exponent form when the exponent of
/// the first digit is below -4 or at least `fixed_digits` (6 for real, 15 for double).
pub(crate) fn write<F: PgFloat>(value: F, negative: bool, fixed_digits: i32, out: &mut String) {
    // Digits are found for the magnitude; the sign is written in front.
    let value = if negative { -value } else { value };
    let mut buffer = ryu::Buffer::new();
    let text = buffer.format_finite(value);
    let (mut digits, mut exp) = digits_and_exponent(text);
    if !strictly_identifies(&digits, exp, value) {
        // On the edge: the shortest correctly rounded decimal strictly inside.
        for n in digits.len() + 1..=F::MAX_DIGITS {
            let candidate = format!("{:.*e}", n - 1, value);
            let (d, e) = digits_and_exponent(&candidate);
            if strictly_identifies(&d, e, value) {
                (digits, exp) = (d, e);
                break;
            }
        }
    }
    if negative {
        out.push('-');
    }
    if exp < -4 || exp >= fixed_digits {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs()).unwrap();
    } else if exp < 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
        out.push_str(&digits);
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', int_len - digits.len()));
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ordered_float::OrderedFloat;

    fn text(d: Datum, efd: i32) -> String {
        d.to_text_float_digits(efd).unwrap()
    }

    /// Expected values are PostgreSQL 15's output.
    #[test]
    fn percent_g_digits() {
        let f8 = |f: f64| Datum::Float64(OrderedFloat(f));
        let f4 = |f: f32| Datum::Float32(OrderedFloat(f));
        assert_eq!(text(f8(0.1 + 0.2), 0), "0.3");
        assert_eq!(text(f8(0.1 + 0.2), 1), "0.30000000000000004");
        assert_eq!(text(f4(431.7726), 0), "431.773");
        assert_eq!(text(f4(431.7726), -3), "432");
        assert_eq!(text(f8(1e20), 0), "1e+20");
        assert_eq!(text(f8(123456789012345680.0), 0), "1.23456789012346e+17");
        assert_eq!(text(f8(0.0001234), 0), "0.0001234");
        assert_eq!(text(f8(0.00001234), 0), "1.234e-05");
        assert_eq!(text(f8(-0.0), 0), "-0");
        assert_eq!(text(f8(f64::INFINITY), 0), "Infinity");
        assert_eq!(text(f8(f64::NAN), -15), "NaN");
        assert_eq!(text(f8(12345.678), -15), "1e+04");
        assert_eq!(text(f8(100.0), 0), "100");
        assert_eq!(text(f4(1.5e-7), -6), "2e-07");
    }
}
