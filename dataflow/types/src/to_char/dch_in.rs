//! Reading a date or timestamp from text through a datetime picture: `to_date(text, text)`
//! and `to_timestamp(text, text)`, as PostgreSQL 15 reads them (`DCH_from_char`, then
//! `do_to_timestamp`).
//!
//! Outside `FX` mode the reading is forgiving, as PostgreSQL's: blanks before a field and after
//! it are skipped, a separator of the picture matches one separator or blank of the text or
//! nothing, a literal character of the picture skips one character of the text (or one of the
//! blanks just skipped). A numeric field takes as many digits as it can when the next element
//! of the picture is not a digit field (or it has `FM`), else exactly its width. Fields set
//! twice must agree; ISO week fields and Gregorian ones must not be mixed. `dch_combine.rs`
//! then combines and validates the fields (a missing year is year 0, 1 BC, as in PostgreSQL).

use super::dch_keys::{DchKey, TABLE};
use super::dch_out::{DAYS, MONTHS, RM as ROMAN};
use super::picture::{self, Mods, Node};
use crate::error::EvalError;

/// The fields read from the text: a broken-down time (astronomical year), microseconds, the
/// zone offset written in the text (seconds east) and the precision of `FF1`..`FF6`.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub year: i64,
    pub mon: i64,
    pub mday: i64,
    pub hour: i64,
    pub min: i64,
    pub sec: i64,
    pub fsec: i64,
    pub east: Option<i64>,
    pub fprec: Option<u8>,
}

/// Which calendar the week and day fields belong to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    None,
    Gregorian,
    IsoWeek,
}

/// PostgreSQL's `TmFromChar`: each field as read (0 = not given).
#[derive(Default)]
pub(super) struct Fields {
    pub(super) hh: i64,
    pub(super) pm: bool,
    pub(super) twelve_hour: bool,
    pub(super) mi: i64,
    pub(super) ss: i64,
    pub(super) ssss: i64,
    pub(super) d: i64,
    pub(super) dd: i64,
    pub(super) ddd: i64,
    pub(super) mm: i64,
    pub(super) ms: i64,
    pub(super) year: i64,
    pub(super) bc: bool,
    pub(super) ww: i64,
    pub(super) w: i64,
    pub(super) cc: i64,
    pub(super) j: i64,
    pub(super) us: i64,
    pub(super) yysz: u8,
    pub(super) ff: u8,
    pub(super) tzsign: i64,
    pub(super) tzh: i64,
    pub(super) tzm: i64,
    pub(super) q: i64,
}

fn name_of(key: DchKey) -> &'static str {
    TABLE
        .iter()
        .find(|(_, k)| *k == key)
        .map_or("?", |(n, _)| n)
}

fn format_error(msg: String) -> EvalError {
    EvalError::InvalidDatetimeFormat(msg)
}

/// Whether the key reads digits (PostgreSQL's `is_digit` column).
fn is_digit_key(key: DchKey) -> bool {
    use DchKey::*;
    !matches!(
        key,
        Era(..) | Meridiem(..) | Day(_) | Dy(_) | Fx | Month(_) | Mon(_) | Of | Rm(_) | Tzh | Tz(_)
    )
}

fn mode_of(key: DchKey) -> Mode {
    use DchKey::*;
    match key {
        Ddd | Dd | D | Mm | Month(_) | Mon(_) | Rm(_) | Ww | W | YCommaYyy | Yyyy | Yyy | Yy
        | Y => Mode::Gregorian,
        Iddd | Id | Iw | Iyyy | Iyy | Iy | I => Mode::IsoWeek,
        _ => Mode::None,
    }
}

fn is_separator(c: char) -> bool {
    c.is_ascii() && c > ' ' && c < '\x7f' && !c.is_ascii_alphanumeric()
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// The reading of one text through one picture.
struct Reader<'a> {
    text: &'a str,
    pos: usize,
    fields: Fields,
    mode: Mode,
}

