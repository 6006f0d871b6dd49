//! `check_row` against the packer: every row a packer writes passes unchanged, and damaged
//! bytes (cut, changed or grown at random) are refused or are a row a packer writes — reading
//! what passes never panics.

use super::tests::{every_variant, row_pair};
use super::*;
use crate::datum::Datum;
use proptest::prelude::*;

/// Every variant passes, alone, all in one row, and nested in an array and a record.
#[test]
fn every_packed_row_passes() {
    let datums = every_variant();
    let mut rows: Vec<PackedRow> = datums.iter().map(|d| PackedRow::pack([d])).collect();
    rows.push(PackedRow::pack(&datums));
    rows.push(PackedRow::pack(&[
        Datum::Array(datums.clone()),
        Datum::Record(datums.clone()),
    ]));
    rows.push(PackedRow::empty());
    for row in rows {
        let back = check_row(row.as_bytes()).unwrap_or_else(|e| panic!("{row:?}: {e}"));
        assert_eq!(back.as_bytes(), row.as_bytes());
    }
}

/// Bytes a packer does not write, each refused with what is wrong.
#[test]
fn damage_is_refused() {
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (vec![tag::INT64_8, 5, 0, 0, 0, 0, 0, 0, 0], "canonical"),
        (vec![tag::INT64_8, 5, 0, 0], "cut short"),
        (vec![tag::SHORT_STRING + 2, 0xff, 0xfe], "UTF-8"),
        (
            vec![tag::STRING, 0xff, 0xff, 0xff, 0xff, 0x0f, b'a'],
            "longer than",
        ),
        (vec![tag::STRING, 0x80], "cut short"),
        (vec![99], "unknown tag"),
        (
            vec![tag::FLOAT64, 1, 0, 0, 0, 0, 0, 0xf8, 0x7f],
            "canonical",
        ),
        (vec![tag::DATE, 0xff, 0xff, 0xff, 0x7f], "out of range"),
        (vec![tag::NUMERIC, 200, 2], "canonical"),
        (
            vec![tag::NUMERIC_BIG, 5, 0xff, 0xff, 0xff, 0xff, 1],
            "out of range",
        ),
        (vec![tag::JSONB, 2, tag::JSON_OBJECT, 1], "cut short"),
        (
            vec![tag::JSONB, 3, tag::JSON_OBJECT, 1, tag::NULL],
            "not a string",
        ),
        (vec![tag::JSONB, 1, tag::DATE], "inside a jsonb"),
        (
            vec![tag::INT2VECTOR, 0xff, 0xff, 0xff, 0xff, 0x0f],
            "cut short",
        ),
    ];
    for (bytes, why) in cases {
        let err = check_row(&bytes).expect_err(&format!("{bytes:?} passed"));
        assert!(err.contains(why), "{bytes:?}: {err} (expected {why:?})");
    }
    // Nesting deeper than the limit is refused without running out of stack.
    let mut deep = PackedRow::pack(&[Datum::Int32(1)]).as_bytes().to_vec();
    for _ in 0..10_000 {
        let mut outer = vec![tag::ARRAY];
        super::put_varint(&mut outer, deep.len() as u128);
        outer.extend_from_slice(&deep);
        deep = outer;
    }
    assert!(check_row(&deep).unwrap_err().contains("nested deeper"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// A random row, then cut, changed or grown at one place: `check_row` refuses it or hands
    /// back a row that reads without panicking and is written again byte for byte.
    #[test]
    fn damaged_rows_are_refused_or_canonical(
        (row, _) in row_pair(),
        how in 0u8..3,
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let good = PackedRow::pack(&row);
        let checked = check_row(good.as_bytes()).unwrap();
        prop_assert_eq!(checked.as_bytes(), good.as_bytes());
        let mut bytes = good.as_bytes().to_vec();
        if bytes.is_empty() {
            bytes.push(byte);
        } else {
            let i = at.index(bytes.len());
            match how {
                0 => bytes.truncate(i),
                1 => bytes[i] = byte,
                _ => bytes.insert(i, byte),
            }
        }
        if let Ok(back) = check_row(&bytes) {
            let again = PackedRow::pack(&back.unpack());
            prop_assert_eq!(again.as_bytes(), &bytes[..]);
        }
    }
}
