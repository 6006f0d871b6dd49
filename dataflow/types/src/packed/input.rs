//! Text input written straight into a packed row: `RowPacker::push_text` reads a field's text
//! with PostgreSQL's input rules for a column's type — the same rules as `Datum::parse_text`
//! (what `COPY`, casts and sources use), which it calls for every type but the string ones —
//! and writes the value without an owned `Datum` in between. Strings (`text`, `varchar(n)`,
//! `char(n)`) are written from the borrowed text, with the length rules of the casts
//! (`varchar_fit`, `char_fit`), so a source that decodes records into rows allocates no string
//! per field. A `numeric(p, s)` field written plainly (`-12.5`, at most `s` digits after the
//! point and `p - s` before it, `p` at most 28) goes straight to its packed mantissa at scale
//! `s`; any other text takes the general parser and the typmod's rounding. Plain integers
//! (`-123`) and ISO dates (`2024-01-31`) are read in place too.

use super::datum_ref::{DatumRef, NumericRef};
use super::packer::RowPacker;
use crate::datum::{char_fit, varchar_fit};
use crate::error::EvalError;
use crate::{Datum, ScalarType};

impl RowPacker {
    /// Appends the value of type `ty` that `text` is the input form of, or says why `text`
    /// is not one (then nothing is appended).
    pub fn push_text(&mut self, text: &str, ty: &ScalarType) -> Result<(), EvalError> {
        match ty {
            ScalarType::Text => self.push_ref(DatumRef::String(text)),
            ScalarType::VarChar { max_length: None } | ScalarType::Char { length: None } => {
                self.push_ref(DatumRef::String(text))
            }
            ScalarType::VarChar {
                max_length: Some(n),
            } => self.push_ref(DatumRef::String(varchar_fit(text, *n as usize)?)),
            ScalarType::Char { length: Some(n) } => {
                let (kept, blanks) = char_fit(text, *n as usize)?;
                self.push_padded_str(kept, blanks);
            }
            ScalarType::Int16 | ScalarType::Int32 | ScalarType::Int64 => {
                match plain_integer(text.as_bytes()) {
                    Some(v) if *ty == ScalarType::Int64 => self.push_ref(DatumRef::Int64(v)),
                    Some(v) if *ty == ScalarType::Int32 && i32::try_from(v).is_ok() => {
                        self.push_ref(DatumRef::Int32(v as i32))
                    }
                    Some(v) if *ty == ScalarType::Int16 && i16::try_from(v).is_ok() => {
                        self.push_ref(DatumRef::Int16(v as i16))
                    }
                    // Blanks, signs, out of range: the general parser and its errors.
                    _ => self.push(&Datum::parse_text(text, ty)?),
                }
            }
            ScalarType::Date => match crate::datetime::iso_date(text.as_bytes()) {
                Some(d) => self.push_ref(DatumRef::Date(d)),
                None => self.push(&Datum::parse_text(text, ty)?),
            },
            ScalarType::Numeric {
                precision: Some(p),
                scale: Some(s),
            } => match plain_numeric(text.as_bytes(), *p, *s) {
                Some(mantissa) => self.push_ref(DatumRef::Numeric(NumericRef::Small {
                    mantissa,
                    scale: *s as u8,
                })),
                None => self.push(&Datum::parse_text(text, ty)?),
            },
            _ => self.push(&Datum::parse_text(text, ty)?),
        }
        Ok(())
    }
}

/// `text` as an integer if it is plain: an optional `-` and 1 to 18 digits (so it fits an
/// `i64`), nothing else — no blanks or `+`, which the general parser reads.
fn plain_integer(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut v: i64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + i64::from(c - b'0');
    }
    Some(if negative { -v } else { v })
}