impl Reader<'_> {
    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn advance_char(&mut self) {
        if let Some(c) = self.rest().chars().next() {
            self.pos += c.len_utf8();
        }
    }

    fn set(
        &mut self,
        which: fn(&mut Fields) -> &mut i64,
        value: i64,
        key: DchKey,
    ) -> Result<(), EvalError> {
        let dest = which(&mut self.fields);
        if *dest != 0 && *dest != value {
            return Err(format_error(format!(
                "conflicting values for \"{}\" field in formatting string",
                name_of(key)
            )));
        }
        *dest = value;
        Ok(())
    }

    /// `from_char_parse_int_len`: the integer of a field, `len` characters wide unless it
    /// may take what it finds (`slurp`); returns the value and how many characters it took.
    fn int(&mut self, len: usize, key: DchKey, slurp: bool) -> Result<(i64, usize), EvalError> {
        while self.rest().starts_with(' ') {
            self.pos += 1;
        }
        let init = self.rest();
        let copy: String = init.chars().take(len).collect();
        let invalid = || format_error(format!("invalid value \"{copy}\" for \"{}\"", name_of(key)));
        let (value, used) = if slurp {
            strtol(init)
        } else {
            if init.chars().count() < len {
                return Err(format_error(format!(
                    "source string too short for \"{}\" formatting field",
                    name_of(key)
                )));
            }
            let (v, used) = strtol(&copy);
            if used > 0 && used < copy.len() {
                return Err(invalid());
            }
            (v, used)
        };
        if used == 0 {
            return Err(invalid());
        }
        let value = value.filter(|v| i32::try_from(*v).is_ok()).ok_or_else(|| {
            EvalError::DateTimeValueOutOfRange(format!(
                "value for \"{}\" in source string is",
                name_of(key)
            ))
        })?;
        let chars = init[..used].chars().count();
        self.pos += used;
        Ok((value, chars))
    }

    /// `from_char_seq_search`: the index of the first of `names` the text starts with,
    /// without regard to case.
    fn search(&mut self, names: &[&str], key: DchKey) -> Result<i64, EvalError> {
        for (i, name) in names.iter().enumerate() {
            if let Some(prefix) = self.rest().get(..name.len()) {
                if prefix.eq_ignore_ascii_case(name) {
                    self.pos += name.len();
                    return Ok(i as i64);
                }
            }
        }
        let word: String = self.rest().chars().take_while(|c| !is_space(*c)).collect();
        Err(format_error(format!(
            "invalid value \"{word}\" for \"{}\"",
            name_of(key)
        )))
    }

    /// A numeric field into `which`, then its `TH` suffix skipped; the characters read.
    fn number(
        &mut self,
        len: usize,
        key: DchKey,
        mods: Mods,
        slurp: bool,
        which: fn(&mut Fields) -> &mut i64,
    ) -> Result<usize, EvalError> {
        let (v, n) = self.int(len, key, slurp)?;
        self.set(which, v, key)?;
        self.skip_th(mods);
        Ok(n)
    }

    fn skip_th(&mut self, mods: Mods) {
        if mods.th.is_some() {
            self.advance_char();
            self.advance_char();
        }
    }

    /// Reads one keyword's field. `slurp`: the field takes all the digits it finds.
    fn field(
        &mut self,
        key: DchKey,
        mods: Mods,
        slurp: bool,
        minus_skipped: bool,
    ) -> Result<(), EvalError> {
        use DchKey::*;
        let m = mode_of(key);
        if m != Mode::None {
            if self.mode == Mode::None {
                self.mode = m;
            } else if self.mode != m {
                return Err(format_error(
                    "invalid combination of date conventions".to_string(),
                ));
            }
        }
        match key {
            Fx => {}
            Meridiem(dotted, _) => {
                let names: &[&str] = if dotted {
                    &["a.m.", "p.m."]
                } else {
                    &["am", "pm"]
                };
                self.fields.pm = self.search(names, key)? == 1;
                self.fields.twelve_hour = true;
            }
            Era(dotted, _) => {
                let names: &[&str] = if dotted {
                    &["a.d.", "b.c."]
                } else {
                    &["ad", "bc"]
                };
                self.fields.bc = self.search(names, key)? == 1;
            }
            Hh | Hh12 => {
                self.number(2, key, mods, slurp, |f| &mut f.hh)?;
                self.fields.twelve_hour = true;
            }
            Hh24 => {
                self.number(2, key, mods, slurp, |f| &mut f.hh)?;
            }
            Mi => {
                self.number(2, key, mods, slurp, |f| &mut f.mi)?;
            }
            Ss => {
                self.number(2, key, mods, slurp, |f| &mut f.ss)?;
            }
            Ms => {
                let n = self.number(3, key, mods, slurp, |f| &mut f.ms)?;
                self.fields.ms *= match n {
                    1 => 100,
                    2 => 10,
                    _ => 1,
                };
            }
            Ff(_) | Us => {
                let width = match key {
                    Ff(p) => {
                        self.fields.ff = p;
                        usize::from(p)
                    }
                    _ => 6,
                };
                let n = self.number(width, key, mods, slurp, |f| &mut f.us)?;
                let scale = [100_000, 10_000, 1_000, 100, 10, 1];
                self.fields.us *= scale.get(n.saturating_sub(1)).copied().unwrap_or(1);
            }
            Ssss | Sssss => {
                let width = if key == Ssss { 4 } else { 5 };
                self.number(width, key, mods, slurp, |f| &mut f.ssss)?;
            }
            Tz(_) | Of => {
                return Err(EvalError::Unsupported(format!(
                    "formatting field \"{}\" in to_date and to_timestamp (PostgreSQL 15 \
                     reads it only in to_char)",
                    name_of(key)
                )))
            }
            Tzh => {
                // A minus sign may have been skipped as a separator just before.
                match self.rest().chars().next() {
                    Some(c @ ('+' | '-' | ' ')) => {
                        self.fields.tzsign = if c == '-' { -1 } else { 1 };
                        self.pos += 1;
                    }
                    _ => self.fields.tzsign = if minus_skipped { -1 } else { 1 },
                }
                self.number(2, key, mods, slurp, |f| &mut f.tzh)?;
            }
            Tzm => {
                if self.fields.tzsign == 0 {
                    self.fields.tzsign = 1;
                }
                self.number(2, key, mods, slurp, |f| &mut f.tzm)?;
            }
            Month(_) => {
                let i = self.search(&MONTHS, key)?;
                self.set(|f| &mut f.mm, i + 1, key)?;
            }
            Mon(_) => {
                let abbrevs: Vec<&str> = MONTHS.iter().map(|m| &m[..3]).collect();
                let i = self.search(&abbrevs, key)?;
                self.set(|f| &mut f.mm, i + 1, key)?;
            }
            Mm => {
                self.number(2, key, mods, slurp, |f| &mut f.mm)?;
            }
            Day(_) => {
                let i = self.search(&DAYS, key)?;
                self.set(|f| &mut f.d, i + 1, key)?;
            }
            Dy(_) => {
                let abbrevs: Vec<&str> = DAYS.iter().map(|d| &d[..3]).collect();
                let i = self.search(&abbrevs, key)?;
                self.set(|f| &mut f.d, i + 1, key)?;
            }
            Ddd | Iddd => {
                self.number(3, key, mods, slurp, |f| &mut f.ddd)?;
            }
            Dd => {
                self.number(2, key, mods, slurp, |f| &mut f.dd)?;
            }
            D => {
                self.number(1, key, mods, slurp, |f| &mut f.d)?;
            }
            Id => {
                self.number(1, key, mods, slurp, |f| &mut f.d)?;
                // ISO numbers Monday 1 .. Sunday 7; the field counts from Sunday = 1.
                self.fields.d += 1;
                if self.fields.d > 7 {
                    self.fields.d = 1;
                }
            }
            Ww | Iw => {
                self.number(2, key, mods, slurp, |f| &mut f.ww)?;
            }
            Q => {
                // Read and then ignored: which day of the quarter would be unclear.
                self.number(1, key, mods, slurp, |f| &mut f.q)?;
            }
            Cc => {
                self.number(2, key, mods, slurp, |f| &mut f.cc)?;
            }
            YCommaYyy => {
                let (years, used) = y_comma_yyy(self.rest()).ok_or_else(|| {
                    format_error("invalid input string for \"Y,YYY\"".to_string())
                })?;
                self.set(|f| &mut f.year, years, key)?;
                self.fields.yysz = 4;
                self.pos += used;
                self.skip_th(mods);
            }
            Yyyy | Iyyy => {
                self.number(4, key, mods, slurp, |f| &mut f.year)?;
                self.fields.yysz = 4;
            }
            Yyy | Iyy | Yy | Iy | Y | I => {
                let width = match key {
                    Yyy | Iyy => 3,
                    Yy | Iy => 2,
                    _ => 1,
                };
                let (v, n) = self.int(width, key, slurp)?;
                let v = if n < 4 { adjust_partial_year(v) } else { v };
                self.set(|f| &mut f.year, v, key)?;
                self.fields.yysz = width as u8;
                self.skip_th(mods);
            }
            Rm(_) => {
                let i = self.search(&ROMAN, key)?;
                self.set(|f| &mut f.mm, 12 - i, key)?;
            }
            W => {
                self.number(1, key, mods, slurp, |f| &mut f.w)?;
            }
            J => {
                self.number(1, key, mods, slurp, |f| &mut f.j)?;
            }
        }
        Ok(())
    }
}

