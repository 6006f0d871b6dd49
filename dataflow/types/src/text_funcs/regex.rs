//! regexp_replace, regexp_like and regexp_count with PostgreSQL 15's results, on the `regex`
//! crate.
//!
//! PostgreSQL's regular expressions (Spencer's AREs) and the `regex` crate agree on much but
//! not all: a pattern of greedy quantifiers matches the longest way in PostgreSQL and the first
//! way in the crate (they differ through alternations and quantified groups), `\b` is a
//! backspace there and a word boundary here, `\w`, `\d` and `\s` follow the locale there and
//! Unicode here, and there are back references, lookaround and non-greedy quantifiers whose
//! rules differ. So a pattern is translated, not passed on: literals, `.`, `^`, `$`, bracket
//! expressions (with POSIX classes), `\d \w \s` and their negations and the word boundaries
//! `\y \Y \m \M` (as the C locale's ASCII sets, which kpg's tests' server uses), escaped
//! punctuation, groups, alternations and quantifiers (greedy and not) are kept; back
//! references, lookaround and PostgreSQL-only escapes are refused with 0A000 rather than
//! answered differently.
//!
//! PostgreSQL takes, at the leftmost place a match begins, the longest match, or the shortest
//! when the pattern is non-greedy (its first quantifier with a greediness is, and it is not an
//! alternation). Where the crate's first match can differ (an alternation other than of
//! literals none of which begins another, a quantified group, a non-greedy quantifier), the
//! crate finds where the leftmost match begins (the same place in both) and an anchored
//! automaton with `MatchKind::All` where the longest (or shortest) one ends. The groups of such
//! a pattern follow PostgreSQL's own rules for subexpressions, so reading them (`\1` in a
//! replacement, regexp_substr's `subexpr`) is refused; for other patterns the crate's groups
//! are PostgreSQL's. The random pattern test in
//! `tests/tests/text_functions.rs` holds all of this to PostgreSQL's answers.
//!
//! The flags `g`, `i`, `c`, `n`/`m`, `p`, `w`, `s`, `x`, `t` and `q` are understood (`n`: `.`
//! and `[^...]` do not match a newline and `^`/`$` match at line ends; `p` and `w` each half
//! of it; `x` ignores white space and `#` comments; `q` reads the pattern literally); `b` and
//! `e` (basic and extended syntax) are refused with 0A000, unknown letters are 22023. With
//! `i`, PostgreSQL's C locale folds only ASCII letters where the crate folds Unicode, so a
//! non-ASCII pattern or source is refused with `i`.
//!
//! The replacement reads `\1` to `\9` (a group's text, empty if it took no part or does not
//! exist), `\&` (the whole match) and `\\`; any other backslash is kept. Matching resumes
//! where the last match ended, one character later after an empty match, as PostgreSQL does.

use std::cell::RefCell;
use std::collections::HashMap;

use regex::{Captures, Regex, RegexBuilder};
use regex_automata::nfa::thompson::pikevm::{Cache as PikeCache, PikeVM};
use regex_automata::{Anchored, Input, MatchKind};

use crate::datum::Datum;
use crate::error::EvalError;

/// At most this many translated patterns are kept per thread.
const CACHE: usize = 64;

thread_local! {
    static PATTERNS: RefCell<HashMap<(String, Syntax), Compiled>> = RefCell::new(HashMap::new());
}

/// A translated pattern. Where the `regex` crate's first match may not be PostgreSQL's (an
/// alternation, a quantified group, a non-greedy quantifier), `longest` finds the end of
/// PostgreSQL's match from the start the crate found (both begin at the leftmost place a match
/// can): the longest match, or the shortest when the pattern is non-greedy (its last field);
/// the groups, which PostgreSQL's rules assign otherwise, cannot be read.
struct Compiled {
    re: Regex,
    longest: Option<(PikeVM, RefCell<PikeCache>, bool)>,
}

