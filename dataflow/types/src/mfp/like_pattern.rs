//! A LIKE pattern compiled once and matched against borrowed text without allocating:
//! the pattern is split at its `%`s into segments of literal characters and `_`s; the first
//! segment must match at the start and the last at the end (unless the pattern begins or ends
//! with `%`), and each segment between them is matched at its leftmost place after the one
//! before. Leftmost is enough: a `%` takes any text, so matching a segment earlier never leaves
//! less room for the rest. The result is `expr.rs`'s recursive `like`'s (tested against it);
//! a pattern ending with a lone escape, which `like` refuses when it reaches it, is not
//! compiled.

/// One character position of a segment.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Token {
    /// `_`: any one character.
    Any,
    Char(char),
}

/// A compiled LIKE pattern (backslash escapes, as `like`).
#[derive(Clone, Debug)]
pub(super) struct LikePattern {
    /// The segments between `%`s, in order (empty ones included).
    segments: Vec<Vec<Token>>,
    /// Each segment's text when it has no `_`: found by substring search.
    literals: Vec<Option<String>>,
    /// Whether the pattern has a `%` at all.
    any_percent: bool,
}

impl LikePattern {
    /// The compiled pattern; `None` for one that ends with a lone escape.
    pub(super) fn compile(pattern: &str) -> Option<LikePattern> {
        let mut segments = vec![Vec::new()];
        let mut chars = pattern.chars();
        let mut any_percent = false;
        while let Some(c) = chars.next() {
            match c {
                '%' => {
                    any_percent = true;
                    segments.push(Vec::new());
                }
                '_' => segments.last_mut().expect("one").push(Token::Any),
                '\\' => {
                    let escaped = chars.next()?;
                    segments.last_mut().expect("one").push(Token::Char(escaped));
                }
                c => segments.last_mut().expect("one").push(Token::Char(c)),
            }
        }
        let literals = segments
            .iter()
            .map(|seg| {
                seg.iter()
                    .map(|t| match t {
                        Token::Char(c) => Some(*c),
                        Token::Any => None,
                    })
                    .collect()
            })
            .collect();
        Some(LikePattern {
            segments,
            literals,
            any_percent,
        })
    }

    /// Whether `s` matches.
    pub(super) fn matches(&self, s: &str) -> bool {
        let segs = &self.segments;
        if !self.any_percent {
            return at(s, 0, &segs[0]) == Some(s.len());
        }
        // The first segment at the start.
        let Some(mut pos) = at(s, 0, &segs[0]) else {
            return false;
        };
        let last = &segs[segs.len() - 1];
        // Each middle segment at its leftmost place.
        for (seg, literal) in segs.iter().zip(&self.literals).take(segs.len() - 1).skip(1) {
            let found = match literal {
                Some(text) => s[pos..].find(text.as_str()).map(|i| pos + i + text.len()),
                None => leftmost(s, pos, seg),
            };
            match found {
                Some(end) => pos = end,
                None => return false,
            }
        }
        // The last segment at the end, after everything before it.
        match suffix_start(s, last.len()) {
            Some(start) if start >= pos => at(s, start, last) == Some(s.len()),
            _ => false,
        }
    }
}

/// Where `seg` ends if it matches `s` from byte `start`.
fn at(s: &str, start: usize, seg: &[Token]) -> Option<usize> {
    let mut chars = s[start..].char_indices();
    for t in seg {
        let (_, c) = chars.next()?;
        if let Token::Char(want) = t {
            if c != *want {
                return None;
            }
        }
    }
    Some(chars.next().map_or(s.len(), |(i, _)| start + i))
}

/// Where `seg` ends at its leftmost match in `s` from byte `from` on.
fn leftmost(s: &str, from: usize, seg: &[Token]) -> Option<usize> {
    let starts = s[from..]
        .char_indices()
        .map(|(i, _)| from + i)
        .chain(std::iter::once(s.len()));
    starts.into_iter().find_map(|p| at(s, p, seg))
}

/// The byte where the last `n` characters of `s` start.
fn suffix_start(s: &str, n: usize) -> Option<usize> {
    if n == 0 {
        return Some(s.len());
    }
    s.char_indices().rev().nth(n - 1).map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    /// The recursive matcher of `expr.rs` over chars.
    fn reference(s: &str, p: &str) -> Result<bool, crate::EvalError> {
        let s: Vec<char> = s.chars().collect();
        let p: Vec<char> = p.chars().collect();
        crate::expr::like(&s, &p)
    }

    #[test]
    fn compiled_patterns_match_as_the_recursive_matcher() {
        let alphabet = ['a', 'b', 'é', '%', '_', '\\'];
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut matched = 0;
        for _ in 0..20_000 {
            let word = |rng: &mut Rng, n: usize, with: &[char]| -> String {
                (0..rng.below(n))
                    .map(|_| with[rng.below(with.len())])
                    .collect()
            };
            let p = word(&mut rng, 7, &alphabet);
            let s = word(&mut rng, 8, &alphabet);
            let want = reference(&s, &p);
            match LikePattern::compile(&p) {
                Some(_) if want.is_err() => panic!("{s:?} LIKE {p:?} fails: {want:?}"),
                Some(c) => {
                    // A compiled pattern never fails where the recursive matcher succeeds.
                    if let Ok(w) = want {
                        assert_eq!(c.matches(&s), w, "{s:?} LIKE {p:?}");
                        matched += w as usize;
                    }
                }
                None => assert!(p.ends_with('\\'), "{p:?} refused"),
            }
        }
        assert!(matched > 1000, "{matched}");
        for (s, p, want) in [
            ("a special deal requests", "%special%requests%", true),
            ("requests special", "%special%requests%", false),
            ("PROMO BRUSHED", "PROMO%", true),
            ("LARGE BRASS", "%BRASS", true),
            ("ab", "a_", true),
            ("aé", "a_", true),
            ("a%", "a\\%", true),
            ("ab", "a\\%", false),
            ("", "%", true),
            ("", "", true),
            ("x", "", false),
        ] {
            assert_eq!(LikePattern::compile(p).unwrap().matches(s), want, "{s} {p}");
        }
    }
}
