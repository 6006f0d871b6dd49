//! Writing a number through its picture (`to_char` of the number types), as PostgreSQL's
//! `NUM_processor` writes it in the C locale: the caller gives the digits as text (`123.40`,
//! without sign, already rounded to the picture's digits after the point, or `#` filler when
//! they do not fit), the sign and how many digit positions before the point stay blank; this
//! file walks the picture and places digits, blanks, zeros, the point, group separators, the
//! sign in each of its forms (`S`, `MI`, `PL`, `SG`, `PR`, a plain minus), ordinal suffixes and
//! literal text. Fill mode (`FM`) drops padding and trailing zeros after the point.

use super::num_desc::{LSign, NumDesc, NumKey};
use super::picture::Node;
use crate::error::EvalError;

/// A number ready to be written: its digits, its sign (`'+'`, `'-'`, or `'\0'` for roman
/// numerals, where PostgreSQL has none) and the blank digit positions before it.
pub struct Prepared {
    pub digits: String,
    pub sign: char,
    pub pre_spaces: usize,
}

/// The state of one walk of the picture.
struct Walk<'a> {
    d: NumDesc,
    num: &'a [u8],
    /// Index of the next digit of `num` to write.
    p: usize,
    sign: char,
    sign_wrote: bool,
    num_in: bool,
    num_curr: usize,
    num_count: usize,
    pre_spaces: usize,
    last_relevant: Option<usize>,
    out: String,
}

/// The last digit after the point that is not zero (or the point itself).
fn last_relevant_decnum(num: &[u8]) -> Option<usize> {
    let point = num.iter().position(|&c| c == b'.')?;
    let mut result = point;
    for (i, &c) in num.iter().enumerate().skip(point + 1) {
        if c != b'0' {
            result = i;
        }
    }
    Some(result)
}

/// The text of `n` with its ordinal suffix (`1st`, `12th`, `23rd`), as `get_th` picks it from
/// the last digit(s) of the digits written.
/// Text that does not end in a digit has none (22P02, as PostgreSQL's `get_th`).
pub fn ordinal_suffix(digits: &str, upper: bool) -> Result<&'static str, EvalError> {
    let b = digits.as_bytes();
    let last = b.last().copied().unwrap_or(0);
    if !last.is_ascii_digit() {
        return Err(EvalError::InvalidTextSyntax(format!(
            "\"{digits}\" is not a number"
        )));
    }
    let teen = b.len() > 1 && b[b.len() - 2] == b'1';
    let s = match last {
        b'1' if !teen => "st",
        b'2' if !teen => "nd",
        b'3' if !teen => "rd",
        _ => "th",
    };
    Ok(match (upper, s) {
        (false, s) => s,
        (true, "st") => "ST",
        (true, "nd") => "ND",
        (true, "rd") => "RD",
        (true, _) => "TH",
    })
}

/// Writes `value` through the picture `nodes` described by `d`.
pub fn write(nodes: &[Node<NumKey>], d: &NumDesc, value: Prepared) -> Result<String, EvalError> {
    if d.eeee {
        return Ok(value.digits);
    }
    let mut d = d.clone();
    // PostgreSQL counts the first zero's position from 0 here.
    d.zero_start = d.zero_start.saturating_sub(1);
    let mut sign = value.sign;
    let mut pre_spaces = value.pre_spaces;
    if d.roman {
        d.lsign = LSign::None;
        d.pre_lsign_num = 0;
        d.post = 0;
        d.pre = 0;
        pre_spaces = 0;
        sign = '\0';
        let fill = d.fill;
        d.zero = false;
        d.decimal = false;
        d.minus = false;
        d.plus = false;
        d.bracket = false;
        d.multi_flag = false;
        d.blank = false;
        d.fill = fill;
    }
    let sign_wrote;
    if d.plus || d.minus {
        sign_wrote = !d.plus || d.minus;
    } else {
        if sign != '-' && d.fill {
            d.bracket = false;
        }
        sign_wrote = sign == '+' && d.fill && d.lsign == LSign::None;
        if d.lsign == LSign::Pre && d.pre == d.pre_lsign_num {
            d.lsign = LSign::Post;
        }
    }
    let mut num_count = (d.post + d.pre).wrapping_sub(1);
    let num = value.digits.as_bytes();
    let mut last_relevant = None;
    if d.fill && d.decimal {
        last_relevant = last_relevant_decnum(num);
        if last_relevant.is_some() && d.zero_end > pre_spaces {
            let last_zero = (num.len() - 1).min(d.zero_end - pre_spaces);
            if last_relevant < Some(last_zero) {
                last_relevant = Some(last_zero);
            }
        }
    }
    if !sign_wrote && pre_spaces == 0 {
        num_count = num_count.wrapping_add(1);
    }
    let mut w = Walk {
        d,
        num,
        p: 0,
        sign,
        sign_wrote,
        num_in: false,
        num_curr: 0,
        num_count,
        pre_spaces,
        last_relevant,
        out: String::new(),
    };
    for n in nodes {
        match n {
            Node::Char { c, .. } => w.out.push(*c),
            Node::Key { key, .. } => w.key(*key)?,
        }
    }
    // PostgreSQL's output ends at a NUL it wrote (the sign of a roman numeral through `SG`,
    // a digit position past the digits).
    if let Some(end) = w.out.find('\0') {
        w.out.truncate(end);
    }
    Ok(w.out)
}

