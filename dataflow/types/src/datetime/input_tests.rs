//! Tests of date and timestamp text input: the decoder's rules through `decode`, and the
//! errors, SQLSTATEs and messages through `parse_date_text` and `parse_timestamp`. The
//! expected values come from a PostgreSQL 15 server with its default DateStyle (ISO, MDY).

use super::decode::{decode, DtErr};
use super::tests::{show, ts};
use super::*;

/// The decoded date and time of day as `YYYY-MM-DD micros`.
fn decoded(text: &str) -> Result<String, DtErr> {
    decode(text).map(|(d, us)| format!("{d} {us}"))
}

#[test]
fn numbers_are_placed_by_what_is_known() {
    const H: i64 = 3_600_000_000;
    for (text, want) in [
        // A long number first is the year; short ones go month, day, year.
        ("2024 1 5", "2024-01-05 0"),
        ("1 5 2024", "2024-01-05 0"),
        ("1 5 24", "2024-01-05 0"),
        ("1 5 70", "1970-01-05 0"),
        // After a month name, a long number is the year and a short one the day.
        ("jan 2024 5", "2024-01-05 0"),
        ("5 jan 2024", "2024-01-05 0"),
        ("05-jan-24", "2024-01-05 0"),
        // Three digits after a lone year are the day of the year, into the next year.
        ("2024 366", "2024-12-31 0"),
        ("2023 366", "2024-01-01 0"),
        ("2024.015", "2024-01-15 0"),
        // Packed dates and times.
        ("20240105", "2024-01-05 0"),
        ("240105 1030", "2024-01-05 37800000000"),
        ("2024-01-05 103000.5", "2024-01-05 37800500000"),
        ("2024-01-05 996099", "2024-01-05 360099000000"),
        ("2024-01-05t1030", "2024-01-05 37800000000"),
        // A compound separator may be dropped with the character after it.
        ("2024-jan123", "2024-01-23 0"),
    ] {
        assert_eq!(decoded(text).as_deref(), Ok(want), "{text}");
    }
    assert_eq!(
        decoded("1/2/2024 12:30 am"),
        Ok(format!("2024-01-02 {}", H / 2))
    );
    assert_eq!(
        decoded("1/2/2024 12:30 pm"),
        Ok(format!("2024-01-02 {}", 25 * H / 2))
    );
    assert_eq!(
        decoded("2024-01-05 10::"),
        Ok(format!("2024-01-05 {}", 10 * H))
    );
}

#[test]
fn each_error_kind() {
    for (text, err) in [
        ("jan jan 5 2024", DtErr::Syntax),
        ("2024-01-05 10:00 11:00", DtErr::Syntax),
        ("2024-01-05 pst pst", DtErr::Syntax),
        ("2024-01-05 t", DtErr::Syntax),
        ("2024-01-05t10", DtErr::Syntax),
        ("epoch 2024-01-05", DtErr::Syntax),
        ("2024-01-05 10:00:00:00", DtErr::Syntax),
        ("2024-01-05 100.5", DtErr::Syntax),
        ("+infinity", DtErr::Syntax),
        ("2024-01-32", DtErr::Field),
        ("2023-02-29", DtErr::Field),
        ("2024-01-05 23:60", DtErr::Field),
        ("2024-01-05 24:00:01", DtErr::Field),
        ("2024-01-05 13:00 pm", DtErr::Field),
        ("2024-01-05 99999999999:00", DtErr::Field),
        ("1/1/99999999999999999999", DtErr::Field),
        ("99999999999999999999990105", DtErr::Field),
        ("2024-01-05 10:00 +16", DtErr::ZoneOffset),
        ("2024-01-05 10:00 -99999999999", DtErr::ZoneOffset),
        (
            "2024-01-05 10:00 foo/bar",
            DtErr::UnknownZone("foo/bar".into()),
        ),
        (
            "2024-01-05 10:00 xyz+168",
            DtErr::UnknownZone("xyz+168".into()),
        ),
        ("300000-01-01", DtErr::BigYear(300_000)),
        ("today", DtErr::NeedsClock("today".into())),
        ("j2451545", DtErr::Unsupported("julian day".into())),
        ("-infinity", DtErr::Unsupported("-infinity".into())),
        ("2024-01-05 bc", DtErr::Unsupported("BC".into())),
    ] {
        assert_eq!(decoded(text), Err(err), "{text}");
    }
}

