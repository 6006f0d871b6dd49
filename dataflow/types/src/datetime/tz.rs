//! Time zones that give offsets: the session's `TimeZone`, the zone of `AT TIME ZONE` and
//! `timezone(zone, ts)`, and the zone named in `timestamptz` input.
//!
//! A zone is either a fixed offset or a zone of the IANA database (the `chrono-tz` crate,
//! names looked up without regard to case, as PostgreSQL does). PostgreSQL reads a zone's
//! text in three places with three sign conventions, and so does kpg:
//! - `SET TimeZone` (`Zone::parse_setting`): a plain number is hours *east* (`+02`, `-7`,
//!   `2.5`) and shows as `<+02>-02`; otherwise a database zone, or a POSIX spec whose offset
//!   is hours *west* (`UTC+3` is three hours behind UTC, and so is `+03:00` alone).
//! - `AT TIME ZONE` / `timezone()` (`Zone::parse_function`): an abbreviation of PostgreSQL's
//!   default set, then a database zone, then a POSIX spec, its name optional (`+02` is two
//!   hours west).
//! - date/time text (`Zone::from_input`): a numeric offset is east (`+02`), a name as above.
//!
//! Local times that a DST change skips or repeats are read as PostgreSQL's
//! `DetermineTimeZoneOffset` reads them: a skipped one with the offset before the change
//! (2:30 on a spring-forward night is 3:30 summer time), a repeated one with the offset after
//! it (standard time). POSIX specs with summer-time rules (`EST5EDT4` when no such zone
//! exists) are not implemented and refused.

use super::abbrevs::{self, Abbrev};
use chrono::{Duration, NaiveDateTime, Offset, TimeZone};
use chrono_tz::{OffsetName, Tz};

/// A time zone that says an instant's offset from UTC.
#[derive(Clone, Debug, PartialEq)]
pub enum Zone {
    /// A fixed offset, seconds east of UTC, with the abbreviation PostgreSQL prints for it.
    Fixed {
        east: i32,
        abbrev: String,
    },
    Named(Tz),
}

/// Why a zone's text was not taken.
#[derive(Clone, Debug, PartialEq)]
pub enum ZoneError {
    /// Not a zone PostgreSQL knows.
    Unknown,
    /// A zone PostgreSQL takes that kpg does not implement (POSIX summer-time rules).
    Unsupported,
}

impl Zone {
    pub const UTC: Zone = Zone::Named(Tz::UTC);

    /// Reads a value of the `TimeZone` setting, returning the zone and the text `SHOW` gives.
    pub fn parse_setting(text: &str) -> Result<(Zone, String), ZoneError> {
        let t = text.trim();
        if let Some(hours) = plain_number(t) {
            let east = (hours * 3600.0).round();
            if !east.is_finite() || east.abs() > 168.0 * 3600.0 {
                return Err(ZoneError::Unknown);
            }
            return Ok(Zone::offset_setting(east as i32));
        }
        if let Some(tz) = database(t) {
            return Ok((Zone::Named(tz), tz.name().to_string()));
        }
        if t.starts_with(|c: char| c == '+' || c == '-' || c.is_ascii_digit()) {
            // An offset alone (`+05:30`, `5:30`) is a POSIX spec without a name: hours
            // *west*, shown as written. PostgreSQL refuses one with seconds.
            return match posix_offset(t) {
                Some((west, "")) if west % 60 == 0 => Ok((
                    Zone::Fixed {
                        east: -west,
                        abbrev: String::new(),
                    },
                    t.to_string(),
                )),
                Some((_, rest)) if rest.starts_with(|c: char| c.is_ascii_alphabetic()) => {
                    Err(ZoneError::Unsupported)
                }
                _ => Err(ZoneError::Unknown),
            };
        }
        posix(t, false).map(|z| (z, t.to_string()))
    }