impl Walk<'_> {
    fn at(&self, i: usize) -> u8 {
        self.num.get(i).copied().unwrap_or(0)
    }

    /// `'0.1'` through `9.9` gives `' .1'`: a leading zero digit before the point is blank.
    fn predec_space(&self) -> bool {
        !self.d.zero && self.p == 0 && self.at(0) == b'0' && self.d.post != 0
    }

    fn last_is_point(&self) -> bool {
        self.last_relevant.is_some_and(|i| self.at(i) == b'.')
    }

    /// Writes one keyword.
    fn key(&mut self, key: NumKey) -> Result<(), EvalError> {
        let fill = self.d.fill;
        match key {
            NumKey::Nine | NumKey::Zero | NumKey::Dec | NumKey::D => self.numpart(key),
            NumKey::Comma | NumKey::G => {
                if self.num_in {
                    self.out.push(',');
                } else if !fill {
                    self.out.push(' ');
                }
            }
            NumKey::L => self.out.push(' '),
            NumKey::RnUpper | NumKey::RnLower => {
                let digits = String::from_utf8_lossy(self.num);
                let text = if key == NumKey::RnLower {
                    digits.to_ascii_lowercase()
                } else {
                    digits.into_owned()
                };
                if fill {
                    self.out.push_str(&text);
                } else {
                    self.out.push_str(&format!("{text:>15}"));
                }
            }
            NumKey::ThUpper | NumKey::ThLower => {
                if self.d.roman || self.at(0) == b'#' || self.sign == '-' || self.d.decimal {
                    return Ok(());
                }
                let digits = String::from_utf8_lossy(self.num);
                self.out
                    .push_str(ordinal_suffix(&digits, key == NumKey::ThUpper)?);
            }
            NumKey::Mi => {
                if self.sign == '-' {
                    self.out.push('-');
                } else if !fill {
                    self.out.push(' ');
                }
            }
            NumKey::Pl => {
                if self.sign == '+' {
                    self.out.push('+');
                } else if !fill {
                    self.out.push(' ');
                }
            }
            NumKey::Sg => self.out.push(self.sign),
            _ => {}
        }
        Ok(())
    }

    fn numpart(&mut self, id: NumKey) {
        if self.d.roman {
            return;
        }
        let lr_point = self.last_is_point();
        if !self.sign_wrote
            && (self.num_curr >= self.pre_spaces
                || (self.d.zero && self.d.zero_start == self.num_curr))
            && (!self.predec_space() || lr_point)
        {
            if self.d.lsign != LSign::None {
                if self.d.lsign == LSign::Pre {
                    self.out.push(if self.sign == '-' { '-' } else { '+' });
                    self.sign_wrote = true;
                }
            } else if self.d.bracket {
                self.out.push(if self.sign == '+' { ' ' } else { '<' });
                self.sign_wrote = true;
            } else if self.sign == '+' {
                if !self.d.fill {
                    self.out.push(' ');
                }
                self.sign_wrote = true;
            } else if self.sign == '-' {
                self.out.push('-');
                self.sign_wrote = true;
            }
        }
        if self.num_curr < self.pre_spaces && (self.d.zero_start > self.num_curr || !self.d.zero) {
            if !self.d.fill {
                self.out.push(' ');
            }
        } else if self.d.zero
            && self.num_curr < self.pre_spaces
            && self.d.zero_start <= self.num_curr
        {
            self.out.push('0');
            self.num_in = true;
        } else {
            if self.at(self.p) == b'.' {
                if !lr_point || self.d.fill {
                    self.out.push('.');
                }
                // A separator right after the point is blank, as in PostgreSQL.
                self.num_in = false;
            } else if self
                .last_relevant
                .is_some_and(|lr| self.p > lr && id != NumKey::Zero)
            {
            } else if self.predec_space() {
                if !self.d.fill {
                    self.out.push(' ');
                } else if lr_point {
                    self.out.push('0');
                }
            } else {
                self.out.push(self.at(self.p) as char);
                self.num_in = true;
            }
            if self.at(self.p) != 0 {
                self.p += 1;
            }
        }
        let mut end = self
            .num_count
            .wrapping_add(usize::from(self.pre_spaces > 0))
            .wrapping_add(usize::from(self.d.decimal));
        if self.last_relevant.is_some() && self.last_relevant == Some(self.p) {
            end = self.num_curr;
        }
        if self.num_curr.wrapping_add(1) == end {
            if self.sign_wrote && self.d.bracket {
                self.out.push(if self.sign == '+' { ' ' } else { '>' });
            } else if self.d.lsign == LSign::Post {
                self.out.push(if self.sign == '-' { '-' } else { '+' });
            }
        }
        self.num_curr += 1;
    }
}
