//! Packed rows against `Vec<Datum>`: every variant survives packing exactly, random rows order
//! and compare equal as their datums do, serde writes `Row`'s format, and a lineitem row's size.

use super::*;
use crate::datum::{Datum, Row};
use crate::interval::Interval;
use crate::numeric::Numeric;
use chrono::{NaiveDate, NaiveDateTime};
use ordered_float::OrderedFloat;
use proptest::prelude::*;
use std::cmp::Ordering;
use std::hash::BuildHasher;

fn num(s: &str) -> Datum {
    Datum::Numeric(s.parse::<Numeric>().unwrap())
}

fn json(s: &str) -> Datum {
    Datum::Jsonb(Box::new(crate::jsonb::Json::parse(s).unwrap()))
}

fn ts(s: &str) -> NaiveDateTime {
    NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.f").unwrap()
}

/// One value of every variant and of every form within a variant.
pub(super) fn every_variant() -> Vec<Datum> {
    let date = |y, m, d| Datum::Date(NaiveDate::from_ymd_opt(y, m, d).unwrap());
    vec![
        Datum::Null,
        Datum::Bool(false),
        Datum::Bool(true),
        Datum::Int16(0),
        Datum::Int16(-128),
        Datum::Int16(i16::MAX),
        Datum::Int16(i16::MIN),
        Datum::Int32(127),
        Datum::Int32(-129),
        Datum::Int32(40_000),
        Datum::Int32(i32::MIN),
        Datum::Int64(-1),
        Datum::Int64(300),
        Datum::Int64(-70_000),
        Datum::Int64(i64::MAX),
        Datum::Int64(i64::MIN),
        Datum::Float32(OrderedFloat(-0.0)),
        Datum::Float32(OrderedFloat(1.5)),
        Datum::Float32(OrderedFloat(f32::NAN)),
        Datum::Float32(OrderedFloat(f32::NEG_INFINITY)),
        Datum::Float64(OrderedFloat(0.0)),
        Datum::Float64(OrderedFloat(-0.0)),
        Datum::Float64(OrderedFloat(f64::NAN)),
        Datum::Float64(OrderedFloat(-f64::NAN)),
        Datum::Float64(OrderedFloat(f64::INFINITY)),
        Datum::Float64(OrderedFloat(-1e300)),
        num("0"),
        num("0.00"),
        num("-12345.67"),
        num("79228162514264337593543950335"),
        num("-0.0000000000000000000000000001"),
        num("123456789012345678901234567890123456789.123456789"),
        num("-99999999999999999999999999999999999999999999999999999"),
        num("0.00000000000000000000000000000000000001"),
        num("NaN"),
        num("Infinity"),
        num("-Infinity"),
        Datum::String(String::new()),
        Datum::String("N".into()),
        Datum::String("naïve ☃".into()),
        Datum::String("x".repeat(127)),
        Datum::String("y".repeat(128)),
        Datum::String("z".repeat(70_000)),
        date(1998, 12, 1),
        date(-4713, 1, 1),
        date(262_000, 12, 31),
        Datum::Timestamp(ts("2024-02-29 23:59:59.999999")),
        Datum::Timestamp(ts("1900-01-01 00:00:00")),
        Datum::Timestamp(ts("2024-01-01 00:00:00.123456789")),
        Datum::TimestampTz(ts("1970-01-01 00:00:00.000001")),
        Datum::TimestampTz(ts("2024-01-01 00:00:00.5")),
        Datum::TimestampTz(ts("2024-01-01 00:00:00.000000001")),
        Datum::Interval(Interval::new(14, -3, 3_723_000_004)),
        Datum::Interval(Interval::new(i32::MIN, i32::MAX, i64::MIN)),
        Datum::Interval(Interval::new(0, 30, 0)),
        Datum::Interval(Interval::new(1, 0, 0)),
        Datum::Time(0),
        Datum::Time(86_400_000_000),
        Datum::Uuid([0xab; 16]),
        Datum::Bytes(Vec::new()),
        Datum::Bytes(vec![0, 255, 1, 128]),
        json("null"),
        json("[]"),
        json("{}"),
        json(r#"{"a": 1.50, "bb": [true, false, null, "s", {"c": -2}], "": 1e40}"#),
        json(r#""text""#),
        Datum::Array(vec![]),
        Datum::Array(vec![Datum::Int32(1), Datum::Null, Datum::Int32(-5)]),
        Datum::Array(vec![num("1.0"), num("NaN"), num("1e50")]),
        Datum::Array(vec![
            Datum::String("a".into()),
            Datum::String(String::new()),
        ]),
        Datum::Int2Vector(vec![]),
        Datum::Int2Vector(vec![1, -2, i16::MAX]),
        Datum::Record(vec![
            Datum::Int32(3),
            Datum::Null,
            Datum::String("r".into()),
        ]),
        Datum::Record(vec![]),
    ]
}

/// The datums packed alone and as one row read back as themselves, exactly: same text, same
/// float sign, same numeric scale and form, same interval fields.
#[test]
fn every_variant_round_trips() {
    let datums = every_variant();
    for d in &datums {
        let row = PackedRow::pack([d]);
        let back = row.unpack();
        assert_eq!(back.len(), 1);
        assert_eq!(format!("{d:?}"), format!("{:?}", back[0]), "{d:?}");
        assert_eq!(d.cmp(&back[0]), Ordering::Equal, "{d:?}");
        assert_eq!(d.to_text(), back[0].to_text(), "{d:?}");
        if let (Datum::Float64(a), Datum::Float64(b)) = (d, &back[0]) {
            assert_eq!(a.0.is_sign_negative(), b.0.is_sign_negative());
        }
        // Packing the borrowed view writes the same bytes.
        let again = PackedRow::pack_refs(row.iter());
        assert_eq!(again.as_bytes(), row.as_bytes(), "{d:?}");
        // Its length found without decoding it is the decoder's.
        assert_eq!(row.as_slice().skip_at(0), row.as_bytes().len(), "{d:?}");
    }
    let row = PackedRow::pack(&datums);
    assert_eq!(row.len(), datums.len());
    assert_eq!(format!("{datums:?}"), format!("{:?}", row.unpack()));
    for (i, d) in datums.iter().enumerate() {
        assert_eq!(row.get(i).to_datum(), *d);
    }
}

#[test]
fn small_rows_are_inline() {
    let row = PackedRow::pack(&[Datum::Int64(42), Datum::String("hello".into()), num("1.5")]);
    assert_eq!(row.heap_size(), 0);
    assert_eq!(std::mem::size_of::<PackedRow>(), 32);
    let big = PackedRow::pack(&[Datum::String("a".repeat(40))]);
    assert_eq!(big.heap_size(), 41);
}

/// JSON is the datums, as `Row`'s derived implementation wrote them; bincode is the packed
/// bytes behind their length, read back to the same row, and damaged bytes are an error.
#[test]
fn serde_is_datums_for_people_and_bytes_for_machines() {
    let datums = every_variant();
    let (row, packed) = (Row::new(datums.clone()), PackedRow::pack(&datums));
    let json = serde_json::to_string(&row).unwrap();
    assert_eq!(serde_json::to_string(&packed).unwrap(), json);
    assert_eq!(
        json,
        serde_json::to_string(&datums).unwrap(),
        "JSON lists the datums"
    );
    let bin = bincode::serialize(&row).unwrap();
    assert_eq!(bincode::serialize(&packed).unwrap(), bin);
    let mut want = (packed.as_bytes().len() as u64).to_le_bytes().to_vec();
    want.extend_from_slice(packed.as_bytes());
    assert_eq!(bin, want, "bincode is the packed bytes");
    let back: PackedRow = bincode::deserialize(&bin).unwrap();
    assert_eq!(back, packed);
    let back: Row = bincode::deserialize(&bin).unwrap();
    assert_eq!(back, row);
    // From a reader too (owned bytes), as between processes.
    let back: Row = bincode::deserialize_from(&bin[..]).unwrap();
    assert_eq!(back, row);
    // A row cut short is refused, not trusted.
    let mut cut = ((packed.as_bytes().len() - 1) as u64)
        .to_le_bytes()
        .to_vec();
    cut.extend_from_slice(&packed.as_bytes()[..packed.as_bytes().len() - 1]);
    assert!(bincode::deserialize::<Row>(&cut).is_err());
}

/// Values of one kind (so that two rows of one schema meet on equal variants), drawn from
/// small domains so that ties and SQL-equal values of different representations are common.
fn datum_of(kind: u8) -> BoxedStrategy<Datum> {
    let null_or = |s: BoxedStrategy<Datum>| prop_oneof![1 => Just(Datum::Null), 6 => s].boxed();
    let floats = [
        0.0,
        -0.0,
        1.5,
        -1.5,
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        1e300,
    ];
    let numerics = [
        "0",
        "0.0",
        "-0.00",
        "1",
        "1.0",
        "1.00",
        "-1",
        "2.5",
        "2.50",
        "NaN",
        "Infinity",
        "-Infinity",
        "1e40",
        "1.0e40",
        "-1e40",
        "99999999999999999999999999999",
    ];
    let jsons = [
        "1",
        "1.0",
        "null",
        "true",
        r#""x""#,
        "[1, 2]",
        "[1.0, 2]",
        r#"{"a": 1}"#,
        r#"{"a": 1.00}"#,
        r#"{"b": [null]}"#,
    ];
    let s = match kind {
        0 => any::<bool>().prop_map(Datum::Bool).boxed(),
        1 => prop_oneof![-3i16..3, Just(i16::MIN), Just(i16::MAX), Just(300)]
            .prop_map(Datum::Int16)
            .boxed(),
        2 => prop_oneof![-200i32..200, Just(i32::MIN), Just(70_000)]
            .prop_map(Datum::Int32)
            .boxed(),
        3 => prop_oneof![-200i64..200, any::<i64>(), Just(-(1 << 40))]
            .prop_map(Datum::Int64)
            .boxed(),
        4 => proptest::sample::select(floats.to_vec())
            .prop_map(|f| Datum::Float64(OrderedFloat(f)))
            .boxed(),
        5 => proptest::sample::select(floats.to_vec())
            .prop_map(|f| Datum::Float32(OrderedFloat(f as f32)))
            .boxed(),
        6 => prop_oneof![
            proptest::sample::select(numerics.to_vec()).prop_map(num),
            (-300i64..300, 0u32..4).prop_map(|(m, s)| Datum::Numeric(Numeric::new(m, s))),
        ]
        .boxed(),
        7 => prop_oneof!["[ab]{0,3}", "[a]{127,129}"]
            .prop_map(Datum::String)
            .boxed(),
        8 => (-3i32..3)
            .prop_map(|d| Datum::Date(NaiveDate::from_num_days_from_ce_opt(730_000 + d).unwrap()))
            .boxed(),
        9 => (-2i64..2, prop_oneof![Just(0u32), Just(1000), Just(7)])
            .prop_map(|(s, n)| {
                Datum::Timestamp(chrono::DateTime::from_timestamp(s, n).unwrap().naive_utc())
            })
            .boxed(),
        10 => (
            -1i32..2,
            prop_oneof![Just(0), Just(30), Just(-30), Just(1)],
            0i64..2,
        )
            .prop_map(|(m, d, u)| Datum::Interval(Interval::new(m, d, u * 86_400_000_000)))
            .boxed(),
        11 => (0i64..3).prop_map(Datum::Time).boxed(),
        12 => (0u8..3).prop_map(|b| Datum::Uuid([b; 16])).boxed(),
        13 => proptest::collection::vec(0u8..3, 0..3)
            .prop_map(Datum::Bytes)
            .boxed(),
        14 => proptest::sample::select(jsons.to_vec())
            .prop_map(json)
            .boxed(),
        15 => proptest::collection::vec(
            prop_oneof![
                Just(Datum::Null),
                proptest::sample::select(numerics[..9].to_vec()).prop_map(num)
            ],
            0..3,
        )
        .prop_map(Datum::Array)
        .boxed(),
        16 => proptest::collection::vec(-1i16..2, 0..3)
            .prop_map(Datum::Int2Vector)
            .boxed(),
        17 => (
            prop_oneof![Just(Datum::Null), (0i32..2).prop_map(Datum::Int32)],
            0i32..2,
        )
            .prop_map(|(a, b)| Datum::Record(vec![a, Datum::Int32(b)]))
            .boxed(),
        _ => (-1i64..2)
            .prop_map(|s| {
                Datum::TimestampTz(chrono::DateTime::from_timestamp(s, 0).unwrap().naive_utc())
            })
            .boxed(),
    };
    null_or(s)
}

/// Two rows of one random schema; the second sometimes shorter.
pub(super) fn row_pair() -> impl Strategy<Value = (Vec<Datum>, Vec<Datum>)> {
    row_pair_of(0..4)
}

/// As `row_pair`, with `columns` columns.
fn row_pair_of(columns: std::ops::Range<usize>) -> impl Strategy<Value = (Vec<Datum>, Vec<Datum>)> {
    proptest::collection::vec(0u8..19, columns).prop_flat_map(|kinds| {
        let row = |kinds: &[u8]| {
            kinds
                .iter()
                .map(|k| datum_of(*k))
                .collect::<Vec<_>>()
                .prop_map(|v| v)
        };
        let n = kinds.len();
        (row(&kinds), row(&kinds), 0..=n).prop_map(move |(a, mut b, cut)| {
            if cut < n && cut % 2 == 1 {
                b.truncate(cut);
            }
            (a, b)
        })
    })
}

/// The engine's sort key (`SortKey`) never contradicts the order: `a < b` gives
/// `key(a) <= key(b)`, and equal values have equal keys (rows, and (key, value) pairs of rows,
/// whose value's key fills the bits the key row leaves: `SortKey for (A, B)`).
fn sort_key_agrees<T: kpg_sortkey::SortKey + std::fmt::Debug>(
    a: &T,
    b: &T,
) -> Result<(), TestCaseError> {
    let (ka, kb) = (a.sort_key(), b.sort_key());
    match a.cmp(b) {
        Ordering::Less => prop_assert!(ka <= kb, "{:?} < {:?}: keys {ka:#x} {kb:#x}", a, b),
        Ordering::Greater => prop_assert!(ka >= kb, "{:?} > {:?}: keys {ka:#x} {kb:#x}", a, b),
        Ordering::Equal => prop_assert_eq!(ka, kb),
    }
    Ok(())
}

/// Two rows whose first columns are of any two kinds (the key orders variants by rank).
fn mixed_pair() -> impl Strategy<Value = (Vec<Datum>, Vec<Datum>)> {
    (0u8..19, 0u8..19, 0u8..19).prop_flat_map(|(x, y, z)| {
        (
            proptest::collection::vec(datum_of(x), 0..2),
            (datum_of(y), datum_of(z)).prop_map(|(a, b)| vec![a, b]),
        )
    })
}

/// A datum of a kind the sort key codes exactly, from a few values, so that rows tie often.
fn tying_datum() -> BoxedStrategy<Datum> {
    let date = |d: &str| Datum::Date(d.parse::<NaiveDate>().unwrap());
    prop::sample::select(vec![
        Datum::Null,
        Datum::Bool(false),
        Datum::Bool(true),
        Datum::Int16(i16::MIN),
        Datum::Int16(-1),
        Datum::Int16(0),
        Datum::Int32(-1),
        Datum::Int32(0),
        Datum::Int32(7),
        Datum::Int32(i32::MAX),
        Datum::Int32(i32::MIN),
        Datum::Int32(600_000),
        Datum::Int64(-5),
        Datum::Int64(3),
        Datum::Int64(i64::MAX),
        Datum::Int64(i64::MIN),
        date("1995-03-15"),
        date("0001-01-01"),
    ])
    .boxed()
}

/// Two rows whose first columns tie often (exactly coded kinds from few values), then maybe a
/// column of any kind: the sort key reads past the first column.
fn tying_pair() -> impl Strategy<Value = (Vec<Datum>, Vec<Datum>)> {
    let row = || {
        (
            proptest::collection::vec(tying_datum(), 0..5),
            proptest::option::of((0u8..19).prop_flat_map(datum_of)),
        )
            .prop_map(|(mut r, tail)| {
                r.extend(tail);
                r
            })
    };
    (row(), row())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// The sort key of rows whose first columns tie agrees with their order.
    #[test]
    fn sort_key_is_monotone_past_tied_columns((a, b) in tying_pair()) {
        let (pa, pb) = (PackedRow::pack(&a), PackedRow::pack(&b));
        prop_assert_eq!(pa.cmp(&pb), a.cmp(&b));
        sort_key_agrees(&pa, &pb)?;
        sort_key_agrees(&pb, &pa)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Pairs of rows whose first rows tie often (and sometimes are prefixes of each other).
    #[test]
    fn pair_sort_key_is_monotone(((a, b), (c, d)) in (tying_pair(), tying_pair())) {
        let x = (PackedRow::pack(&a), PackedRow::pack(&c));
        let y = (PackedRow::pack(&b), PackedRow::pack(&d));
        sort_key_agrees(&x, &y)?;
        sort_key_agrees(&y, &x)?;
        // The same first row, values apart: the value's key decides where it fits.
        let z = (x.0.clone(), y.1.clone());
        sort_key_agrees(&x, &z)?;
        sort_key_agrees(&z, &x)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// As in `packed_order_is_datum_order`, across variants and with the empty row.
    #[test]
    fn sort_key_is_monotone_across_variants((a, b) in mixed_pair()) {
        let (pa, pb) = (PackedRow::pack(&a), PackedRow::pack(&b));
        sort_key_agrees(&pa, &pb)?;
        sort_key_agrees(&pb, &pa)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Packed order is `Vec<Datum>`'s, packed equality is `Datum`'s, equal rows hash alike.
    #[test]
    fn packed_order_is_datum_order((a, b) in row_pair()) {
        let (pa, pb) = (PackedRow::pack(&a), PackedRow::pack(&b));
        prop_assert_eq!(pa.cmp(&pb), a.cmp(&b), "{:?} vs {:?}", a, b);
        prop_assert_eq!(pa == pb, a == b);
        prop_assert_eq!(pa.cmp(&pa), Ordering::Equal);
        sort_key_agrees(&pa, &pb)?;
        let state = std::collections::hash_map::RandomState::new();
        if pa == pb {
            prop_assert_eq!(state.hash_one(&pa), state.hash_one(&pb));
        }
        // SQL's order over views is the datums' too.
        for (x, y) in pa.iter().zip(pb.iter()) {
            let (dx, dy) = (x.to_datum(), y.to_datum());
            prop_assert_eq!(x.sql_cmp(y), dx.sql_cmp(&dy));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// A concatenation is the two rows' datums one after another, short or long.
    #[test]
    fn concat_is_both_rows_datums((a, b) in row_pair_of(0..14)) {
        let (pa, pb) = (PackedRow::pack(&a), PackedRow::pack(&b));
        let both: Vec<Datum> = a.iter().chain(&b).cloned().collect();
        let (joined, packed) = (pa.concat(&pb), PackedRow::pack(&both));
        prop_assert_eq!(joined.as_bytes(), packed.as_bytes());
        prop_assert_eq!(format!("{:?}", joined.unpack()), format!("{both:?}"));
    }

    /// Rows long enough that their first difference lies past whole 8-byte words: packed
    /// order is still `Vec<Datum>`'s.
    #[test]
    fn long_rows_order_as_datums((a, b) in row_pair_of(6..14)) {
        let (pa, pb) = (PackedRow::pack(&a), PackedRow::pack(&b));
        prop_assert_eq!(pa.cmp(&pb), a.cmp(&b), "{:?} vs {:?}", a, b);
        prop_assert_eq!(pb.cmp(&pa), b.cmp(&a));
    }

    /// Canonical forms and projections read in place are those of the unpacked datums.
    #[test]
    fn canonical_and_project_agree_with_datums((a, _b) in row_pair(), cols in proptest::collection::vec(0usize..4, 0..5)) {
        let row = Row::new(a.clone());
        // Lengths found without decoding are the decoder's.
        let slice = row.packed().as_slice();
        let mut at = 0;
        while at < slice.as_bytes().len() {
            let (_, next) = slice.read_at(at);
            prop_assert_eq!(slice.skip_at(at), next);
            at = next;
        }
        let want: Vec<Datum> = a.iter().map(|d| d.canonical().unwrap_or_else(|| d.clone())).collect();
        let changed = a.iter().any(|d| d.canonical().is_some());
        prop_assert_eq!(row.canonical(), changed.then(|| Row::new(want)));
        let cols: Vec<usize> = cols.into_iter().filter(|c| *c < a.len()).collect();
        let projected: Vec<Datum> = cols.iter().map(|c| a[*c].clone()).collect();
        prop_assert_eq!(row.project(&cols), Row::new(projected));
        // The row without its last column, cut as bytes.
        let shorter = a[..a.len().saturating_sub(1)].to_vec();
        prop_assert_eq!(row.without_last(), Row::new(shorter));
    }
}

/// Bytes a lineitem row costs: today's `Vec<Datum>` against the packed row, each counted with
/// a typical allocator's 16 bytes of overhead per heap block.
#[test]
fn lineitem_row_size() {
    let date = |y, m, d| Datum::Date(NaiveDate::from_ymd_opt(y, m, d).unwrap());
    let datums = vec![
        Datum::Int32(1_234_567),
        Datum::Int32(155_190),
        Datum::Int32(7_706),
        Datum::Int32(1),
        num("17.00"),
        num("21168.23"),
        num("0.04"),
        num("0.02"),
        Datum::String("N".into()),
        Datum::String("O".into()),
        date(1996, 3, 13),
        date(1996, 2, 12),
        date(1996, 3, 22),
        Datum::String("DELIVER IN PERSON        ".into()),
        Datum::String("TRUCK     ".into()),
        Datum::String("egular courts above the".into()),
    ];
    const MALLOC: usize = 16;
    let strings: usize = datums
        .iter()
        .map(|d| match d {
            Datum::String(s) => s.len() + MALLOC,
            _ => 0,
        })
        .sum();
    let vec_row =
        std::mem::size_of::<Row>() + datums.len() * std::mem::size_of::<Datum>() + MALLOC + strings;
    let packed = PackedRow::pack(&datums);
    let packed_row = std::mem::size_of::<PackedRow>() + packed.heap_size() + MALLOC;
    println!(
        "lineitem row: Vec<Datum> {vec_row} bytes, packed {packed_row} bytes ({} encoded)",
        packed.as_bytes().len()
    );
    assert!(packed_row * 4 < vec_row, "{packed_row} vs {vec_row}");
    assert_eq!(packed.unpack(), datums);
}