    /// The zone of `SET TIME ZONE INTERVAL '...'` or a number of hours: `east` seconds east
    /// of UTC, shown as PostgreSQL shows such a zone (`<+05:30>-05:30`).
    pub fn offset_setting(east: i32) -> (Zone, String) {
        let body = offset_body(east.unsigned_abs());
        let (iso, posix) = if east >= 0 { ('+', '-') } else { ('-', '+') };
        let abbrev = format!("{iso}{body}");
        let shown = format!("<{abbrev}>{posix}{body}");
        (Zone::Fixed { east, abbrev }, shown)
    }

    /// Reads the zone argument of `AT TIME ZONE` and `timezone(zone, ...)`.
    pub fn parse_function(text: &str) -> Result<Zone, ZoneError> {
        let t = text.trim();
        let lower = t.to_ascii_lowercase();
        if let Some(a) = abbrevs::lookup(&lower) {
            return Ok(Zone::of_abbrev(a, t));
        }
        if let Some(tz) = database(t) {
            return Ok(Zone::Named(tz));
        }
        posix(t, true)
    }

    /// The zone a date/time text names (`+02`, `europe/paris`, `est`, `utc+3`).
    pub(super) fn from_input(zone: &super::zone::InputZone) -> Result<Zone, ZoneError> {
        match zone {
            super::zone::InputZone::Offset(east) => Ok(Zone::Fixed {
                east: *east,
                abbrev: String::new(),
            }),
            super::zone::InputZone::Name(name) => Zone::parse_function(name),
        }
    }

    fn of_abbrev(a: Abbrev, text: &str) -> Zone {
        match a {
            Abbrev::Fixed(east) => Zone::Fixed {
                east,
                abbrev: text.to_ascii_uppercase(),
            },
            Abbrev::Zone(name) => Zone::Named(name.parse().unwrap_or(Tz::UTC)),
        }
    }

    /// Whether every instant has offset 0 here (UTC, GMT, `+00`, `Etc/UTC`...).
    pub fn is_utc(&self) -> bool {
        match self {
            Zone::Fixed { east, .. } => *east == 0,
            Zone::Named(_) => {
                // Offset 0 at instants across history and seasons (zones of UTC have no
                // transitions; any other had a local mean time once).
                let at = |y, day| {
                    chrono::NaiveDate::from_yo_opt(y, day)
                        .expect("valid")
                        .and_time(chrono::NaiveTime::MIN)
                };
                [1800, 1900, 1950, 2000, 2024, 2100]
                    .into_iter()
                    .all(|y| [1, 182].iter().all(|d| self.offset_at_utc(&at(y, *d)) == 0))
            }
        }
    }

    /// The offset (seconds east of UTC) at the UTC instant `utc`.
    pub fn offset_at_utc(&self, utc: &NaiveDateTime) -> i32 {
        match self {
            Zone::Fixed { east, .. } => *east,
            Zone::Named(tz) => tz
                .offset_from_utc_datetime(&super::rule_years::listed(utc))
                .fix()
                .local_minus_utc(),
        }
    }

    /// The abbreviation PostgreSQL prints for the zone at `utc` in the SQL, Postgres and
    /// German styles (`EST`, `CEST`, `+02` where the database has no letters).
    pub fn abbrev_at_utc(&self, utc: &NaiveDateTime) -> String {
        match self {
            Zone::Fixed { abbrev, east } if abbrev.is_empty() => {
                let body = offset_body(east.unsigned_abs());
                format!("{}{body}", if *east >= 0 { '+' } else { '-' })
            }
            Zone::Fixed { abbrev, .. } => abbrev.clone(),
            Zone::Named(tz) => {
                let off = tz.offset_from_utc_datetime(&super::rule_years::listed(utc));
                match off.abbreviation() {
                    Some(a) => a.to_string(),
                    None => {
                        let east = off.fix().local_minus_utc();
                        let body = offset_body(east.unsigned_abs());
                        format!("{}{body}", if east >= 0 { '+' } else { '-' })
                    }
                }
            }
        }
    }