#[test]
fn date_input_ignores_a_time_and_zone() {
    let d = |s: &str| parse_date_text(s).map(|d| d.to_string());
    for ok in [
        "1999-12-31",
        " 1999-12-31 ",
        "1999-12-31 +00",
        "1999-12-31 -08:00",
        "1999-12-31 00:00:00",
        "1999-12-31T00:59:58.250+00:00",
        "1999-12-31 23:59:59.999999",
    ] {
        assert_eq!(d(ok), Ok("1999-12-31".into()), "{ok}");
    }
    for bad in ["1999-12-31 junk", ""] {
        assert_eq!(d(bad).unwrap_err().sqlstate(), "22007", "{bad}");
    }
    for out_of_range in ["1999-02-30", "1999-12-31 25:00", "31-12-1999"] {
        assert_eq!(
            d(out_of_range).unwrap_err().sqlstate(),
            "22008",
            "{out_of_range}"
        );
    }
}

// The expected values, SQLSTATEs and messages of the tests below come from a PostgreSQL
// 15 server with its default DateStyle (ISO, MDY).

#[test]
fn date_input_forms() {
    for (text, want) in [
        ("01/02/2024", "2024-01-02"),
        ("1/2/2024", "2024-01-02"),
        ("01-02-2024", "2024-01-02"),
        ("1.2.2024", "2024-01-02"),
        ("2024/01/05", "2024-01-05"),
        ("2024.01.05", "2024-01-05"),
        ("Jan 5 2024", "2024-01-05"),
        ("January 5, 2024", "2024-01-05"),
        ("5 Jan 2024", "2024-01-05"),
        ("2024 Jan 5", "2024-01-05"),
        ("Jan 2024 5", "2024-01-05"),
        ("Mon Jan 5 2024", "2024-01-05"),
        ("Sept 5 2024", "2024-09-05"),
        ("2024-Jan-05", "2024-01-05"),
        ("Jan-05-2024", "2024-01-05"),
        ("05-Jan-2024", "2024-01-05"),
        ("20240115", "2024-01-15"),
        ("240115", "2024-01-15"),
        ("2024-015", "2024-01-15"),
        ("1/2/24", "2024-01-02"),
        ("01/02/70", "1970-01-02"),
        ("01/02/69", "2069-01-02"),
        ("1/2/024", "0024-01-02"),
        ("2024-01-05 AD", "2024-01-05"),
        ("epoch", "1970-01-01"),
        ("EPOCH", "1970-01-01"),
        ("2024-01-05 10:00 America/New_York", "2024-01-05"),
    ] {
        assert_eq!(
            parse_date_text(text).map(|d| d.to_string()),
            Ok(want.to_string()),
            "{text}"
        );
    }
}

#[test]
fn timestamp_input_forms() {
    for (text, want) in [
        ("epoch", "1970-01-01 00:00:00"),
        ("Jan 5 2024 10:00", "2024-01-05 10:00:00"),
        ("Jan 5 2024 at 10:00", "2024-01-05 10:00:00"),
        ("12/31/1999 11:59 PM", "1999-12-31 23:59:00"),
        ("2024-01-05 12:00 am", "2024-01-05 00:00:00"),
        ("2024-01-05 23:59:60", "2024-01-06 00:00:00"),
        ("2024-01-05 24:00:00", "2024-01-06 00:00:00"),
        ("2024-01-05 10:30.5", "2024-01-05 00:10:30.5"),
        ("2024-01-05T100000", "2024-01-05 10:00:00"),
        ("20240105 100000", "2024-01-05 10:00:00"),
        ("2024-01-05 T 10:00", "2024-01-05 10:00:00"),
        ("2024-01-05T10:00:00Z", "2024-01-05 10:00:00"),
        ("2024-01-05 10:00 PST", "2024-01-05 10:00:00"),
        ("2024-01-05 10:00 UTC+3", "2024-01-05 10:00:00"),
        ("2024-01-05 10:00 +15:59", "2024-01-05 10:00:00"),
        ("2024-01-05 10:00:00.1234567", "2024-01-05 10:00:00.123457"),
    ] {
        assert_eq!(show(&ts(text)), want, "{text}");
    }
}