/// One match: its groups (when they can be read) and its span.
struct Found<'s> {
    caps: Captures<'s>,
    start: usize,
    end: usize,
}

impl Compiled {
    /// Whether the groups of a match can be read as PostgreSQL reads them.
    fn groups_exact(&self) -> bool {
        self.longest.is_none()
    }

    fn groups_refused() -> EvalError {
        unsupported("groups of a pattern with alternations or quantified groups")
    }
}

fn unsupported(what: &str) -> EvalError {
    EvalError::Unsupported(format!("{what} in regular expressions"))
}

/// How a pattern is read and matched: the flags other than `g`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct Syntax {
    case_insensitive: bool,
    /// `n` or `p`: `.` and `[^...]` do not match a newline.
    newline_dots: bool,
    /// `n` or `w`: `^` and `$` match at the start and end of every line.
    newline_anchors: bool,
    /// `x`: white space and `#` comments outside brackets are ignored.
    expanded: bool,
    /// `q`: the whole pattern is a literal string.
    literal: bool,
}

/// The flags of a call: whether to replace every match, and how to match.
struct Flags {
    global: bool,
    syntax: Syntax,
}

fn parse_flags(flags: &str) -> Result<Flags, EvalError> {
    let mut f = Flags {
        global: false,
        syntax: Syntax::default(),
    };
    let x = &mut f.syntax;
    for c in flags.chars() {
        match c {
            'g' => f.global = true,
            'i' => x.case_insensitive = true,
            'c' => x.case_insensitive = false,
            'n' | 'm' => (x.newline_dots, x.newline_anchors) = (true, true),
            's' => (x.newline_dots, x.newline_anchors) = (false, false),
            'p' => (x.newline_dots, x.newline_anchors) = (true, false),
            'w' => (x.newline_dots, x.newline_anchors) = (false, true),
            'x' => x.expanded = true,
            't' => x.expanded = false,
            'q' => x.literal = true,
            'b' | 'e' => {
                return Err(EvalError::Unsupported(format!(
                    "regular expression option \"{c}\" (basic and extended syntax)"
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
    if f.syntax.case_insensitive && !pattern.is_ascii() {
        return Err(unsupported("case-insensitive non-ASCII characters"));
    }
    compiled(pattern, f.syntax, |_| ())
}

/// regexp_replace over non-NULL arguments: (source, pattern, replacement) followed by flags,
/// or by a start position, a match number (0 for all) and flags (PostgreSQL 15's forms).
pub(crate) fn regexp_replace(args: &[Datum]) -> Result<Datum, EvalError> {
    let text = |i: usize| match args.get(i) {
        Some(Datum::String(s)) => Some(s.as_str()),
        _ => None,
    };
    let int = |i: usize| match args.get(i) {
        Some(Datum::Int32(v)) => Some(*v),
        _ => None,
    };
    let (Some(s), Some(pattern), Some(replacement)) = (text(0), text(1), text(2)) else {
        unreachable!("regexp_replace over {args:?}")
    };
    let (start, n, flags) = match int(3) {
        None => (1, None, text(3).unwrap_or("")),
        Some(start) => (start, int(4), text(5).unwrap_or("")),
    };
    let start = start_position(start)?;
    if let Some(n) = n.filter(|n| *n < 0) {
        return Err(EvalError::InvalidParameterValue(format!(
            "invalid value for parameter \"n\": {n}"
        )));
    }
    let f = parse_flags(flags)?;
    // Without a match number, all matches with 'g', else the first.
    let n = n.unwrap_or(if f.global { 0 } else { 1 }) as usize;
    with_regex(pattern, &f, s, |c| {
        if !c.groups_exact() && uses_groups(replacement) {
            return Err(Compiled::groups_refused());
        }
        let mut out = String::with_capacity(s.len());
        let mut copied = 0;
        for (i, m) in matches(c, s, start).enumerate() {
            if n > 0 && i + 1 != n {
                continue;
            }
            out.push_str(&s[copied..m.start]);
            expand(&m, s, replacement, &mut out);
            copied = m.end;
            if n > 0 {
                break;
            }
        }
        out.push_str(&s[copied..]);
        Ok(Datum::String(out))
    })?
}

/// regexp_like(string, pattern [, flags]) over non-NULL arguments.
pub(crate) fn regexp_like(args: &[Datum]) -> Result<Datum, EvalError> {
    let (s, pattern, flags) = match args {
        [Datum::String(s), Datum::String(p)] => (s, p, ""),
        [Datum::String(s), Datum::String(p), Datum::String(f)] => (s, p, f.as_str()),
        other => unreachable!("regexp_like over {other:?}"),
    };
    let f = flags_without_global(flags, "regexp_like")?;
    with_regex(pattern, &f, s, |c| Datum::Bool(c.re.is_match(s)))
}

/// regexp_count(string, pattern [, start [, flags]]) over non-NULL arguments.
pub(crate) fn regexp_count(args: &[Datum]) -> Result<Datum, EvalError> {
    let (s, pattern, start, flags) = match args {
        [Datum::String(s), Datum::String(p)] => (s, p, 1, ""),
        [Datum::String(s), Datum::String(p), Datum::Int32(n)] => (s, p, *n, ""),
        [Datum::String(s), Datum::String(p), Datum::Int32(n), Datum::String(f)] => {
            (s, p, *n, f.as_str())
        }
        other => unreachable!("regexp_count over {other:?}"),
    };
    let start = start_position(start)?;
    let f = flags_without_global(flags, "regexp_count")?;
    with_regex(pattern, &f, s, |c| {
        Datum::Int32(matches(c, s, start).count() as i32)
    })
}

/// regexp_substr(string, pattern [, start [, n [, flags [, subexpr]]]]) and
/// regexp_instr(string, pattern [, start [, n [, endoption [, flags [, subexpr]]]]]) over
/// non-NULL arguments: the n-th match from `start` (its group `subexpr`, 0 for all of it) as
/// text, or as the character position where it starts (`endoption` 0) or after it ends (1);
/// NULL or 0 when there is no such match or the group took no part.
pub(crate) fn regexp_find(args: &[Datum], position: bool) -> Result<Datum, EvalError> {
    let text = |i: usize| match args.get(i) {
        Some(Datum::String(s)) => Some(s.as_str()),
        _ => None,
    };
    let int = |i: usize, default: i32| match args.get(i) {
        Some(Datum::Int32(v)) => *v,
        _ => default,
    };
    let (Some(s), Some(pattern)) = (text(0), text(1)) else {
        unreachable!("regexp_substr/regexp_instr over {args:?}")
    };
    let invalid = |name: &str, v: i32| {
        EvalError::InvalidParameterValue(format!("invalid value for parameter \"{name}\": {v}"))
    };
    let start = start_position(int(2, 1))?;
    let n = int(3, 1);
    if n <= 0 {
        return Err(invalid("n", n));
    }
    let (end, flags, subexpr) = if position {
        (int(4, 0), text(5), int(6, 0))
    } else {
        (0, text(4), int(5, 0))
    };
    if end != 0 && end != 1 {
        return Err(invalid("endoption", end));
    }
    let function = if position {
        "regexp_instr"
    } else {
        "regexp_substr"
    };
    let f = flags_without_global(flags.unwrap_or(""), function)?;
    if subexpr < 0 {
        return Err(invalid("subexpr", subexpr));
    }
    with_regex(pattern, &f, s, |c| {
        // As in PostgreSQL, a pattern without groups has the whole match as its group 1.
        let group = match (c.re.captures_len(), subexpr) {
            (1, 1) => 0,
            (_, g) => g as usize,
        };
        if group > 0 && !c.groups_exact() {
            return Err(Compiled::groups_refused());
        }
        let found = matches(c, s, start)
            .nth(n as usize - 1)
            .and_then(|m| match group {
                0 => Some((m.start, m.end)),
                g => m.caps.get(g).map(|g| (g.start(), g.end())),
            });
        Ok(match (found, position) {
            (None, false) => Datum::Null,
            (None, true) => Datum::Int32(0),
            (Some((a, b)), false) => Datum::String(s[a..b].to_string()),
            (Some((a, b)), true) => {
                let at = if end == 1 { b } else { a };
                Datum::Int32(s[..at].chars().count() as i32 + 1)
            }
        })
    })?
}

/// regexp_match(string, pattern [, flags]) over non-NULL arguments: the first match's groups
/// as a text array (its whole text when the pattern has no groups; NULL for a group that took
/// no part), NULL without a match.
pub(crate) fn regexp_match(args: &[Datum]) -> Result<Datum, EvalError> {
    let (s, pattern, flags) = string_pattern_flags(args, "regexp_match");
    let f = flags_without_global(flags, "regexp_match")?;
    with_regex(pattern, &f, s, |c| {
        let groups = c.re.captures_len() - 1;
        if groups > 0 && !c.groups_exact() {
            return Err(Compiled::groups_refused());
        }
        let Some(m) = matches(c, s, 0).next() else {
            return Ok(Datum::Null);
        };
        let text = |g: Option<regex::Match<'_>>| {
            g.map_or(Datum::Null, |g| Datum::String(g.as_str().to_string()))
        };
        Ok(Datum::Array(match groups {
            0 => vec![Datum::String(s[m.start..m.end].to_string())],
            n => (1..=n).map(|g| text(m.caps.get(g))).collect(),
        }))
    })?
}

/// regexp_split_to_array(string, pattern [, flags]) over non-NULL arguments: the text between
/// the matches. As in PostgreSQL, empty matches at the start or the end of the string or right
/// after another match do not split.
pub(crate) fn regexp_split_to_array(args: &[Datum]) -> Result<Datum, EvalError> {
    let (s, pattern, flags) = string_pattern_flags(args, "regexp_split_to_array");
    let f = flags_without_global(flags, "regexp_split_to_array")?;
    with_regex(pattern, &f, s, |c| {
        let mut pieces = Vec::new();
        let (mut piece_start, mut previous_end) = (0, 0);
        for m in matches(c, s, 0) {
            if m.start < s.len() && m.end > previous_end {
                pieces.push(Datum::String(s[piece_start..m.start].to_string()));
                piece_start = m.end;
            }
            previous_end = m.end;
        }
        pieces.push(Datum::String(s[piece_start..].to_string()));
        Datum::Array(pieces)
    })
}

/// The string, the pattern and the flags ('' when absent) of a (string, pattern [, flags])
/// call over non-NULL text arguments.
fn string_pattern_flags<'a>(args: &'a [Datum], function: &str) -> (&'a str, &'a str, &'a str) {
    match args {
        [Datum::String(s), Datum::String(p)] => (s, p, ""),
        [Datum::String(s), Datum::String(p), Datum::String(f)] => (s, p, f),
        _ => unreachable!("{function} over {args:?}"),
    }
}

/// The flags of a function that finds every match anyway and refuses 'g'.
fn flags_without_global(flags: &str, function: &str) -> Result<Flags, EvalError> {
    let f = parse_flags(flags)?;
    if f.global {
        return Err(EvalError::InvalidParameterValue(format!(
            "{function}() does not support the \"global\" option"
        )));
    }
    Ok(f)
}

/// The 0-based character position of the 1-based `start`; 22023 for a position below 1.
fn start_position(start: i32) -> Result<usize, EvalError> {
    if start <= 0 {
        return Err(EvalError::InvalidParameterValue(format!(
            "invalid value for parameter \"start\": {start}"
        )));
    }
    Ok(start as usize - 1)
}

/// Calls `f` with the compiled pattern, after refusing `i` over non-ASCII text.
fn with_regex<T>(
    pattern: &str,
    flags: &Flags,
    s: &str,
    f: impl FnOnce(&Compiled) -> T,
) -> Result<T, EvalError> {
    if flags.syntax.case_insensitive && !(pattern.is_ascii() && s.is_ascii()) {
        return Err(unsupported("case-insensitive non-ASCII characters"));
    }
    compiled(pattern, flags.syntax, f)
}

/// PostgreSQL's successive matches from the character `start` (0-based): each search resumes
/// where the last match ended, one character later after an empty match.
fn matches<'c, 's>(
    c: &'c Compiled,
    s: &'s str,
    start: usize,
) -> impl Iterator<Item = Found<'s>> + use<'c, 's> {
    let mut at = match s.char_indices().nth(start) {
        Some((b, _)) => Some(b),
        None => (s.chars().count() == start).then_some(s.len()),
    };
    std::iter::from_fn(move || {
        let from = at?;
        let caps = c.re.captures_at(s, from)?;
        let m = caps.get(0).expect("group 0 always matches");
        let end = match &c.longest {
            None => m.end(),
            Some((vm, cache, shortest)) => {
                let input = Input::new(s)
                    .range(m.start()..)
                    .anchored(Anchored::Yes)
                    .earliest(*shortest);
                vm.find(&mut cache.borrow_mut(), input)
                    .map_or(m.end(), |longest| longest.end())
            }
        };
        at = if end == m.start() {
            s[end..].chars().next().map(|ch| end + ch.len_utf8())
        } else {
            Some(end)
        };
        Some(Found {
            caps,
            start: m.start(),
            end,
        })
    })
}

/// Calls `f` with the translated, compiled pattern (cached per thread).
fn compiled<T>(
    pattern: &str,
    syntax: Syntax,
    f: impl FnOnce(&Compiled) -> T,
) -> Result<T, EvalError> {
    PATTERNS.with(|cache| {
        let mut cache = cache.borrow_mut();
        let key = (pattern.to_string(), syntax);
        if let Some(c) = cache.get(&key) {
            return Ok(f(c));
        }
        let Translated {
            pattern: translated,
            first_is_longest,
            greedy,
        } = if syntax.literal {
            Translated {
                pattern: regex::escape(pattern),
                first_is_longest: true,
                greedy: true,
            }
        } else {
            translate(pattern, &syntax)?
        };
        let bad = |e: String| EvalError::InvalidRegex(e.lines().last().unwrap_or("").into());
        let re = RegexBuilder::new(&translated)
            .case_insensitive(syntax.case_insensitive)
            .dot_matches_new_line(!syntax.newline_dots)
            .multi_line(syntax.newline_anchors)
            .build()
            .map_err(|e| bad(e.to_string()))?;
        let longest = if first_is_longest {
            None
        } else {
            let vm = PikeVM::builder()
                .syntax(
                    regex_automata::util::syntax::Config::new()
                        .case_insensitive(syntax.case_insensitive)
                        .dot_matches_new_line(!syntax.newline_dots)
                        .multi_line(syntax.newline_anchors),
                )
                .configure(PikeVM::config().match_kind(MatchKind::All))
                .build(&translated)
                .map_err(|e| bad(e.to_string()))?;
            let vm_cache = RefCell::new(vm.create_cache());
            Some((vm, vm_cache, !greedy))
        };
        let compiled = Compiled { re, longest };
        let out = f(&compiled);
        if cache.len() >= CACHE {
            cache.clear();
        }
        cache.insert(key, compiled);
        Ok(out)
    })
}

/// Whether a replacement reads a group (`\1` to `\9`).
fn uses_groups(replacement: &str) -> bool {
    let mut chars = replacement.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('1'..='9') => return true,
                _ => continue,
            }
        }
    }
    false
}