    /// The UTC instant of the local time `local` here, with PostgreSQL's choice for skipped
    /// and repeated local times.
    pub fn local_to_utc(&self, local: &NaiveDateTime) -> Option<NaiveDateTime> {
        let east = match self {
            Zone::Fixed { east, .. } => *east,
            Zone::Named(tz) => match tz.from_local_datetime(&super::rule_years::listed(local)) {
                chrono::LocalResult::Single(t) => t.offset().fix().local_minus_utc(),
                chrono::LocalResult::Ambiguous(_, later) => later.offset().fix().local_minus_utc(),
                chrono::LocalResult::None => {
                    // Skipped: the offset before the change.
                    let before =
                        super::rule_years::listed(local).checked_sub_signed(Duration::days(1))?;
                    tz.offset_from_utc_datetime(&before).fix().local_minus_utc()
                }
            },
        };
        local.checked_sub_signed(Duration::seconds(east.into()))
    }

    /// The local time here of the UTC instant `utc`.
    pub fn utc_to_local(&self, utc: &NaiveDateTime) -> Option<NaiveDateTime> {
        utc.checked_add_signed(Duration::seconds(self.offset_at_utc(utc).into()))
    }
}

/// `hh[:mm[:ss]]` of an offset, minutes and seconds only when not zero.
pub fn offset_body(secs: u32) -> String {
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    match (m, s) {
        (0, 0) => format!("{h:02}"),
        (m, 0) => format!("{h:02}:{m:02}"),
        (m, s) => format!("{h:02}:{m:02}:{s:02}"),
    }
}

/// A number as C's strtod reads all of `text` (`+02`, `-7`, `2.5`), or `None`.
fn plain_number(text: &str) -> Option<f64> {
    let digits = text.trim_start_matches(['+', '-']);
    if digits.is_empty()
        || text.len() - digits.len() > 1
        || !digits.bytes().all(|c| c.is_ascii_digit() || c == b'.')
        || !digits.bytes().any(|c| c.is_ascii_digit())
    {
        return None;
    }
    text.parse().ok()
}

/// A zone of the database, by its name in any case (`america/new_york`).
fn database(name: &str) -> Option<Tz> {
    if name.is_empty() || name.eq_ignore_ascii_case("localtime") || name.starts_with("right/") {
        return None;
    }
    Tz::from_str_insensitive(name).ok()
}

/// A POSIX spec without summer time: `NAME[+-]h[:mm[:ss]]`, the offset west of UTC, the
/// name (three or more letters, or `<...>`) optional only where `name_optional`. A spec
/// with a summer-time part is refused as not implemented.
fn posix(text: &str, name_optional: bool) -> Result<Zone, ZoneError> {
    let (abbrev, rest) = if let Some(inner) = text.strip_prefix('<') {
        let end = inner.find('>').ok_or(ZoneError::Unknown)?;
        (&inner[..end], &inner[end + 1..])
    } else {
        let end = text
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(text.len());
        (&text[..end], &text[end..])
    };
    let named = !abbrev.is_empty();
    if !named && !name_optional {
        return Err(ZoneError::Unknown);
    }
    let (west, rest) = posix_offset(rest).ok_or(ZoneError::Unknown)?;
    if !rest.is_empty() {
        let dst_name = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
        return Err(if dst_name >= 1 {
            ZoneError::Unsupported
        } else {
            ZoneError::Unknown
        });
    }
    if !named {
        // `+02` alone: the abbreviation is the ISO-signed offset.
        return Ok(Zone::Fixed {
            east: -west,
            abbrev: String::new(),
        });
    }
    Ok(Zone::Fixed {
        east: -west,
        abbrev: abbrev.to_string(),
    })
}

