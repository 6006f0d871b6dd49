//! regexp_replace(source, pattern, replacement [, flags]) with PostgreSQL 15's results, on the
//! `regex` crate.
//!
//! PostgreSQL's regular expressions (Spencer's AREs) and the `regex` crate agree on much but
//! not all: an alternation or a quantified group matches the longest way in PostgreSQL and the
//! first way in the crate, `\b` is a backspace there and a word boundary here, `\w`, `\d` and
//! `\s` follow the locale there and Unicode here, and there are back references, lookaround
//! and non-greedy quantifiers whose rules differ. So a pattern is translated, not passed on:
//! literals, `.`, `^`, `$`, bracket expressions (with POSIX classes), `\d \w \s` and their
//! negations (as the C locale's ASCII sets, which kpg's tests' server uses), escaped
//! punctuation, non-capturing and capturing groups, and greedy `* + ? {m,n}` on a single atom
//! are kept; everything else is refused with 0A000 rather than answered differently. The
//! flags `g`, `i`, `c` and `s` are understood; other valid PostgreSQL flags are refused with
//! 0A000, unknown letters are 22023. With `i`, PostgreSQL's C locale folds only ASCII letters
//! where the crate folds Unicode, so a non-ASCII pattern or source is refused with `i`.
//!
//! The replacement reads `\1` to `\9` (a group's text, empty if it took no part or does not
//! exist), `\&` (the whole match) and `\\`; any other backslash is kept. Matching resumes
//! where the last match ended, one character later after an empty match, as PostgreSQL does.

use std::cell::RefCell;
use std::collections::HashMap;

use regex::{Captures, Regex, RegexBuilder};

use crate::datum::Datum;
use crate::error::EvalError;

/// At most this many translated patterns are kept per thread.
const CACHE: usize = 64;

thread_local! {
    static PATTERNS: RefCell<HashMap<(String, bool), Regex>> = RefCell::new(HashMap::new());
}

fn unsupported(what: &str) -> EvalError {
    EvalError::Unsupported(format!("{what} in regular expressions"))
}

/// The flags of a call: whether to replace every match, and whether case is ignored.
struct Flags {
    global: bool,
    case_insensitive: bool,
}

fn parse_flags(flags: &str) -> Result<Flags, EvalError> {
    let mut f = Flags {
        global: false,
        case_insensitive: false,
    };
    for c in flags.chars() {
        match c {
            'g' => f.global = true,
            'i' => f.case_insensitive = true,
            'c' => f.case_insensitive = false,
            's' => {}
            'b' | 'e' | 'm' | 'n' | 'p' | 'q' | 't' | 'w' | 'x' => {
                return Err(EvalError::Unsupported(format!(
                    "regular expression option \"{c}\""
                )))
            }
            _ => {
                return Err(EvalError::InvalidParameterValue(format!(
                    "invalid regular expression option: \"{c}\""
                )))
            }
        }
    }
    Ok(f)
}

/// Checks a constant pattern and flags at plan time: the error evaluation would raise, if any.
pub fn check_pattern(pattern: &str, flags: Option<&str>) -> Result<(), EvalError> {
    let f = parse_flags(flags.unwrap_or(""))?;
    if f.case_insensitive && !pattern.is_ascii() {
        return Err(unsupported("case-insensitive non-ASCII characters"));
    }
    compiled(pattern, f.case_insensitive, |_| ())
}

/// regexp_replace over non-NULL arguments.
pub(crate) fn regexp_replace(args: &[Datum]) -> Result<Datum, EvalError> {
    let (s, pattern, replacement, flags) = match args {
        [Datum::String(s), Datum::String(p), Datum::String(r)] => (s, p, r, ""),
        [Datum::String(s), Datum::String(p), Datum::String(r), Datum::String(f)] => {
            (s, p, r, f.as_str())
        }
        other => unreachable!("regexp_replace over {other:?}"),
    };
    let f = parse_flags(flags)?;
    if f.case_insensitive && !(pattern.is_ascii() && s.is_ascii()) {
        return Err(unsupported("case-insensitive non-ASCII characters"));
    }
    compiled(pattern, f.case_insensitive, |re| {
        Datum::String(replace(re, s, replacement, f.global))
    })
}

/// Calls `f` with the translated, compiled pattern (cached per thread).
fn compiled<T>(
    pattern: &str,
    case_insensitive: bool,
    f: impl FnOnce(&Regex) -> T,
) -> Result<T, EvalError> {
    PATTERNS.with(|cache| {
        let mut cache = cache.borrow_mut();
        let key = (pattern.to_string(), case_insensitive);
        if let Some(re) = cache.get(&key) {
            return Ok(f(re));
        }
        let re = RegexBuilder::new(&translate(pattern)?)
            .case_insensitive(case_insensitive)
            .dot_matches_new_line(true)
            .build()
            .map_err(|e| {
                EvalError::InvalidRegex(e.to_string().lines().last().unwrap_or("").into())
            })?;
        let out = f(&re);
        if cache.len() >= CACHE {
            cache.clear();
        }
        cache.insert(key, re);
        Ok(out)
    })
}