/// The replacement text for one match.
fn expand(m: &Found<'_>, s: &str, replacement: &str, out: &mut String) {
    let mut chars = replacement.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some(d @ '1'..='9') => {
                let group = d.to_digit(10).expect("a digit") as usize;
                if let Some(g) = m.caps.get(group) {
                    out.push_str(g.as_str());
                }
                chars.next();
            }
            Some('&') => {
                out.push_str(&s[m.start..m.end]);
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

/// The `regex` crate pattern for the PostgreSQL pattern, and whether the crate's first match
/// is PostgreSQL's longest one (with its groups); 0A000 for what they would match differently
/// whatever is read.
fn translate(pattern: &str, syntax: &Syntax) -> Result<Translated, EvalError> {
    let invalid = |what: &str| EvalError::InvalidRegex(what.into());
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut last = Last::Nothing;
    // Whether the crate's first match agrees with PostgreSQL's (and the groups with it).
    let mut first_is_longest = true;
    // The alternatives of the pattern and of each open group.
    let mut frames = vec![Alternatives::default()];
    // The greediness of a group just closed, until it is known whether it is quantified.
    let mut closed: Option<Option<bool>> = None;
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        let frame = frames.last_mut().expect("the pattern's frame");
        if syntax.expanded && (c.is_whitespace() || c == '#') {
            if c == '#' {
                chars.by_ref().find(|&c| c == '\n');
            }
            continue;
        }
        let quantifier = matches!(c, '*' | '+' | '?')
            || (c == '{' && chars.peek().is_some_and(char::is_ascii_digit));
        if !quantifier {
            if let Some(g) = closed.take() {
                frame.greediness(g);
            }
        }
        match c {
            '\\' => {
                let e = chars
                    .next()
                    .ok_or_else(|| invalid("invalid escape \\ sequence"))?;
                // Word boundaries (of ASCII letters, digits and `_`, as in the C locale).
                let boundary = match e {
                    'y' => Some("(?-u:\\b)"),
                    'Y' => Some("(?-u:\\B)"),
                    'm' => Some("(?-u:\\b{start})"),
                    'M' => Some("(?-u:\\b{end})"),
                    _ => None,
                };
                if let Some(b) = boundary {
                    out.push_str(b);
                    frame.not_literal();
                    last = Last::Nothing;
                    continue;
                }
                out.push_str(&escape(e, false)?);
                frame.push(!e.is_ascii_alphanumeric(), e);
                last = Last::Atom;
            }
            '[' => {
                bracket(&mut chars, &mut out, syntax.newline_dots)?;
                frame.not_literal();
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
                frame.not_literal();
                frames.push(Alternatives::default());
                last = Last::Nothing;
            }
            ')' => {
                if frames.len() == 1 {
                    return Err(invalid("parentheses () not balanced"));
                }
                let group = frames.pop().expect("a group");
                closed = Some(group.overall_greediness());
                first_is_longest &= group.agree(syntax.case_insensitive);
                out.push(')');
                last = Last::Group;
            }
            '|' => {
                frame.next_alternative();
                frame.branch_greediness = None;
                out.push('|');
                last = Last::Nothing;
            }
            // A brace not followed by a digit is itself, as in PostgreSQL (in expanded syntax,
            // white space before the digit would be skipped there: refused).
            '{' if !chars.peek().is_some_and(char::is_ascii_digit) => {
                if syntax.expanded && chars.peek().is_some_and(|c| c.is_whitespace()) {
                    return Err(unsupported("white space after { in expanded syntax"));
                }
                out.push_str("\\{");
                frame.push(true, '{');
                last = Last::Atom;
            }
            '*' | '+' | '?' | '{' => {
                // The operand's own greediness: none for an atom, a group's for a group.
                let operand = match last {
                    Last::Atom => None,
                    Last::Group => {
                        first_is_longest = false;
                        closed.take().flatten()
                    }
                    Last::Nothing | Last::Quantifier => {
                        return Err(invalid("quantifier operand invalid"))
                    }
                };
                let fixed = if c == '{' {
                    let b = bounds(&mut chars, syntax.expanded)?;
                    let fixed = !b.contains(',');
                    out.push_str(&b);
                    fixed
                } else {
                    out.push(c);
                    false
                };
                // PostgreSQL: `{m}` keeps the operand's greediness, `...?` is non-greedy,
                // the other quantifiers greedy.
                let greediness = if chars.peek() == Some(&'?') {
                    chars.next();
                    out.push('?');
                    first_is_longest = false;
                    Some(false)
                } else if fixed {
                    operand
                } else {
                    Some(true)
                };
                frame.greediness(greediness);
                frame.not_literal();
                last = Last::Quantifier;
            }
            '.' | '^' | '$' => {
                out.push(c);
                frame.not_literal();
                last = if c == '.' { Last::Atom } else { Last::Nothing };
            }
            c => {
                out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
                frame.push(true, c);
                last = Last::Atom;
            }
        }
    }
    if frames.len() > 1 {
        return Err(invalid("parentheses () not balanced"));
    }
    let mut top = frames.pop().expect("the pattern's frame");
    if let Some(g) = closed {
        top.greediness(g);
    }
    let greedy = top.overall_greediness().unwrap_or(true);
    first_is_longest &= top.agree(syntax.case_insensitive);
    Ok(Translated {
        pattern: out,
        first_is_longest,
        greedy,
    })
}

/// A pattern translated for the `regex` crate.
struct Translated {
    pattern: String,
    /// Whether the crate's first match is PostgreSQL's, with its groups.
    first_is_longest: bool,
    /// Whether PostgreSQL takes the longest match at the leftmost place (else the shortest).
    greedy: bool,
}

/// The alternatives (`a|b`) of a pattern or a group as far as read: each one's text while it
/// is only literal characters, `None` once it is more.
struct Alternatives {
    done: Vec<Option<String>>,
    current: Option<String>,
    /// PostgreSQL's greediness of the current alternative: that of its first quantified atom
    /// that has one.
    branch_greediness: Option<bool>,
}

impl Default for Alternatives {
    fn default() -> Self {
        Alternatives {
            done: Vec::new(),
            current: Some(String::new()),
            branch_greediness: None,
        }
    }
}

impl Alternatives {
    /// A character, literal or not.
    fn push(&mut self, literal: bool, c: char) {
        match (&mut self.current, literal) {
            (Some(text), true) => text.push(c),
            _ => self.current = None,
        }
    }

    fn not_literal(&mut self) {
        self.current = None;
    }

    /// Notes a quantified atom's greediness (the first one with a greediness counts).
    fn greediness(&mut self, g: Option<bool>) {
        if self.branch_greediness.is_none() {
            self.branch_greediness = g;
        }
    }

    /// PostgreSQL's greediness of the whole: an alternation is always greedy, one alternative
    /// is as greedy as its first quantified atom with a greediness.
    fn overall_greediness(&self) -> Option<bool> {
        if self.done.is_empty() {
            self.branch_greediness
        } else {
            Some(true)
        }
    }

    fn next_alternative(&mut self) {
        let current = self.current.replace(String::new());
        self.done.push(current);
    }

    /// Whether the alternation, which matches the longest way in PostgreSQL and the first way
    /// in the `regex` crate, matches the same way in both: when at most one alternative can
    /// match at any place, every alternative a non-empty literal, none the beginning of
    /// another.
    fn agree(mut self, case_insensitive: bool) -> bool {
        if self.done.is_empty() {
            return true;
        }
        self.next_alternative();
        let fold = |s: &str| {
            if case_insensitive {
                s.to_ascii_lowercase()
            } else {
                s.to_string()
            }
        };
        let texts: Option<Vec<String>> = self
            .done
            .iter()
            .map(|a| a.as_deref().filter(|t| !t.is_empty()).map(fold))
            .collect();
        let Some(texts) = texts else {
            return false;
        };
        texts.iter().enumerate().all(|(i, a)| {
            !texts
                .iter()
                .enumerate()
                .any(|(j, b)| i != j && b.starts_with(a.as_str()))
        })
    }
}

/// `{m}`, `{m,}` or `{m,n}` after a `{` followed by a digit, with PostgreSQL's bound of 255
/// (2201B otherwise, as there).
fn bounds(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    expanded: bool,
) -> Result<String, EvalError> {
    let mut body = String::new();
    for c in chars.by_ref() {
        if expanded && c.is_whitespace() {
            continue;
        }
        if c == '}' {
            let parts: Vec<&str> = body.split(',').collect();
            let number = |p: &str| p.parse::<u32>().ok().filter(|n| *n <= 255);
            let ok = match parts.as_slice() {
                [m] => number(m).is_some(),
                [m, ""] => number(m).is_some(),
                [m, n] => matches!((number(m), number(n)), (Some(a), Some(b)) if a <= b),
                _ => false,
            };
            if !ok {
                return Err(EvalError::InvalidRegex(
                    "invalid repetition count(s)".into(),
                ));
            }
            return Ok(format!("{{{body}}}"));
        }
        body.push(c);
    }
    Err(EvalError::InvalidRegex("braces {} not balanced".into()))
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
    newline_sensitive: bool,
) -> Result<(), EvalError> {
    let invalid = || EvalError::InvalidRegex("brackets [] not balanced".into());
    out.push('[');
    if chars.peek() == Some(&'^') {
        chars.next();
        out.push('^');
        // A newline-sensitive negated bracket never matches a newline.
        if newline_sensitive {
            out.push_str("\\n");
        }
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
        assert_eq!(rr("Mrs. Mr. X", "Mr\\.|Mrs\\.", "T", "g").unwrap(), "T T X");
        assert_eq!(
            rr("foo bar", "(fo|ba)(o|r)", "<\\1\\2>", "g").unwrap(),
            "<foo> <bar>"
        );
        assert_eq!(rr("ab a_b é", "\\y", "|", "g").unwrap(), "|ab| |a_b| é");
        assert_eq!(rr("ab a", "\\ma", "X", "g").unwrap(), "Xb X");
        assert_eq!(rr("ab a", "b\\M", "X", "g").unwrap(), "aX a");
        // PostgreSQL's longest match where an alternation or a quantified group could match
        // otherwise; their groups are refused.
        assert_eq!(rr("xyz", "x|xy|xyz", "_", "").unwrap(), "_");
        assert_eq!(rr("abcd", "(ab|abc)(cd|d)", "[\\&]", "").unwrap(), "[abcd]");
        assert_eq!(rr("aabab", "a*(ab)*", "_", "").unwrap(), "_");
        assert_eq!(rr("ab", "a|", "_", "g").unwrap(), "__b_");
        let groups = rr("abcd", "(ab|abc)(cd|d)", "[\\1]", "");
        assert_eq!(groups.unwrap_err().sqlstate(), "0A000");
        // A non-greedy pattern takes the shortest match at the leftmost place.
        assert_eq!(rr("aaa", "a+?", "_", "").unwrap(), "_aa");
        assert_eq!(rr("xaab", "a*?b", "_", "").unwrap(), "x_");
        assert_eq!(rr("aaa", "a+?a*", "_", "").unwrap(), "_aa");
        assert_eq!(rr("aaa", "a+a*?", "_", "").unwrap(), "_");
        for p in ["(a)\\1", "(?=a)", "\\bx", "\\Z"] {
            assert_eq!(rr("ab", p, "", "").unwrap_err().sqlstate(), "0A000", "{p}");
        }
        assert_eq!(rr("ab", "a", "", "z").unwrap_err().sqlstate(), "22023");
        assert_eq!(rr("ab", "(", "", "").unwrap_err().sqlstate(), "2201B");
        assert_eq!(rr("é", "a", "", "i").unwrap_err().sqlstate(), "0A000");
    }
}