#[test]
fn date_input_errors() {
    for (text, state, message) in [
        (
            "2024-02-30",
            "22008",
            r#"date/time field value out of range: "2024-02-30""#,
        ),
        (
            "2024-13-01",
            "22008",
            r#"date/time field value out of range: "2024-13-01""#,
        ),
        (
            "2024-01-15 25:00:00",
            "22008",
            r#"date/time field value out of range: "2024-01-15 25:00:00""#,
        ),
        (
            "Feb 30 2024",
            "22008",
            r#"date/time field value out of range: "Feb 30 2024""#,
        ),
        (
            "0000-01-01",
            "22008",
            r#"date/time field value out of range: "0000-01-01""#,
        ),
        (
            "hello",
            "22007",
            r#"invalid input syntax for type date: "hello""#,
        ),
        (
            "Jan 5",
            "22007",
            r#"invalid input syntax for type date: "Jan 5""#,
        ),
        (
            "Mon 2024-01-05",
            "22007",
            r#"invalid input syntax for type date: "Mon 2024-01-05""#,
        ),
        (
            "epoch 2024-01-01",
            "22007",
            r#"invalid input syntax for type date: "epoch 2024-01-01""#,
        ),
        (
            "2024-01-05 10:00 +16",
            "22009",
            r#"time zone displacement out of range: "2024-01-05 10:00 +16""#,
        ),
        (
            "2024-01-05 10:00 Foo/Bar",
            "22023",
            r#"time zone "foo/bar" not recognized"#,
        ),
    ] {
        let err = parse_date_text(text).unwrap_err();
        assert_eq!((err.sqlstate(), err.to_string().as_str()), (state, message));
    }
}

#[test]
fn timestamp_input_errors() {
    for (text, state, message) in [
        (
            "2024-01-05 13:00 pm",
            "22008",
            r#"date/time field value out of range: "2024-01-05 13:00 pm""#,
        ),
        (
            "2024-01-05 24:00:01",
            "22008",
            r#"date/time field value out of range: "2024-01-05 24:00:01""#,
        ),
        (
            "99999999",
            "22008",
            r#"date/time field value out of range: "99999999""#,
        ),
        (
            "10:00",
            "22007",
            r#"invalid input syntax for type timestamp: "10:00""#,
        ),
        (
            "2024-01-05 10:00 junk",
            "22007",
            r#"invalid input syntax for type timestamp: "2024-01-05 10:00 junk""#,
        ),
    ] {
        let err = parse_timestamp(text).unwrap_err();
        assert_eq!((err.sqlstate(), err.to_string().as_str()), (state, message));
    }
}

#[test]
fn unimplemented_inputs_are_unsupported() {
    // PostgreSQL accepts all of these; kpg has no infinite or BC values, no clock in
    // input, and chrono's dates end in 262143.
    for text in [
        "today",
        "now",
        "tomorrow",
        "yesterday",
        "infinity",
        "-infinity",
        "2024-01-05 BC",
        "262144-01-01",
        "J2451545",
        "julian 2451545",
    ] {
        assert_eq!(parse_date_text(text).unwrap_err().sqlstate(), "0A000");
        assert_eq!(parse_timestamp(text).unwrap_err().sqlstate(), "0A000");
    }
    assert_eq!(
        parse_date_text("infinity").unwrap_err().to_string(),
        r#"date input "infinity" not supported"#
    );
}

#[test]
fn timestamp_text_io() {
    // Expected texts are PostgreSQL 15's.
    assert_eq!(show(&ts("2020-01-01 00:00:00+05")), "2020-01-01 00:00:00");
    assert_eq!(
        show(&ts("2020-01-01T10:11:12.123")),
        "2020-01-01 10:11:12.123"
    );
    assert_eq!(show(&ts("2020-1-2 3:4")), "2020-01-02 03:04:00");
    assert_eq!(
        show(&ts("2020-01-01 10:11:12.0000005")),
        "2020-01-01 10:11:12"
    );
    assert!(parse_timestamp("x").is_err());
}

