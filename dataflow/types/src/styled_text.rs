//! The text a client sees of a value under its session's output settings: floats follow
//! `extra_float_digits` (`float_text.rs`), dates, timestamps and timestamptz values
//! `DateStyle` and `TimeZone`, intervals `IntervalStyle` (`datetime/style.rs`,
//! `interval/style.rs`), bytea `bytea_output` (`bytes_text.rs`). Results, COPY TO and SUBSCRIBE write values through this; inside
//! expressions values print with the defaults (`Datum::write_text`), and the server refuses
//! in-query conversions to text where a non-default setting would change them.

use crate::datetime::{self, DateSettings};
use crate::datum::Datum;

/// A session's settings that steer the text of values.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputStyle {
    pub extra_float_digits: i32,
    pub dates: DateSettings,
    /// `bytea_output = 'escape'` (else hex).
    pub bytea_escape: bool,
}

impl Default for OutputStyle {
    fn default() -> Self {
        OutputStyle {
            extra_float_digits: 1,
            dates: DateSettings::default(),
            bytea_escape: false,
        }
    }
}

impl Datum {
    /// The text output under `style`; NULL writes nothing.
    pub fn write_text_styled(&self, style: &OutputStyle, out: &mut String) {
        let dates = &style.dates;
        match self {
            Datum::Date(d) => datetime::write_date_styled(d, dates, out),
            Datum::Timestamp(t) => datetime::write_datetime_styled(t, None, dates, out),
            Datum::TimestampTz(t) => datetime::write_timestamptz_styled(t, dates, out),
            Datum::Interval(iv) => iv.write_text_styled(dates.interval_style, out),
            Datum::Bytes(b) if style.bytea_escape => crate::bytes_text::write_bytea_escaped(b, out),
            Datum::Array(a) => {
                crate::array::write(a, out, |d, out| d.write_text_styled(style, out))
            }
            Datum::Record(f) => {
                crate::array::record::write(f, out, |d, out| d.write_text_styled(style, out))
            }
            d => d.write_text_float_digits(style.extra_float_digits, out),
        }
    }

    /// `write_text_styled` as a string, `None` for NULL.
    pub fn to_text_styled(&self, style: &OutputStyle) -> Option<String> {
        if self.is_null() {
            return None;
        }
        let mut s = String::new();
        self.write_text_styled(style, &mut s);
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    #[test]
    fn defaults_print_as_write_text() {
        let t = NaiveDate::from_ymd_opt(2024, 3, 10)
            .unwrap()
            .and_hms_micro_opt(12, 0, 0, 500)
            .unwrap();
        for d in [
            Datum::Timestamp(t),
            Datum::TimestampTz(t),
            Datum::Date(t.date()),
            Datum::Interval(crate::Interval::new(14, -3, 5)),
        ] {
            assert_eq!(d.to_text_styled(&OutputStyle::default()), d.to_text());
        }
    }
}
