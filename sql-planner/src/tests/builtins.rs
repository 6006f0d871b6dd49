//! Date/time types and the built-in string, rounding and date/time functions: typing, unit
//! checks and constant results (the values are PostgreSQL 15's).

use super::*;

fn one(sql: &str) -> Datum {
    let rows = query(sql);
    assert_eq!(rows.len(), 1, "{sql}");
    rows[0][0].clone()
}

fn one_text(sql: &str) -> String {
    one(sql).to_text().unwrap_or_else(|| "NULL".into())
}

fn ty(sql: &str) -> ScalarType {
    describe(sql)[0].1.scalar
}

#[test]
fn interval_and_timestamp_literals() {
    assert_eq!(one_text("SELECT interval '90' day"), "90 days");
    assert_eq!(one_text("SELECT interval '3' month"), "3 mons");
    assert_eq!(
        one_text("SELECT '1 year 2 mons 3 days 04:05:06'::interval"),
        "1 year 2 mons 3 days 04:05:06"
    );
    assert_eq!(
        one_text("SELECT timestamp '2020-01-01 10:11:12.5'"),
        "2020-01-01 10:11:12.5"
    );
    assert_eq!(ty("SELECT interval '1 day'"), ScalarType::Interval);
    assert_eq!(code("SELECT interval 'abc'"), "22007");
    assert_eq!(code("SELECT 'x'::timestamp"), "22007");
}

#[test]
fn datetime_arithmetic_types_and_values() {
    assert_eq!(
        one_text("SELECT date '1998-12-01' - interval '90' day"),
        "1998-09-02 00:00:00"
    );
    assert_eq!(
        ty("SELECT date '1998-12-01' + interval '1' year"),
        ScalarType::Timestamp
    );
    assert_eq!(
        one_text("SELECT timestamp '2020-01-03 10:00' - timestamp '2020-01-01'"),
        "2 days 10:00:00"
    );
    assert_eq!(
        one_text("SELECT timestamp '2020-01-01' + '1 day'"),
        "2020-01-02 00:00:00"
    );
    assert_eq!(one_text("SELECT interval '1 day' * 1.5"), "1 day 12:00:00");
    assert_eq!(one_text("SELECT 2 * interval '1 day'"), "2 days");
    assert_eq!(one_text("SELECT -interval '1 day'"), "-1 days");
    assert_eq!(
        one("SELECT date '2020-01-01' < timestamp '2020-01-01 00:00:01'"),
        Datum::Bool(true)
    );
    assert_eq!(ty("SELECT d - d FROM t"), ScalarType::Int32);
    assert_eq!(ty("SELECT d + 1 FROM t"), ScalarType::Date);
    assert_eq!(code("SELECT date '2020-01-01' + '1 day'"), "42725");
    assert_eq!(code("SELECT interval '1 day' + 1"), "42883");
}

#[test]
fn extract_date_part_and_trunc() {
    assert_eq!(
        ty("SELECT extract(year FROM d) FROM t"),
        ScalarType::NUMERIC
    );
    assert_eq!(
        one_text("SELECT extract(year FROM date '1995-03-04')"),
        "1995"
    );
    assert_eq!(
        one_text("SELECT extract(second FROM timestamp '2020-01-01 01:02:03.5')"),
        "3.500000"
    );
    assert_eq!(
        one_text("SELECT extract(epoch FROM interval '1 day')"),
        "86400.000000"
    );
    assert_eq!(
        ty("SELECT date_part('year', d) FROM t"),
        ScalarType::Float64
    );
    assert_eq!(one_text("SELECT date_part('hour', date '2020-01-01')"), "0");
    assert_eq!(code("SELECT extract(hour FROM d) FROM t"), "0A000");
    assert_eq!(code("SELECT extract(foo FROM d) FROM t"), "22023");
    assert_eq!(code("SELECT extract(week FROM interval '1 day')"), "0A000");
    assert_eq!(
        one_text("SELECT date_trunc('week', timestamp '2020-01-01 05:00')"),
        "2019-12-30 00:00:00"
    );
    assert_eq!(
        one_text("SELECT date_trunc('hour', interval '3 days 04:05:06')"),
        "3 days 04:00:00"
    );
    // A date is truncated as a timestamptz in the session's zone (UTC here).
    assert_eq!(
        one_text("SELECT date_trunc('month', date '2020-03-15')"),
        "2020-03-01 00:00:00+00"
    );
}

