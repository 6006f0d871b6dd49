//! Time zones in date/time input: checked, then ignored.
//!
//! kpg's `timestamp` is `timestamp without time zone` and its `date` has no time, so a zone
//! in their input changes nothing, but PostgreSQL still refuses one it does not know, and so
//! does kpg: a numeric offset beyond ±15:59:59 is 22009, an unknown zone name 22023. A zone
//! is known when it is
//! - an abbreviation of PostgreSQL's default set (`pst`, `cet`, `utc`, `z`; the list is the
//!   content of `pg_timezone_abbrevs` on a PostgreSQL 15 server);
//! - a zone of the system's time zone database (`America/New_York`, `Japan`, `EST5EDT`), read
//!   once from `$TZDIR` or `/usr/share/zoneinfo`, where Debian's PostgreSQL reads it too; on
//!   a system without one, any `Area/Location` name of a known area is taken;
//! - a POSIX-style zone (`UTC+3`, `XYZ-03:30`, `EST5EDT4`): a name, an offset of at most 167
//!   hours, and maybe a summer-time name with its own offset.

use super::decode::DtErr;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The time zone date/time text names: a numeric offset (seconds east of UTC, ISO's sign)
/// or a lowercased name (an abbreviation, a zone of the database, a POSIX zone).
#[derive(Clone, Debug, PartialEq)]
pub enum InputZone {
    Offset(i32),
    Name(String),
}

/// PostgreSQL's default zone abbreviations, lowercased and sorted.
const ABBREVIATIONS: &[&str] = &[
    "acdt", "acsst", "acst", "act", "acwst", "adt", "aedt", "aesst", "aest", "aft", "akdt", "akst",
    "almst", "almt", "amst", "amt", "anast", "anat", "arst", "art", "ast", "awsst", "awst",
    "azost", "azot", "azst", "azt", "bdst", "bdt", "bnt", "bort", "bot", "bra", "brst", "brt",
    "bst", "btt", "cadt", "cast", "cct", "cdt", "cest", "cet", "cetdst", "chadt", "chast", "chut",
    "ckt", "clst", "clt", "cot", "cst", "cxt", "davt", "ddut", "easst", "east", "eat", "edt",
    "eest", "eet", "eetdst", "egst", "egt", "est", "fet", "fjst", "fjt", "fkst", "fkt", "fnst",
    "fnt", "galt", "gamt", "gest", "get", "gft", "gilt", "gmt", "gyt", "hkt", "hst", "ict", "idt",
    "iot", "irkst", "irkt", "irt", "ist", "jayt", "jst", "kdt", "kgst", "kgt", "kost", "krast",
    "krat", "kst", "lhdt", "lhst", "ligt", "lint", "lkt", "magst", "magt", "mart", "mawt", "mdt",
    "mest", "mesz", "met", "metdst", "mez", "mht", "mmt", "mpt", "msd", "msk", "mst", "must",
    "mut", "mvt", "myt", "ndt", "nft", "novst", "novt", "npt", "nst", "nut", "nzdt", "nzst", "nzt",
    "omsst", "omst", "pdt", "pet", "petst", "pett", "pgt", "pht", "pkst", "pkt", "pmdt", "pmst",
    "pont", "pst", "pwt", "pyst", "pyt", "ret", "sadt", "sast", "sct", "sgt", "taht", "tft", "tjt",
    "tkt", "tmt", "tot", "trut", "tvt", "uct", "ulast", "ulat", "ut", "utc", "uyst", "uyt", "uzst",
    "uzt", "vet", "vlast", "vlat", "volt", "vut", "wadt", "wakt", "wast", "wat", "wdt", "wet",
    "wetdst", "wft", "wgst", "wgt", "xjt", "yakst", "yakt", "yapt", "yekst", "yekt", "z", "zulu",
];

/// The first parts of zone names, used only when there is no time zone database.
const AREAS: &[&str] = &[
    "africa",
    "america",
    "antarctica",
    "arctic",
    "asia",
    "atlantic",
    "australia",
    "brazil",
    "canada",
    "chile",
    "etc",
    "europe",
    "indian",
    "mexico",
    "pacific",
    "us",
];

/// A lowercased zone abbreviation (`pst`).
pub(super) fn is_abbreviation(word: &str) -> bool {
    ABBREVIATIONS.binary_search(&word).is_ok()
}

/// A lowercased zone name of the time zone database (`japan`, `america/new_york`).
pub(super) fn is_zone_name(name: &str) -> bool {
    match database() {
        Some(names) => names.contains(name),
        None => name.split_once('/').is_some_and(|(area, place)| {
            AREAS.contains(&area)
                && !place.is_empty()
                && place
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || b"_-+/".contains(&c))
        }),
    }
}

/// A lowercased zone name with punctuation or digits in it (`america/new_york`, `utc+3`).
pub(super) fn check_name(name: &str) -> Result<(), DtErr> {
    if is_zone_name(name) || is_posix_zone(name) {
        Ok(())
    } else {
        Err(DtErr::UnknownZone(name.to_string()))
    }
}