/// PostgreSQL's replacement loop.
fn replace(re: &Regex, s: &str, replacement: &str, global: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let mut copied = 0;
    let mut start = 0;
    while start <= s.len() {
        let Some(caps) = re.captures_at(s, start) else {
            break;
        };
        let m = caps.get(0).expect("group 0 always matches");
        out.push_str(&s[copied..m.start()]);
        expand(&caps, replacement, &mut out);
        copied = m.end();
        start = m.end();
        if m.is_empty() {
            match s[start..].chars().next() {
                Some(c) => start += c.len_utf8(),
                None => break,
            }
        }
        if !global {
            break;
        }
    }
    out.push_str(&s[copied..]);
    out
}

/// The replacement text for one match.
fn expand(caps: &Captures<'_>, replacement: &str, out: &mut String) {
    let mut chars = replacement.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some(d @ '1'..='9') => {
                let group = d.to_digit(10).expect("a digit") as usize;
                if let Some(m) = caps.get(group) {
                    out.push_str(m.as_str());
                }
                chars.next();
            }
            Some('&') => {
                out.push_str(caps.get(0).expect("group 0").as_str());
                chars.next();
            }
            Some('\\') => {
                out.push('\\');
                chars.next();
            }
            _ => out.push('\\'),
        }
    }
}

/// What came last in the pattern, for the quantifier that may follow.
#[derive(Clone, Copy, PartialEq)]
enum Last {
    /// Nothing to quantify: the start, `(`, `^` or `$`.
    Nothing,
    /// A single character, class or `.`.
    Atom,
    /// A closing parenthesis.
    Group,
    Quantifier,
}

/// The `regex` crate pattern that matches as the PostgreSQL pattern does, or 0A000 for what
/// they would match differently.
fn translate(pattern: &str) -> Result<String, EvalError> {
    let invalid = |what: &str| EvalError::InvalidRegex(what.into());
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut last = Last::Nothing;
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let e = chars
                    .next()
                    .ok_or_else(|| invalid("invalid escape \\ sequence"))?;
                out.push_str(&escape(e, false)?);
                last = Last::Atom;
            }
            '[' => {
                bracket(&mut chars, &mut out)?;
                last = Last::Atom;
            }
            '(' => {
                if chars.peek() == Some(&'?') {
                    chars.next();
                    if chars.next() != Some(':') {
                        return Err(unsupported("lookaround and embedded options"));
                    }
                    out.push_str("(?:");
                } else {
                    out.push('(');
                }
                last = Last::Nothing;
            }
            ')' => {
                out.push(')');
                last = Last::Group;
            }
            '|' => return Err(unsupported("alternation (|)")),
            '*' | '+' | '?' | '{' => {
                match last {
                    Last::Atom => {}
                    Last::Group => return Err(unsupported("quantified groups")),
                    Last::Nothing | Last::Quantifier => {
                        return Err(invalid("quantifier operand invalid"))
                    }
                }
                if c == '{' {
                    out.push_str(&bounds(&mut chars)?);
                } else {
                    out.push(c);
                }
                if chars.peek() == Some(&'?') {
                    return Err(unsupported("non-greedy quantifiers"));
                }
                last = Last::Quantifier;
            }
            '.' => {
                out.push('.');
                last = Last::Atom;
            }
            '^' | '$' => {
                out.push(c);
                last = Last::Nothing;
            }
            c => {
                out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
                last = Last::Atom;
            }
        }
    }
    Ok(out)
}

