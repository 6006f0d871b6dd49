//! Instants after the years whose transitions the zone database (chrono-tz) lists. chrono-tz
//! computes a zone's summer-time changes up to 2100 and then keeps the last offset forever;
//! PostgreSQL goes on applying the zone's last rule (the POSIX string of its zone file), so
//! New York is still -04 in July 2100. A rule names a month, a weekday and a week, so it falls
//! on the same month and day in any year with the same calendar (weekday of January 1st, leap
//! or not): an instant from 2100 on is looked up at the same month, day and time of such a
//! year among the 28 before 2100 (which hold every calendar, as there is no skipped leap year
//! among them).

use chrono::{Datelike, NaiveDate, NaiveDateTime};

/// The first year chrono-tz lists no transitions for.
const FIRST_UNLISTED: i32 = 2100;

/// The weekday of January 1st and whether the year is a leap year.
fn calendar(year: i32) -> Option<(chrono::Weekday, bool)> {
    let first = NaiveDate::from_ymd_opt(year, 1, 1)?;
    Some((first.weekday(), first.leap_year()))
}

/// `t` moved to a year chrono-tz lists transitions for and whose calendar is `t`'s, where
/// `t` is from 2100 on; `t` itself before.
pub(super) fn listed(t: &NaiveDateTime) -> NaiveDateTime {
    if t.year() < FIRST_UNLISTED {
        return *t;
    }
    let want = calendar(t.year());
    (FIRST_UNLISTED - 28..FIRST_UNLISTED)
        .find(|y| calendar(*y) == want)
        .and_then(|y| t.with_year(y))
        .unwrap_or(*t)
}

#[cfg(test)]
mod tests {
    use super::listed;
    use chrono::NaiveDateTime;

    fn ts(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap()
    }

    #[test]
    fn same_calendar_years() {
        assert_eq!(
            listed(&ts("2024-07-01 12:00:00")),
            ts("2024-07-01 12:00:00")
        );
        // 2100 starts on a Friday and is not a leap year, as 2077.
        assert_eq!(
            listed(&ts("2100-07-01 12:00:00")),
            ts("2077-07-01 12:00:00")
        );
        // 2104 is a leap year starting on a Tuesday, as 2092.
        assert_eq!(
            listed(&ts("2104-02-29 01:00:00")),
            ts("2092-02-29 01:00:00")
        );
    }
}
