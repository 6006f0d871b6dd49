//! `int2vector`, the type of `pg_index.indkey` and `indoption`: a list of smallints written
//! `1 2` (space-separated), subscripted from 0, sent in binary as an `int2` array with lower
//! bound 0. Drivers read it with subscripts (`indoption[n - 1]`), expand it with
//! `_pg_expandarray` or cast it to `int2[]`. It is a `Datum::Int2Vector`, apart from arrays
//! only because its text form differs.

use crate::datum::Datum;
use crate::error::EvalError;

/// Writes `1 2 3`.
pub(crate) fn write(v: &[i16], out: &mut String) {
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&x.to_string());
    }
}

/// Reads whitespace-separated smallints.
pub fn parse(text: &str) -> Result<Datum, EvalError> {
    text.split_ascii_whitespace()
        .map(|w| match w.parse::<i64>() {
            Ok(n) => i16::try_from(n).map_err(|_| EvalError::OutOfRangeValue {
                value: w.to_string(),
                type_name: "smallint".into(),
            }),
            Err(_) => Err(EvalError::InvalidTextRepresentation {
                type_name: "smallint".into(),
                value: w.to_string(),
            }),
        })
        .collect::<Result<_, _>>()
        .map(Datum::Int2Vector)
}

/// The elements as an `int2[]`'s.
pub fn elements(v: &[i16]) -> Vec<Datum> {
    v.iter().map(|x| Datum::Int16(*x)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trip() {
        let d = parse(" 1  2 3").unwrap();
        assert_eq!(d, Datum::Int2Vector(vec![1, 2, 3]));
        assert_eq!(d.to_text().unwrap(), "1 2 3");
        assert_eq!(parse("").unwrap().to_text().unwrap(), "");
        assert_eq!(parse("1 x").unwrap_err().sqlstate(), "22P02");
    }
}
