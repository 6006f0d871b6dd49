//! `to_char` of integer, bigint, numeric, real and double precision values: each type's value
//! turned into the digits the picture writer places, as PostgreSQL's `int4_to_char`,
//! `int8_to_char`, `numeric_to_char`, `float4_to_char` and `float8_to_char` turn it — rounded
//! to the picture's digits after the point (numeric half away from zero, floats as C's
//! `printf`, to at most 15 or 6 significant digits), multiplied by `V`'s power of ten, in
//! roman numerals (`RN`, 1 to 3999, else `#` filler) or scientific notation (`EEEE`), and `#`
//! filler when the digits before the point do not fit.

use super::num_desc::NumDesc;
use super::num_out::Prepared;
use crate::error::EvalError;
use crate::numeric::{Numeric, Rounding};

/// A value `to_char` formats as a number.
pub enum NumValue {
    Int4(i32),
    Int8(i64),
    Numeric(Numeric),
    Float4(f32),
    Float8(f64),
}

/// Roman numerals of 1 to 3999, `#` filler otherwise (`int_to_roman`).
fn roman(n: i64) -> String {
    if !(1..=3999).contains(&n) {
        return "#".repeat(15);
    }
    let mut n = n;
    let mut out = String::new();
    for (value, text) in [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ] {
        while n >= value {
            out.push_str(text);
            n -= value;
        }
    }
    out
}