/// `[+-]h[:mm[:ss]]` of at most 167 hours: seconds (POSIX sign) and the rest of the text.
fn posix_offset(s: &str) -> Option<(i32, &str)> {
    let (negative, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let n = digits(s);
    if n == 0 || n > 3 {
        return None;
    }
    let hours: i32 = s[..n].parse().ok()?;
    if hours > 167 {
        return None;
    }
    let mut total = hours * 3600;
    let mut rest = &s[n..];
    for (limit, unit) in [(59, 60), (59, 1)] {
        let Some(after) = rest.strip_prefix(':') else {
            break;
        };
        let n = digits(after);
        if !(1..=2).contains(&n) {
            return None;
        }
        let v: i32 = after[..n].parse().ok()?;
        if v > limit {
            return None;
        }
        total += v * unit;
        rest = &after[n..];
    }
    Some((if negative { -total } else { total }, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap()
    }

    #[test]
    fn settings_and_their_signs() {
        let (z, shown) = Zone::parse_setting("+02").unwrap();
        assert_eq!(
            (z.offset_at_utc(&ts("2024-01-01 00:00:00")), shown.as_str()),
            (7200, "<+02>-02")
        );
        let (z, shown) = Zone::parse_setting("-7").unwrap();
        assert_eq!(
            (z.offset_at_utc(&ts("2024-01-01 00:00:00")), shown.as_str()),
            (-25200, "<-07>+07")
        );
        let (z, shown) = Zone::parse_setting("UTC+3").unwrap();
        assert_eq!(
            (z.offset_at_utc(&ts("2024-01-01 00:00:00")), shown.as_str()),
            (-10800, "UTC+3")
        );
        assert_eq!(
            Zone::parse_setting("america/new_york").unwrap().1,
            "America/New_York"
        );
        assert_eq!(Zone::parse_setting("2.5").unwrap().1, "<+02:30>-02:30");
        assert_eq!(Zone::parse_setting("PST"), Err(ZoneError::Unknown));
        assert_eq!(Zone::parse_setting("foo"), Err(ZoneError::Unknown));
        let (z, shown) = Zone::parse_setting("+05:30").unwrap();
        assert_eq!(
            (z.offset_at_utc(&ts("2024-01-01 00:00:00")), shown.as_str()),
            (-19800, "+05:30")
        );
        assert_eq!(Zone::parse_setting("-5:30").unwrap().1, "-5:30");
        assert_eq!(Zone::parse_setting("+05:30:15"), Err(ZoneError::Unknown));
        assert_eq!(Zone::parse_setting("+168:00"), Err(ZoneError::Unknown));
        assert_eq!(Zone::parse_setting("XYZ5ABC"), Err(ZoneError::Unsupported));
        assert!(Zone::parse_setting("UTC").unwrap().0.is_utc());
        assert!(Zone::parse_setting("Etc/UTC").unwrap().0.is_utc());
        assert!(!Zone::parse_setting("Europe/London").unwrap().0.is_utc());
    }

    #[test]
    fn function_zones() {
        let at = ts("2024-01-01 00:00:00");
        assert_eq!(
            Zone::parse_function("+02").unwrap().offset_at_utc(&at),
            -7200
        );
        assert_eq!(
            Zone::parse_function("EST").unwrap().offset_at_utc(&at),
            -18000
        );
        assert_eq!(
            Zone::parse_function("msk").unwrap().offset_at_utc(&at),
            10800
        );
        assert_eq!(Zone::parse_function("Foo/Bar"), Err(ZoneError::Unknown));
    }

    #[test]
    fn dst_gaps_and_overlaps() {
        let ny = Zone::parse_setting("America/New_York").unwrap().0;
        // Skipped 02:30 reads with the offset before (EST): 07:30 UTC.
        assert_eq!(
            ny.local_to_utc(&ts("2024-03-10 02:30:00")),
            Some(ts("2024-03-10 07:30:00"))
        );
        // Repeated 01:30 reads as standard time: 06:30 UTC.
        assert_eq!(
            ny.local_to_utc(&ts("2024-11-03 01:30:00")),
            Some(ts("2024-11-03 06:30:00"))
        );
        assert_eq!(ny.abbrev_at_utc(&ts("2024-07-01 00:00:00")), "EDT");
    }
}
