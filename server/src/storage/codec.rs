//! The byte form of what the store keeps: a format byte, then bincode of the value. The format
//! byte lets a later kpg (packed rows, say) tell its own encoding from this one and refuse, or
//! convert, instead of misreading.

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::StoreError;

/// The one encoding written today.
const FORMAT: u8 = 1;

pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    let mut out = vec![FORMAT];
    bincode::serialize_into(&mut out, value).expect("serializing into memory cannot fail");
    out
}

pub fn decode<T: DeserializeOwned>(bytes: &[u8], what: &str) -> Result<T, StoreError> {
    match bytes.split_first() {
        Some((&FORMAT, rest)) => bincode::deserialize(rest)
            .map_err(|e| StoreError(format!("{what} is damaged (cannot be decoded: {e})"))),
        Some((other, _)) => Err(StoreError(format!(
            "{what} is in storage format {other}, which this kpg does not read (it writes format \
             {FORMAT})"
        ))),
        None => Err(StoreError(format!("{what} is empty"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kpg_types::{Datum, Row};

    #[test]
    fn rows_round_trip_and_damage_is_an_error() {
        let rows = vec![(
            Row::new(vec![
                Datum::Int64(-7),
                Datum::String(String::new()),
                Datum::Null,
                Datum::Numeric("12345678901234567890.123".parse().unwrap()),
            ]),
            3i64,
        )];
        let bytes = encode(&rows);
        let back: Vec<(Row, i64)> = decode(&bytes, "rows").unwrap();
        assert_eq!(back, rows);
        let err = decode::<Vec<(Row, i64)>>(&bytes[..bytes.len() - 3], "rows of t").unwrap_err();
        assert!(err.0.contains("rows of t is damaged"), "{err}");
        let mut future = bytes.clone();
        future[0] = 9;
        let err = decode::<Vec<(Row, i64)>>(&future, "rows").unwrap_err();
        assert!(err.0.contains("format 9"), "{err}");
    }
}