/// The digits after the sign of a numeric offset: `hh`, `hhmm`, `hh:mm` or `hh:mm:ss` (an
/// empty field after a colon is zero). The ranges are checked before what follows the
/// digits, so `+0530.5` (530 hours) is out of range while `+05.5` is a syntax error.
pub(super) fn check_offset(body: &str) -> Result<i32, DtErr> {
    fn digits(s: &str) -> (&str, &str) {
        s.split_at(s.bytes().take_while(u8::is_ascii_digit).count())
    }
    let value = |d: &str| -> Result<i64, DtErr> {
        match d {
            "" => Ok(0),
            d => d
                .parse::<i32>()
                .map(i64::from)
                .map_err(|_| DtErr::ZoneOffset),
        }
    };
    let (hours, mut rest) = digits(body);
    let no_hours = hours.is_empty();
    let (mut minutes, mut seconds) = ("", "");
    if let Some(after) = rest.strip_prefix(':') {
        (minutes, rest) = digits(after);
        if let Some(after) = rest.strip_prefix(':') {
            (seconds, rest) = digits(after);
        }
    }
    let (hours, minutes) = if rest.is_empty() && minutes.is_empty() && hours.len() > 2 {
        // More than two digits alone end with the minutes (`0530`).
        let packed = value(hours)?;
        (packed / 100, packed % 100)
    } else {
        (value(hours)?, value(minutes)?)
    };
    let seconds = value(seconds)?;
    if hours > 15 || minutes > 59 || seconds > 59 {
        return Err(DtErr::ZoneOffset);
    }
    if no_hours || !rest.is_empty() {
        return Err(DtErr::Syntax);
    }
    Ok((hours * 3600 + minutes * 60 + seconds) as i32)
}

/// `name offset [name [offset]]`, the offset `[+-]h[:mm[:ss]]` of at most 167 hours.
pub(super) fn is_posix_zone(spec: &str) -> bool {
    fn name(s: &str) -> Option<&str> {
        let end = s
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(s.len());
        (end > 0).then(|| &s[end..])
    }
    fn offset(s: &str) -> Option<&str> {
        let s = s.strip_prefix(['+', '-']).unwrap_or(s);
        let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
        let n = digits(s);
        if n == 0 || s[..n].parse::<u32>().ok()? > 167 {
            return None;
        }
        let mut rest = &s[n..];
        for limit in [59, 59] {
            let Some(after) = rest.strip_prefix(':') else {
                break;
            };
            let n = digits(after);
            if !(1..=2).contains(&n) || after[..n].parse::<u32>().ok()? > limit {
                return None;
            }
            rest = &after[n..];
        }
        Some(rest)
    }
    let Some(rest) = name(spec).and_then(offset) else {
        return false;
    };
    if rest.is_empty() {
        return true;
    }
    match name(rest) {
        Some("") => true,
        Some(rest) => offset(rest) == Some(""),
        None => false,
    }
}

/// The lowercased names of the system's time zone database, if it has one.
fn database() -> Option<&'static HashSet<String>> {
    static NAMES: OnceLock<Option<HashSet<String>>> = OnceLock::new();
    NAMES
        .get_or_init(|| {
            let root = std::env::var_os("TZDIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("/usr/share/zoneinfo"));
            let mut names = HashSet::new();
            collect_zones(&root, "", 0, &mut names);
            (!names.is_empty()).then_some(names)
        })
        .as_ref()
}

/// Adds the zone files under `dir` (files that start as compiled zones do, with `TZif`).
fn collect_zones(dir: &Path, prefix: &str, depth: usize, names: &mut HashSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Some(file) = entry.file_name().to_str().map(str::to_ascii_lowercase) else {
            continue;
        };
        let path = entry.path();
        let name = format!("{prefix}{file}");
        if path.is_dir() {
            if depth < 3 {
                collect_zones(&path, &format!("{name}/"), depth + 1, names);
            }
        } else if is_zone_file(&path) {
            names.insert(name);
        }
    }
}

fn is_zone_file(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|()| &magic == b"TZif")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abbreviations_are_sorted() {
        assert!(ABBREVIATIONS.windows(2).all(|w| w[0] < w[1]));
        assert!(is_abbreviation("pst") && is_abbreviation("z") && !is_abbreviation("xyz"));
    }

    #[test]
    fn offsets() {
        for ok in ["05", "0530", "05:30", "15:59:59", "00", "05:", "05::"] {
            assert!(check_offset(ok).is_ok(), "{ok}");
        }
        for (bad, err) in [
            ("16", DtErr::ZoneOffset),
            ("155959", DtErr::ZoneOffset),
            ("05:60", DtErr::ZoneOffset),
            ("99999999999", DtErr::ZoneOffset),
            ("0530.5", DtErr::ZoneOffset),
            ("16-30", DtErr::ZoneOffset),
            ("05.5", DtErr::Syntax),
            ("05-30", DtErr::Syntax),
            ("1:2:3:4", DtErr::Syntax),
        ] {
            assert_eq!(check_offset(bad), Err(err), "{bad}");
        }
    }

    #[test]
    fn posix_zones() {
        for ok in [
            "utc+3",
            "x+3",
            "xyz-03:30:15",
            "est5edt",
            "est5edt4",
            "xyz167",
            "gmt+0000",
        ] {
            assert!(is_posix_zone(ok), "{ok}");
        }
        for bad in [
            "xyz",
            "xyz+",
            "xyz+3:",
            "xyz+168",
            "+3",
            "xyz+3/abc",
            "xyz+3abc+",
        ] {
            assert!(!is_posix_zone(bad), "{bad}");
        }
        assert_eq!(
            check_name("foo/bar"),
            Err(DtErr::UnknownZone("foo/bar".into()))
        );
    }
}