/// The mantissa at scale `scale` of `text` as a `numeric(precision, scale)`, if the text is
/// plain (an optional sign, digits with at most one point, at least one digit, at most 18 of
/// them, so the digits read as a `u64`), needs no rounding (at most `scale` digits after the
/// point) and fits (at most `precision - scale` digits before it, leading zeros aside), with
/// `precision` at most 28 (so the mantissa is a small numeric's). `None` for anything else,
/// which the general parser and the typmod decide (rounding, overflow errors, blanks,
/// exponents, NaN, more digits). One pass over the bytes, no division: a source decodes four
/// of these for every TPC-H line item.
fn plain_numeric(text: &[u8], precision: u16, scale: i16) -> Option<i128> {
    if precision > 28 || scale < 0 || scale as u16 > precision {
        return None;
    }
    let (negative, body) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, text),
    };
    if body.is_empty() || body.len() > 19 {
        return None;
    }
    let mut mantissa: u64 = 0;
    let (mut digits, mut before, mut after) = (0u32, 0u32, 0u32);
    let mut point = false;
    for &c in body {
        match c {
            b'0'..=b'9' => {
                mantissa = mantissa * 10 + u64::from(c - b'0');
                digits += 1;
                match point {
                    true => after += 1,
                    // Leading zeros are not digits before the point.
                    false if mantissa != 0 => before += 1,
                    false => {}
                }
            }
            b'.' if !point => point = true,
            _ => return None,
        }
    }
    let scale = scale as u32;
    if digits == 0 || digits > 18 || after > scale || before > u32::from(precision) - scale {
        return None;
    }
    let m = i128::from(mantissa) * 10i128.pow(scale - after);
    Some(if negative { -m } else { m })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each input packs as `Datum::parse_text`'s value, and fails where it fails.
    #[test]
    fn push_text_agrees_with_parse_text() {
        let types = [
            ScalarType::Text,
            ScalarType::VarChar { max_length: None },
            ScalarType::VarChar {
                max_length: Some(3),
            },
            ScalarType::Char { length: None },
            ScalarType::Char { length: Some(1) },
            ScalarType::Char { length: Some(4) },
            ScalarType::Char { length: Some(200) },
            ScalarType::Int16,
            ScalarType::Int32,
            ScalarType::Int64,
            ScalarType::Numeric {
                precision: Some(15),
                scale: Some(2),
            },
            ScalarType::Numeric {
                precision: Some(4),
                scale: Some(0),
            },
            ScalarType::Numeric {
                precision: Some(28),
                scale: Some(28),
            },
            ScalarType::Date,
            ScalarType::Bool,
        ];
        let inputs = [
            "",
            "a",
            "ab ",
            "abc",
            "abcd",
            "abc   ",
            "ab  x",
            "é",
            "ééé ",
            "éééé",
            " 12 ",
            "-7",
            "x1",
            "1.005",
            "1.5",
            "-1.50",
            "+3.25",
            "-0",
            "-0.00",
            "0.1",
            "007.5",
            "9999",
            "10000",
            "-9999.",
            ".5",
            "5.",
            "-",
            "1..2",
            "1.2.3",
            "1e3",
            "1,5",
            "0.1234567890123456789012345678",
            "0.12345678901234567890123456789",
            "1.0000000000000000000000000000",
            "12345678901234.99",
            "123456789012345.99",
            "12345678901234.999",
            "1996-03-13",
            "2024-02-30",
            "0000-01-01",
            "1996-3-13",
            "32767",
            "-32768",
            "32768",
            "2147483647",
            "-2147483648",
            "2147483648",
            "999999999999999999",
            "-999999999999999999",
            "9223372036854775807",
            "9223372036854775808",
            "+5",
            "5 ",
            "0x10",
            "t",
            "off",
        ];
        for ty in &types {
            for text in inputs {
                let mut p = RowPacker::new();
                let packed = p.push_text(text, ty).map(|()| p.finish());
                let owned = Datum::parse_text(text, ty).map(|d| vec![d]);
                assert_eq!(
                    format!("{:?}", packed.as_ref().map(|r| r.unpack())),
                    format!("{owned:?}"),
                    "{text:?} as {ty:?}"
                );
                // The same bytes as packing the parsed value (a numeric's scale included).
                if let (Ok(packed), Ok(owned)) = (&packed, &owned) {
                    let mut p = RowPacker::new();
                    p.push(&owned[0]);
                    assert_eq!(
                        packed.as_bytes(),
                        p.finish().as_bytes(),
                        "{text:?} as {ty:?}"
                    );
                }
            }
        }
        // A padded string longer than a short string's length packs as one datum.
        let mut p = RowPacker::new();
        p.push_text("x", &ScalarType::Char { length: Some(300) })
            .unwrap();
        p.push(&Datum::Int32(1));
        let row = p.finish().unpack();
        assert_eq!(row[0], Datum::String(format!("x{}", " ".repeat(299))));
        assert_eq!(row[1], Datum::Int32(1));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

        /// Decimal text of any shape near a typmod's limits packs exactly as the general parser
        /// and the typmod's rounding make it, or fails where they fail.
        #[test]
        fn numeric_input_agrees_with_parse_text(
            text in "[+-]?[0-9]{0,17}(\\.[0-9]{0,6})?",
            precision in 1u16..=30,
            scale_cut in 0u16..=30,
        ) {
            let ty = ScalarType::Numeric {
                precision: Some(precision),
                scale: Some(scale_cut.min(precision) as i16),
            };
            let mut p = RowPacker::new();
            let packed = p.push_text(&text, &ty).map(|()| p.finish());
            match (packed, Datum::parse_text(&text, &ty)) {
                (Ok(packed), Ok(owned)) => {
                    let mut q = RowPacker::new();
                    q.push(&owned);
                    let want = q.finish();
                    proptest::prop_assert_eq!(packed.as_bytes(), want.as_bytes());
                }
                (Err(a), Err(b)) => proptest::prop_assert_eq!(a.to_string(), b.to_string()),
                (a, b) => proptest::prop_assert!(false, "{:?} vs {:?}", a.map(|r| r.unpack()), b),
            }
        }
    }
}