/// C's `%+.*e`: sign always, at least two exponent digits.
fn c_exp(v: f64, prec: usize) -> String {
    let text = format!("{:+.*e}", prec, v);
    let (mantissa, exp) = text.split_once('e').expect("exponent");
    let e: i32 = exp.parse().expect("exponent digits");
    format!("{mantissa}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// PostgreSQL's `numeric_out_sci`: the significand rounded to `post` digits after the point
/// (half away from zero, the exponent chosen before rounding, so 9.99 is `10.0e+00`). Works on
/// the decimal digits as text, so a value of any size (thousands of digits) and any `post` are
/// fine: half away from zero only looks at the first digit dropped.
fn numeric_sci(n: &Numeric, post: usize) -> String {
    if let Some(s) = n.special() {
        return s.text().to_string();
    }
    let (m, s) = n.parts();
    let all = m.magnitude().to_string();
    let zero = m.sign() == num_bigint::Sign::NoSign;
    let exponent = if zero {
        0
    } else {
        all.len() as i64 - 1 - i64::from(s)
    };
    let mut kept: Vec<u8> = all.bytes().take(post + 1).collect();
    kept.resize(post + 1, b'0');
    if !zero && all.as_bytes().get(post + 1).is_some_and(|d| *d >= b'5') {
        // Carry: 9.99 rounds to 10.0.
        let mut i = kept.len();
        loop {
            if i == 0 {
                kept.insert(0, b'1');
                break;
            }
            i -= 1;
            if kept[i] == b'9' {
                kept[i] = b'0';
            } else {
                kept[i] += 1;
                break;
            }
        }
    }
    let (whole, fraction) = kept.split_at(kept.len() - post);
    let mut out = String::new();
    if m.sign() == num_bigint::Sign::Minus {
        out.push('-');
    }
    out.push_str(std::str::from_utf8(whole).expect("digits"));
    if post > 0 {
        out.push('.');
        out.push_str(std::str::from_utf8(fraction).expect("digits"));
    }
    let sign = if exponent < 0 { '-' } else { '+' };
    out.push_str(&format!("e{sign}{:02}", exponent.abs()));
    out
}

/// `#` filler for the picture's digits, with the point (`###.##`).
fn overflow(d: &NumDesc) -> String {
    let mut s = "#".repeat(d.pre + d.post + 1);
    s.replace_range(d.pre..d.pre + 1, ".");
    s
}

/// Splits off the sign and pads or overflows the digits before the point.
fn fit(text: String, d: &NumDesc) -> Prepared {
    let (sign, digits) = match text.strip_prefix('-') {
        Some(rest) => ('-', rest.to_string()),
        None => ('+', text),
    };
    let pre_len = digits.find('.').unwrap_or(digits.len());
    if pre_len < d.pre {
        Prepared {
            digits,
            sign,
            pre_spaces: d.pre - pre_len,
        }
    } else if pre_len > d.pre {
        Prepared {
            digits: overflow(d),
            sign,
            pre_spaces: 0,
        }
    } else {
        Prepared {
            digits,
            sign,
            pre_spaces: 0,
        }
    }
}

/// Scientific notation for NaN and the infinities: `#` filler in the notation's shape.
fn special_sci(d: &NumDesc) -> String {
    let mut s = "#".repeat(d.pre + d.post + 6);
    s.replace_range(0..1, " ");
    s.replace_range(d.pre + 1..d.pre + 2, ".");
    s
}

fn with_space(text: String) -> String {
    if text.starts_with('-') {
        text
    } else {
        format!(" {text}")
    }
}

/// A leading `+` swapped for a blank.
fn lead_space(text: String) -> String {
    match text.strip_prefix('+') {
        Some(rest) => format!(" {rest}"),
        None => text,
    }
}

fn int_out_of_range(ty: &str) -> EvalError {
    EvalError::NumericOutOfRange(ty.to_string())
}

/// The digits, sign and padding of `value` for the picture `d` (whose `pre` grows by `V`'s
/// digits, as in PostgreSQL).
pub fn prepare(value: &NumValue, d: &mut NumDesc) -> Result<Prepared, EvalError> {
    let plain = |digits: String| Prepared {
        digits,
        sign: '+',
        pre_spaces: 0,
    };
    match value {
        NumValue::Int4(_) | NumValue::Int8(_) => {
            let (v, is8) = match value {
                NumValue::Int4(v) => (i64::from(*v), false),
                NumValue::Int8(v) => (*v, true),
                _ => unreachable!(),
            };
            if d.roman {
                let v = i32::try_from(v).map_err(|_| int_out_of_range("integer"))?;
                return Ok(plain(roman(v.into())));
            }
            if d.eeee {
                let text = if is8 {
                    numeric_sci(&Numeric::from(v), d.post)
                } else {
                    c_exp(v as f64, d.post)
                };
                return Ok(plain(if is8 {
                    with_space(text)
                } else {
                    lead_space(text)
                }));
            }
            let v = if d.multi_flag {
                let factor = 10i64.checked_pow(d.multi as u32);
                let product = factor.and_then(|f| v.checked_mul(f));
                d.pre += d.multi;
                match (is8, product) {
                    (true, None) => return Err(int_out_of_range("bigint")),
                    (true, Some(p)) => p,
                    // int4 multiplies in 32 bits, wrapping as C does.
                    (false, _) => {
                        i64::from((v as i32).wrapping_mul(10i32.wrapping_pow(d.multi as u32)))
                    }
                }
            } else {
                v
            };
            let mut text = v.to_string();
            if d.post > 0 {
                text.push('.');
                text.push_str(&"0".repeat(d.post));
            }
            Ok(fit(text, d))
        }
        NumValue::Numeric(n) => {
            if d.roman {
                if !n.is_finite() {
                    return Err(EvalError::NumericSpecialToInteger {
                        what: if n.is_nan() { "NaN" } else { "infinity" }.into(),
                        type_name: "integer".into(),
                    });
                }
                let r = n
                    .round(0, Rounding::HalfAway)?
                    .to_i64_rounded()
                    .and_then(|v| i32::try_from(v).ok())
                    .ok_or_else(|| int_out_of_range("integer"))?;
                return Ok(plain(roman(r.into())));
            }
            if d.eeee {
                if !n.is_finite() {
                    return Ok(plain(special_sci(d)));
                }
                return Ok(plain(with_space(numeric_sci(n, d.post))));
            }
            let mut v = n.clone();
            if d.multi_flag {
                let factor = Numeric::parse(&format!("1e{}", d.multi))
                    .map_err(|e| e.into_eval("", "numeric"))?;
                v = v.checked_mul(&factor)?;
                d.pre += d.multi;
            }
            let rounded = v.round(d.post as i64, Rounding::HalfAway)?;
            Ok(fit(rounded.to_string(), d))
        }
        NumValue::Float4(_) | NumValue::Float8(_) => {
            let (v, max_digits) = match value {
                NumValue::Float4(v) => (f64::from(*v), 6),
                NumValue::Float8(v) => (*v, 15),
                _ => unreachable!(),
            };
            if d.roman {
                return Ok(plain(roman(v.round_ties_even() as i32 as i64)));
            }
            if d.eeee {
                if !v.is_finite() {
                    return Ok(plain(special_sci(d)));
                }
                return Ok(plain(lead_space(c_exp(v, d.post))));
            }
            let mut val = v;
            if d.multi_flag {
                match value {
                    NumValue::Float4(f) => {
                        val = f64::from(*f * 10f32.powi(d.multi as i32));
                    }
                    _ => val = v * 10f64.powi(d.multi as i32),
                }
                d.pre += d.multi;
            }
            let whole = c_fixed(val.abs(), 0);
            let pre_len = whole.len();
            let post = if pre_len >= max_digits {
                0
            } else {
                d.post.min(max_digits - pre_len)
            };
            d.post = post;
            Ok(fit(c_fixed(val, post), d))
        }
    }
}

/// `%.*f` of PostgreSQL's own `snprintf`, which spells NaN and the infinities as SQL does.
fn c_fixed(v: f64, prec: usize) -> String {
    if v.is_nan() {
        return "NaN".to_string();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-Infinity" } else { "Infinity" }.to_string();
    }
    format!("{:.*}", prec, v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_formats() {
        assert_eq!(c_exp(25.0, 0), "+2e+01");
        assert_eq!(c_exp(35.0, 0), "+4e+01");
        assert_eq!(c_exp(-0.000123, 2), "-1.23e-04");
        assert_eq!(c_fixed(2.5, 0), "2");
        assert_eq!(c_fixed(0.125, 2), "0.12");
        assert_eq!(roman(3999), "MMMCMXCIX");
        assert_eq!(roman(0), "###############");
    }

    #[test]
    fn numeric_scientific() {
        let n = |s: &str| Numeric::parse(s).unwrap();
        assert_eq!(numeric_sci(&n("9.99"), 1), "10.0e+00");
        assert_eq!(numeric_sci(&n("-0.00012345"), 2), "-1.23e-04");
        assert_eq!(numeric_sci(&n("0"), 2), "0.00e+00");
        assert_eq!(numeric_sci(&n("12345"), 0), "1e+04");
        assert_eq!(numeric_sci(&n("-15"), 0), "-2e+01");
        assert_eq!(numeric_sci(&n("0.5"), 3), "5.000e-01");
        let huge = Numeric::parse(&format!("1{}", "0".repeat(20000))).unwrap();
        assert_eq!(numeric_sci(&huge, 2), "1.00e+20000");
    }
}