/// C's `strtol` in base 10: leading blanks, a sign, digits; the value (`None` when it
/// overflows) and the bytes used (0 when there are no digits).
fn strtol(s: &str) -> (Option<i64>, usize) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && is_space(b[i] as char) {
        i += 1;
    }
    let negative = match b.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let start = i;
    let mut value: Option<i64> = Some(0);
    while i < b.len() && b[i].is_ascii_digit() {
        value = value
            .and_then(|v| v.checked_mul(10))
            .and_then(|v| v.checked_add(i64::from(b[i] - b'0')));
        i += 1;
    }
    if i == start {
        return (Some(0), 0);
    }
    (value.map(|v| if negative { -v } else { v }), i)
}

/// `Y,YYY` as C's `sscanf("%d,%03d")` reads it: the years and the bytes used.
fn y_comma_yyy(s: &str) -> Option<(i64, usize)> {
    let (millennia, used) = strtol(s);
    if used == 0 {
        return None;
    }
    let rest = s[used..].strip_prefix(',')?;
    let blanks = rest.len() - rest.trim_start_matches(is_space).len();
    let field: String = rest[blanks..].chars().take(3).collect();
    let (years, n) = strtol(&field);
    if n == 0 {
        return None;
    }
    Some((millennia? * 1000 + years?, used + 1 + blanks + n))
}

