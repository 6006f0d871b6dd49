//! An order-preserving 59-bit prefix of a numeric value, for the sort keys of rows (`order.rs`).
//!
//! A key must be monotone (`a < b` implies `key(a) <= key(b)`) and should carry its
//! information in its top bits, since a row's key keeps only the top bits of a datum that
//! follows exactly coded columns. So a numeric is keyed as a float is: the sign, then the
//! decimal exponent (the position of its first significant digit), then its first 15
//! significant digits, all inverted for negative values. Values that differ only beyond the
//! 15th digit tie, as do exponents outside -128..=127 (above: the greatest magnitude key, below:
//! the least, which ties with zero — both clamps monotone); a tie only means the full
//! comparison decides. Equal values at different scales (`1.0`, `1.00`) get one key.
//! `-Infinity` takes the least key, `Infinity` and `NaN` (greater than everything, as in
//! PostgreSQL) the greatest. A value beyond 96 bits (rare) is read into a big integer and
//! printed to find its digits, each time its key is computed.

use super::datum_ref::{big_scale, NumericRef};
use crate::numeric::Special;
use num_bigint::BigInt;
use num_traits::{Signed, Zero};

/// Bits of the payload: one for the sign, `EXPONENT_BITS`, `DIGIT_BITS`.
pub(super) const NUMERIC_KEY_BITS: u32 = 59;
const EXPONENT_BITS: u32 = 8;
const DIGIT_BITS: u32 = 50;
/// Significant digits kept: 10^15 < 2^50.
const DIGITS: u32 = 15;
const EXPONENT_BIAS: i64 = 128;

/// The key of a numeric, below `2^NUMERIC_KEY_BITS`.
pub(super) fn numeric_key(n: &NumericRef<'_>) -> u64 {
    let zero = 1u64 << (NUMERIC_KEY_BITS - 1);
    let max = (1u64 << NUMERIC_KEY_BITS) - 1;
    let (negative, magnitude) = match *n {
        NumericRef::Special(Special::NegInf) => return 0,
        NumericRef::Special(_) => return max,
        NumericRef::Small { mantissa, scale } => {
            if mantissa == 0 {
                return zero;
            }
            (
                mantissa < 0,
                small_magnitude(mantissa.unsigned_abs(), i64::from(scale)),
            )
        }
        NumericRef::Big(bytes) => {
            let scale = big_scale(bytes);
            let mantissa = BigInt::from_signed_bytes_le(&bytes[4..]);
            if mantissa.is_zero() {
                return zero;
            }
            (
                mantissa.is_negative(),
                big_magnitude(&mantissa.abs(), i64::from(scale)),
            )
        }
    };
    if negative {
        zero - 1 - magnitude
    } else {
        zero | magnitude
    }
}

/// The magnitude's key (below 2^58) from its exponent and its first `DIGITS` digits.
fn magnitude_key(exponent: i64, digits: u64) -> u64 {
    let biased = exponent + EXPONENT_BIAS;
    let top = (1i64 << EXPONENT_BITS) - 1;
    if biased < 0 {
        0
    } else if biased > top {
        (1u64 << (EXPONENT_BITS + DIGIT_BITS)) - 1
    } else {
        (biased as u64) << DIGIT_BITS | digits
    }
}

/// `m / 10^scale` for `m > 0` below 2^96 (in 64-bit arithmetic when it fits, as nearly every
/// stored value does).
fn small_magnitude(m: u128, scale: i64) -> u64 {
    if let Ok(m) = u64::try_from(m) {
        let d = m.ilog10() + 1;
        let digits = if d <= DIGITS {
            m * 10u64.pow(DIGITS - d)
        } else {
            m / 10u64.pow(d - DIGITS)
        };
        return magnitude_key(i64::from(d) - scale, digits);
    }
    let d = m.ilog10() + 1;
    magnitude_key(i64::from(d) - scale, (m / 10u128.pow(d - DIGITS)) as u64)
}

/// `m / 10^scale` for `m > 0` of any size.
fn big_magnitude(m: &BigInt, scale: i64) -> u64 {
    let text = m.to_string();
    let d = text.len();
    let digits: u64 = text[..d.min(DIGITS as usize)]
        .parse::<u64>()
        .expect("decimal digits")
        * 10u64.pow(DIGITS.saturating_sub(d as u32));
    magnitude_key(d as i64 - scale, digits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::Numeric;
    use crate::packed::RowPacker;
    use crate::Datum;

    fn key_of(text: &str) -> u64 {
        let n: Numeric = text.parse().unwrap();
        let mut p = RowPacker::new();
        p.push(&Datum::Numeric(n));
        let row = p.finish();
        let d = row.iter().next().unwrap();
        match d {
            crate::packed::DatumRef::Numeric(r) => numeric_key(&r),
            other => panic!("not a numeric: {other:?}"),
        }
    }

    #[test]
    fn keys_follow_the_values_order() {
        let values = [
            "-Infinity",
            "-1e200",
            "-123456789012345678901234567890.5",
            "-1000",
            "-999.99",
            "-1.5",
            "-1",
            "-0.000000000000000000000000000001",
            "0",
            "0.000000000000000000000000000000000000001",
            "0.0001",
            "0.04",
            "0.05",
            "1",
            "1.00",
            "1.000000000000000000001",
            "17",
            "17.5",
            "50",
            "104949.50",
            "99999999999999999999999999999",
            "100000000000000000000000000000000",
            "1e200",
            "Infinity",
            "NaN",
        ];
        let parsed: Vec<Numeric> = values.iter().map(|v| v.parse().unwrap()).collect();
        for i in 0..values.len() {
            for j in 0..values.len() {
                if parsed[i] < parsed[j] {
                    assert!(
                        key_of(values[i]) <= key_of(values[j]),
                        "{} < {} but its key is greater",
                        values[i],
                        values[j]
                    );
                }
            }
        }
        assert_eq!(key_of("1"), key_of("1.00"), "equal values, one key");
        for pair in ["0.04", "0.05", "1", "17", "17.5", "50", "104949.50"].windows(2) {
            assert!(key_of(pair[0]) < key_of(pair[1]), "{pair:?} told apart");
        }
        assert!(key_of("-1.5") < key_of("-1"));
        assert!(key_of("-1") < key_of("0") && key_of("0") < key_of("0.0001"));
    }

    #[test]
    fn keys_are_monotone_over_many_values() {
        let mut seed = 99u64;
        let mut values = Vec::new();
        for _ in 0..3000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mantissa = (seed >> 20) as i64 % 2_000_001 - 1_000_000;
            let scale = (seed >> 8) % 6;
            let shift = (seed >> 50) % 30;
            let text = format!("{mantissa}e{}", shift as i64 - 15 - scale as i64);
            values.push(text);
        }
        let mut keyed: Vec<(Numeric, u64)> = values
            .iter()
            .map(|v| (v.parse().unwrap(), key_of(v)))
            .collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        for w in keyed.windows(2) {
            assert!(
                w[0].1 <= w[1].1,
                "{} < {} keyed out of order",
                w[0].0,
                w[1].0
            );
        }
    }
}