/// Pieces of date/time and interval text, glued at random below.
const PIECES: &[&str] = &[
    "2024",
    "01",
    "5",
    "31",
    "366",
    "015",
    "20240105",
    "99999999999999999999",
    "-",
    "+",
    ".",
    ":",
    "/",
    " ",
    "t",
    "T",
    "P",
    "1-2",
    "10:00",
    "10:00:00.9999995",
    "24:00",
    "1030",
    "103000",
    "jan",
    "sept",
    "mon",
    "fri",
    "am",
    "pm",
    "bc",
    "epoch",
    "allballs",
    "pst",
    "utc+3",
    "america/new_york",
    "foo/bar",
    "+05:30",
    "-16",
    "day",
    "hours",
    "ago",
    "@",
    "1.5",
    "1e3",
    "Y",
    "M",
    "D",
    "H",
    "S",
    "W",
    "é",
    "٣",
];

proptest::proptest! {
    /// Whatever the text, input ends in a value or an error with a SQLSTATE, never a panic
    /// or an internal error.
    #[test]
    fn any_text_is_a_value_or_an_error(
        picks in proptest::collection::vec(0..PIECES.len(), 0..8),
        raw in "[0-9a-zA-Z:./+ ,@é-]{0,24}",
    ) {
        let glued: String = picks.iter().map(|&i| PIECES[i]).collect();
        for text in [glued.as_str(), raw.as_str()] {
            let states = [
                parse_date_text(text).err().map(|e| e.sqlstate()),
                parse_timestamp(text).err().map(|e| e.sqlstate()),
                Interval::parse(text, None).err().map(|e| e.sqlstate()),
            ];
            for state in states.into_iter().flatten() {
                proptest::prop_assert!(
                    ["22007", "22008", "22009", "22015", "22023", "0A000"].contains(&state),
                    "{text:?}: {state}"
                );
            }
        }
    }
}

// Expected values from PostgreSQL 15 under `SET DateStyle = 'ISO, DMY'` / `'ISO, YMD'`.
#[test]
fn field_orders() {
    use super::style::DateOrder;
    let read = |order, s: &str| {
        let style = super::InputStyle {
            order,
            sql_standard_intervals: false,
        };
        super::with_date_input(style, None, || parse_date_text(s).map(|d| d.to_string()))
    };
    for (order, text, want) in [
        (DateOrder::Dmy, "1/5/2024", "2024-05-01"),
        (DateOrder::Dmy, "05.01.2024", "2024-01-05"),
        (DateOrder::Dmy, "13/1/24", "2024-01-13"),
        (DateOrder::Dmy, "5 jan 2024", "2024-01-05"),
        (DateOrder::Dmy, "2024-01-05", "2024-01-05"),
        (DateOrder::Ymd, "24/1/5", "2024-01-05"),
        (DateOrder::Ymd, "05-jan-2024", "2024-01-05"),
        (DateOrder::Ymd, "jan 5 2024", "2024-01-05"),
        (DateOrder::Mdy, "1/5/2024", "2024-01-05"),
    ] {
        assert_eq!(read(order, text).as_deref(), Ok(want), "{order:?} {text}");
    }
    assert!(read(DateOrder::Dmy, "1/13/2024").is_err());
}

#[test]
fn words_read_the_clock() {
    let now = chrono::NaiveDate::from_ymd_opt(2024, 3, 9)
        .unwrap()
        .and_hms_opt(23, 30, 0)
        .unwrap();
    let zone = super::Zone::parse_setting("Europe/Paris").unwrap().0;
    let clock = super::InputClock { now, zone };
    let read = |s: &str| {
        super::with_date_input(super::InputStyle::default(), Some(clock.clone()), || {
            parse_timestamp(s).map(|d| d.to_string())
        })
    };
    assert_eq!(read("today").unwrap(), "2024-03-10 00:00:00");
    assert_eq!(read("tomorrow 10:00").unwrap(), "2024-03-11 10:00:00");
    assert_eq!(read("yesterday").unwrap(), "2024-03-09 00:00:00");
    assert_eq!(read("now").unwrap(), "2024-03-10 00:30:00");
    assert!(read("now 10:00").is_err());
    assert!(read("today 2024-01-05").is_err());
}
