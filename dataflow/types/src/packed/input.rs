//! Text input written straight into a packed row: `RowPacker::push_text` reads a field's text
//! with PostgreSQL's input rules for a column's type — the same rules as `Datum::parse_text`
//! (what `COPY`, casts and sources use), which it calls for every type but the string ones —
//! and writes the value without an owned `Datum` in between. Strings (`text`, `varchar(n)`,
//! `char(n)`) are written from the borrowed text, with the length rules of the casts
//! (`varchar_fit`, `char_fit`), so a source that decodes records into rows allocates no string
//! per field.

use super::datum_ref::DatumRef;
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
            _ => self.push(&Datum::parse_text(text, ty)?),
        }
        Ok(())
    }
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
            ScalarType::Int32,
            ScalarType::Int64,
            ScalarType::Numeric {
                precision: Some(15),
                scale: Some(2),
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
            "12345678901234.999",
            "1996-03-13",
            "2024-02-30",
            "t",
            "off",
        ];
        for ty in &types {
            for text in inputs {
                let mut p = RowPacker::new();
                let packed = p.push_text(text, ty).map(|()| p.finish().unpack());
                let owned = Datum::parse_text(text, ty).map(|d| vec![d]);
                assert_eq!(
                    format!("{packed:?}"),
                    format!("{owned:?}"),
                    "{text:?} as {ty:?}"
                );
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
}