#[test]
fn string_functions() {
    assert_eq!(one_text("SELECT substring('hello' FROM 2 FOR 3)"), "ell");
    assert_eq!(one_text("SELECT substring('hello', 0, 2)"), "h");
    assert_eq!(one_text("SELECT substring('hello' FROM 3)"), "llo");
    assert_eq!(one_text("SELECT substr('hello', 2)"), "ello");
    assert_eq!(
        ty("SELECT substring(s FROM 1 FOR 2) FROM u"),
        ScalarType::Text
    );
    assert_eq!(code("SELECT substring('hello', 1, -1)"), "22011");
    assert_eq!(code("SELECT substring(12345 FROM 1 FOR 2)"), "42883");
    assert_eq!(one("SELECT position('l' IN 'hello')"), Datum::Int32(3));
    assert_eq!(one("SELECT strpos('hello', 'lo')"), Datum::Int32(4));
    assert_eq!(one_text("SELECT trim('  x  ')"), "x");
    assert_eq!(one_text("SELECT trim(both 'x' FROM 'xxaxx')"), "a");
    assert_eq!(one_text("SELECT trim(leading 'x' FROM 'xxaxx')"), "axx");
    assert_eq!(one_text("SELECT rtrim('xxaxx', 'x')"), "xxa");
}

#[test]
fn rounding_functions() {
    assert_eq!(one_text("SELECT round(2.5)"), "3");
    assert_eq!(one_text("SELECT round(2.5::float8)"), "2");
    assert_eq!(ty("SELECT round(1)"), ScalarType::Float64);
    assert_eq!(one_text("SELECT round(2.5, 2)"), "2.50");
    assert_eq!(one_text("SELECT round(1234.5, -2)"), "1200");
    assert_eq!(one_text("SELECT floor(-2.5)"), "-3");
    assert_eq!(one_text("SELECT ceil(-2.5)"), "-2");
    assert_eq!(one_text("SELECT ceiling(2.1::float8)"), "3");
    assert_eq!(code("SELECT round(2.5::float8, 1)"), "42883");
}

#[test]
fn char_n_types_and_values() {
    let c5 = ScalarType::Char { length: Some(5) };
    assert_eq!(ty("SELECT 'ab'::char(5)"), c5);
    assert_eq!(one_text("SELECT 'ab'::char(5) || '|'"), "ab|");
    assert_eq!(one_text("SELECT 'abc'::char(2)"), "ab");
    assert_eq!(one_text("SELECT 'ab'::char(4)"), "ab  ");
    assert_eq!(
        one("SELECT 'ab'::char(5) = 'ab   '::varchar"),
        Datum::Bool(true)
    );
    assert_eq!(
        one("SELECT 'ab'::char(5) = 'ab '::text"),
        Datum::Bool(false)
    );
    assert_eq!(one("SELECT 'ab'::char(4) LIKE 'ab__'"), Datum::Bool(true));
    assert_eq!(one("SELECT length('ab'::char(4))"), Datum::Int32(2));
    assert_eq!(
        ty("SELECT CASE WHEN true THEN 'a'::char(3) ELSE 'b'::char(5) END"),
        ScalarType::Char { length: None }
    );
    assert_eq!(
        ty("SELECT CASE WHEN true THEN 'a'::char(3) ELSE 'b'::text END"),
        ScalarType::Text
    );
}
