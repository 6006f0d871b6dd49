//! Unit tests of the formatting functions, with expectations taken from PostgreSQL 15.

use super::*;
use chrono::NaiveDate;

fn num(v: NumValue, p: &str) -> String {
    number_to_char(&v, p).unwrap()
}

fn n(s: &str) -> NumValue {
    NumValue::Numeric(Numeric::parse(s).unwrap())
}

#[test]
fn numbers() {
    assert_eq!(num(NumValue::Int4(1), "9PL9"), " + 1");
    assert_eq!(num(NumValue::Int4(-1), "9MI9"), " -1");
    assert_eq!(num(n("-1.5"), "99.9PR"), " <1.5>");
    assert_eq!(num(NumValue::Int4(5), "Fm9"), "Fm 5");
    assert_eq!(num(NumValue::Int4(12), "FMxx9"), "xx#");
    assert_eq!(num(n("0"), "FM9.99"), "0.");
    assert_eq!(num(n("-0.5"), "9.9"), " -.5");
    assert_eq!(num(n("0.5"), "9"), " 1");
    assert_eq!(num(NumValue::Float8(2.5), "9"), " 2");
    assert_eq!(num(NumValue::Float8(3.5), "9"), " 4");
    assert_eq!(num(n("NaN"), "9999"), "  NaN");
    assert_eq!(num(n("NaN"), "99"), " ##");
    assert_eq!(num(n("NaN"), "9.99EEEE"), " #.######");
    assert_eq!(num(NumValue::Int4(25), "9EEEE"), " 2e+01");
    assert_eq!(num(n("9.99"), "9.9EEEE"), " 10.0e+00");
    assert_eq!(num(NumValue::Int4(-5), "RNSG x"), "###############");
    assert_eq!(num(NumValue::Int4(1), ""), "");
}

#[test]
fn picture_errors_are_syntax_errors() {
    for p in ["9.9.9", "S9S", "PR9", "9V9.9", "FM9EEEE", "9EEEE9"] {
        let e = number_to_char(&NumValue::Int4(1), p).unwrap_err();
        assert_eq!(e.sqlstate(), "42601", "{p}");
    }
}

#[test]
fn timestamps() {
    let ts = NaiveDate::from_ymd_opt(2024, 3, 5)
        .unwrap()
        .and_hms_micro_opt(14, 7, 9, 123456)
        .unwrap();
    let f = |p: &str| timestamp_to_char(&ts, p).unwrap().unwrap();
    assert_eq!(
        f("YYYY-MM-DD HH24:MI:SS.MS.US FMDD FMMonth Day dy DDD D ID IW IYYY WW Q CC J W"),
        "2024-03-05 14:07:09.123.123456 5 March Tuesday   tue 065 3 2 10 2024 10 1 21 2460375 1"
    );
    assert_eq!(
        f("SSSS SSSSS HH12 am PM A.M. p.m. AD b.c. Y,YYY RM rm FF1 FF3"),
        "50829 50829 02 pm PM P.M. p.m. AD a.d. 2,024 III  iii  1 123"
    );
    assert_eq!(
        f("TZ tz OF \"quoted\\\"x\" \\\\ \\\" DDTH ddth FMDDth"),
        "  +00 quoted\"x \\\\ \" 05TH 05th 5th"
    );
    assert_eq!(timestamp_to_char(&ts, "").unwrap(), None);
}

#[test]
fn intervals() {
    let iv = Interval::new(-14, 3, -(4 * 3600 + 5 * 60 + 6) * 1_000_000 - 700_000);
    assert_eq!(
        interval_to_char(
            &iv,
            "YYYY Y,YYY MM DD DDD HH24 HH12 HH MI SS MS US CC RM rm W WW IW J Q SSSS AM IYYY I \
             IDDD FMHH TH"
        )
        .unwrap()
        .unwrap(),
        "-0001 0,-01 -02 03 -417 -04 -04 -04 -05 -06 -700 -700000 00 XI   xi   1 -58 40 1720605 \
         0 -14706 AM -0002 -2 279 -4 TH"
    );
    // Day and week fields keep their width whatever the sign (PostgreSQL's `%0*d`).
    let days = Interval::new(0, -7, -3_723_000_000);
    assert_eq!(
        interval_to_char(&days, "DD DDD HH MI IW WW")
            .unwrap()
            .unwrap(),
        "-7 -07 -01 -02 47 00"
    );
    let e = interval_to_char(&iv, "Month").unwrap_err();
    assert_eq!(e.sqlstate(), "22007");
}

#[test]
fn reading_numbers() {
    let r = |t: &str, p: &str| to_number(t, p).map(|v| v.to_string());
    assert_eq!(r("123456", "999").unwrap(), "123");
    assert_eq!(r("-12.5", "9999").unwrap(), "-125");
    assert_eq!(r("", "999").unwrap_err().sqlstate(), "22P02");
    assert_eq!(r("1e5", "9EEEE").unwrap_err().sqlstate(), "0A000");
}