/// `{m}`, `{m,}` or `{m,n}` after the `{`, with PostgreSQL's bound of 255.
fn bounds(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Result<String, EvalError> {
    let mut body = String::new();
    for c in chars.by_ref() {
        if c == '}' {
            let parts: Vec<&str> = body.split(',').collect();
            let number = |p: &str| p.parse::<u32>().ok().filter(|n| *n <= 255);
            let ok = match parts.as_slice() {
                [m] => number(m).is_some(),
                [m, ""] => number(m).is_some(),
                [m, n] => matches!((number(m), number(n)), (Some(a), Some(b)) if a <= b),
                _ => false,
            };
            if !ok || body.starts_with(',') {
                return Err(unsupported(&format!("the bound {{{body}}}")));
            }
            return Ok(format!("{{{body}}}"));
        }
        body.push(c);
    }
    Err(unsupported("an unclosed {"))
}

/// The translation of `\e` (inside a bracket expression when `in_bracket`).
fn escape(e: char, in_bracket: bool) -> Result<String, EvalError> {
    const WORD: &str = "0-9A-Za-z_";
    const DIGIT: &str = "0-9";
    const SPACE: &str = "\\t\\n\\x0B\\x0C\\r ";
    let class = |set: &str, negated: bool| -> Result<String, EvalError> {
        match (in_bracket, negated) {
            (true, false) => Ok(set.to_string()),
            (true, true) => Err(unsupported("negated class escapes in brackets")),
            (false, false) => Ok(format!("[{set}]")),
            (false, true) => Ok(format!("[^{set}]")),
        }
    };
    match e {
        'd' => class(DIGIT, false),
        'D' => class(DIGIT, true),
        'w' => class(WORD, false),
        'W' => class(WORD, true),
        's' => class(SPACE, false),
        'S' => class(SPACE, true),
        't' => Ok("\\t".into()),
        'n' => Ok("\\n".into()),
        'r' => Ok("\\r".into()),
        'f' => Ok("\\x0C".into()),
        'v' => Ok("\\x0B".into()),
        'a' => Ok("\\x07".into()),
        '1'..='9' => Err(unsupported("back references")),
        c if c.is_ascii_alphanumeric() => Err(unsupported(&format!("the escape \\{c}"))),
        // Any other character stands for itself, as an escaped punctuation mark does.
        c => Ok(regex::escape(c.encode_utf8(&mut [0; 4]))),
    }
}

/// A bracket expression after its `[`, written out for the `regex` crate.
fn bracket(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    out: &mut String,
) -> Result<(), EvalError> {
    let invalid = || EvalError::InvalidRegex("brackets [] not balanced".into());
    out.push('[');
    if chars.peek() == Some(&'^') {
        chars.next();
        out.push('^');
    }
    let mut first = true;
    loop {
        let c = chars.next().ok_or_else(invalid)?;
        match c {
            ']' if !first => break,
            '[' => match chars.peek() {
                Some(':') => {
                    chars.next();
                    let mut name = String::new();
                    loop {
                        match chars.next().ok_or_else(invalid)? {
                            ':' if chars.peek() == Some(&']') => {
                                chars.next();
                                break;
                            }
                            n => name.push(n),
                        }
                    }
                    const CLASSES: [&str; 12] = [
                        "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print",
                        "punct", "space", "upper", "xdigit",
                    ];
                    if !CLASSES.contains(&name.as_str()) {
                        return Err(EvalError::InvalidRegex("invalid character class".into()));
                    }
                    out.push_str(&format!("[:{name}:]"));
                }
                Some('=' | '.') => {
                    return Err(unsupported("collating elements and equivalence classes"))
                }
                _ => out.push_str("\\["),
            },
            '\\' => {
                let e = chars.next().ok_or_else(invalid)?;
                out.push_str(&escape(e, true)?);
            }
            // A range between two characters; a '-' first or last is itself.
            '-' if !first && chars.peek() != Some(&']') => out.push('-'),
            c => out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4]))),
        }
        first = false;
    }
    out.push(']');
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rr(s: &str, p: &str, r: &str, flags: &str) -> Result<String, EvalError> {
        let args = [s, p, r, flags].map(|a| Datum::String(a.into()));
        match regexp_replace(&args)? {
            Datum::String(s) => Ok(s),
            other => panic!("{other:?}"),
        }
    }

    /// Expected values are PostgreSQL 15's.
    #[test]
    fn replaces_like_postgres() {
        assert_eq!(rr("hello world", "o", "0", "").unwrap(), "hell0 world");
        assert_eq!(rr("hello world", "o", "0", "g").unwrap(), "hell0 w0rld");
        assert_eq!(rr("Hello", "h", "j", "i").unwrap(), "jello");
        assert_eq!(rr("Hello", "h", "j", "ic").unwrap(), "Hello");
        assert_eq!(
            rr("abc", "(b)", "[\\1\\&\\\\\\x]", "").unwrap(),
            "a[bb\\\\x]c"
        );
        assert_eq!(rr("baaac", "a*", "-", "g").unwrap(), "-b--c-");
        assert_eq!(rr("a.b.c", "\\.", "", "g").unwrap(), "abc");
        assert_eq!(rr("a1 b22", "\\d+", "#", "g").unwrap(), "a# b#");
        assert_eq!(rr("a-b]c", "[]-]", "_", "g").unwrap(), "a_b_c");
        assert_eq!(rr("x\ny", ".", "_", "g").unwrap(), "___");
        assert_eq!(rr("abc", "[[:alpha:]]{2}", "X", "").unwrap(), "Xc");
        for p in ["a|b", "(a)\\1", "a*?", "(ab)*", "(?=a)", "\\bx", "\\y"] {
            assert_eq!(rr("ab", p, "", "").unwrap_err().sqlstate(), "0A000", "{p}");
        }
        assert_eq!(rr("ab", "a", "", "z").unwrap_err().sqlstate(), "22023");
        assert_eq!(rr("ab", "(", "", "").unwrap_err().sqlstate(), "2201B");
        assert_eq!(rr("é", "a", "", "i").unwrap_err().sqlstate(), "0A000");
    }
}