/// PostgreSQL's `adjust_partial_year_to_2020`: a year of fewer than four digits is the one
/// nearest 2020 (`70` is 1970, `69` is 2069, `519` is 2519, `520` is 1520).
fn adjust_partial_year(year: i64) -> i64 {
    match year {
        y if y < 70 => y + 2000,
        y if y < 100 => y + 1900,
        y if y < 520 => y + 2000,
        y if y < 1000 => y + 1000,
        y => y,
    }
}

/// PostgreSQL's `is_next_separator`: whether the field at `i` may take all the digits it
/// finds (it has a `TH` suffix, it is last, or what follows it is not a digit).
fn is_next_separator(nodes: &[Node<DchKey>], i: usize) -> bool {
    if let Node::Key { mods, .. } = &nodes[i] {
        if mods.th.is_some() {
            return true;
        }
    }
    match nodes.get(i + 1) {
        None => true,
        Some(Node::Key { key, .. }) => !is_digit_key(*key),
        Some(Node::Char { c, .. }) => !c.is_ascii_digit(),
    }
}

/// Reads `text` through `picture` (`DCH_from_char` and `do_to_timestamp`).
pub fn parse(text: &str, picture: &str) -> Result<Parsed, EvalError> {
    let nodes = picture::parse(picture, TABLE, true);
    let mut r = Reader {
        text,
        pos: 0,
        fields: Fields::default(),
        mode: Mode::None,
    };
    let mut fx = false;
    let mut extra_skip: i64 = 0;
    for (i, node) in nodes.iter().enumerate() {
        if r.rest().is_empty() {
            break;
        }
        let is_key = matches!(node, Node::Key { .. });
        let is_fx = matches!(
            node,
            Node::Key {
                key: DchKey::Fx,
                ..
            }
        );
        if !fx && !is_fx && (is_key || i == 0) {
            while r.rest().starts_with(is_space) {
                r.pos += 1;
                extra_skip += 1;
            }
        }
        match node {
            Node::Char { c, quoted } if !quoted && (is_space(*c) || is_separator(*c)) => {
                if fx {
                    r.advance_char();
                } else {
                    extra_skip -= 1;
                    if r.rest()
                        .starts_with(|c: char| is_space(c) || is_separator(c))
                    {
                        r.advance_char();
                        extra_skip += 1;
                    }
                }
                continue;
            }
            Node::Char { .. } => {
                if !fx && extra_skip > 0 {
                    extra_skip -= 1;
                } else {
                    r.advance_char();
                }
                continue;
            }
            Node::Key { key, mods } => {
                if *key == DchKey::Fx {
                    fx = true;
                }
                let minus_skipped = extra_skip > 0 && r.text[..r.pos].ends_with('-');
                let slurp = mods.fill || is_next_separator(&nodes, i);
                r.field(*key, *mods, slurp, minus_skipped)?;
            }
        }
        if !fx {
            extra_skip = 0;
            while r.rest().starts_with(is_space) {
                r.pos += 1;
                extra_skip += 1;
            }
        }
    }
    super::dch_combine::finish(text, r.fields, r.mode)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ymd(text: &str, picture: &str) -> (i64, i64, i64, i64, i64, i64, i64) {
        let p = parse(text, picture).unwrap();
        (p.year, p.mon, p.mday, p.hour, p.min, p.sec, p.fsec)
    }

    #[test]
    fn reads_as_postgres() {
        assert_eq!(
            ymd("2024-01-05 10:07:09", "YYYY-MM-DD HH24:MI:SS"),
            (2024, 1, 5, 10, 7, 9, 0)
        );
        assert_eq!(ymd("10:00", "HH24:MI"), (0, 1, 1, 10, 0, 0, 0));
        assert_eq!(ymd("02-30", "MM-DD"), (0, 2, 30, 0, 0, 0, 0));
        assert_eq!(ymd("2024Jan05", "YYYYMonDD"), (2024, 1, 5, 0, 0, 0, 0));
        assert_eq!(ymd(" 2024 - 01", "YYYY-MM"), (2024, 1, 1, 0, 0, 0, 0));
        assert_eq!(ymd("99", "YY"), (1999, 1, 1, 0, 0, 0, 0));
        assert_eq!(ymd("2024 100", "YYYY DDD"), (2024, 4, 9, 0, 0, 0, 0));
        assert_eq!(ymd("20 05", "CC YY"), (1905, 1, 1, 0, 0, 0, 0));
        assert_eq!(ymd("2451545", "J"), (2000, 1, 1, 0, 0, 0, 0));
        assert_eq!(ymd("2024 12 1", "IYYY IW ID"), (2024, 3, 18, 0, 0, 0, 0));
        assert_eq!(ymd("1.5", "SS.MS"), (0, 1, 1, 0, 0, 1, 500_000));
        assert_eq!(ymd("44 BC", "YYYY BC"), (-43, 1, 1, 0, 0, 0, 0));
        assert_eq!(ymd("11:30 PM", "HH:MI AM"), (0, 1, 1, 23, 30, 0, 0));
        assert_eq!(ymd("2,024", "Y,YYY"), (2024, 1, 1, 0, 0, 0, 0));
        let p = parse("2024-01-05 10:00 -05", "YYYY-MM-DD HH24:MI TZH").unwrap();
        assert_eq!(p.east, Some(-5 * 3600));
        let p = parse("10:00 +05:30", "HH24:MI TZH:TZM").unwrap();
        assert_eq!(p.east, Some(5 * 3600 + 1800));
    }

    #[test]
    fn refuses_as_postgres() {
        let code = |t: &str, p: &str| parse(t, p).unwrap_err().sqlstate();
        assert_eq!(code("2024-02-30", "YYYY-MM-DD"), "22008");
        assert_eq!(code("2024-13-01", "YYYY-MM-DD"), "22008");
        assert_eq!(code("x", "YYYY"), "22007");
        assert_eq!(code("2024 JUN", "YYYY MM"), "22007");
        assert_eq!(code("13 PM", "HH PM"), "22007");
        assert_eq!(code("2024 12 1", "YYYY IW ID"), "22007");
        assert_eq!(code("2024 2025", "YYYY YYYY"), "22007");
        assert_eq!(code("10 EST", "HH24 TZ"), "0A000");
    }
}
