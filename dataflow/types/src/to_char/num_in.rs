//! `to_number(text, picture)`: reading a number through a number picture, as PostgreSQL's
//! `NUM_processor` reads it (C locale).
//!
//! Each `9`/`0` reads at most one digit and `.`/`D` the point; a sign is taken before the
//! first digit (`-`, `+`, `<` with `PR`), behind the last one (`S`, `MI`, `PL`, `SG`), or where
//! `MI`/`PL`/`SG` stand; every other picture character skips one input character, whatever it
//! is. The digits read become a numeric whose scale is the digits read after the point and
//! whose precision is the picture's digits (22003 when more were read before the point); `V`
//! divides by its power of ten. `EEEE` and `RN` are not read (0A000), as in PostgreSQL 15.

use super::num_desc::{LSign, NumDesc, NumKey};
use super::picture::Node;
use crate::error::EvalError;
use crate::numeric::Numeric;

struct Reader<'a> {
    d: NumDesc,
    input: &'a [u8],
    i: usize,
    /// The sign read so far: b' ', b'-' or b'+'.
    sign: u8,
    number: String,
    read_dec: bool,
    read_pre: usize,
    read_post: usize,
}

fn is_data(c: u8) -> bool {
    b"0123456789.,+-".contains(&c)
}

impl Reader<'_> {
    fn over(&self) -> bool {
        self.i >= self.input.len()
    }

    /// At least `n` bytes remain.
    fn amount(&self, n: usize) -> bool {
        self.i + n <= self.input.len()
    }

    fn cur(&self) -> u8 {
        self.input.get(self.i).copied().unwrap_or(0)
    }

    /// Advances past one (possibly multibyte) character.
    fn step(&mut self) {
        self.i += 1;
        while self.i < self.input.len() && (self.input[self.i] & 0xC0) == 0x80 {
            self.i += 1;
        }
    }

    fn eat_non_data(&mut self, n: usize) {
        for _ in 0..n {
            if self.over() || is_data(self.cur()) {
                break;
            }
            self.step();
        }
    }
}

/// Reads `text` through `picture`.
pub fn to_number(text: &str, picture: &str) -> Result<Numeric, EvalError> {
    let (nodes, d) = NumDesc::parse(picture)?;
    if d.eeee {
        return Err(EvalError::Unsupported(
            "\"EEEE\" for input (to_number)".into(),
        ));
    }
    if d.roman {
        return Err(EvalError::Unsupported(
            "\"RN\" for input (to_number)".into(),
        ));
    }
    let mut r = Reader {
        d,
        input: text.as_bytes(),
        i: 0,
        sign: b' ',
        number: String::new(),
        read_dec: false,
        read_pre: 0,
        read_post: 0,
    };
    for n in &nodes {
        if r.over() {
            break;
        }
        match n {
            Node::Char { .. } => {
                r.step();
                continue;
            }
            Node::Key { key, .. } => {
                if !r.key(*key) {
                    continue;
                }
            }
        }
        r.i += 1;
    }
    if r.number.ends_with('.') {
        r.number.pop();
    }
    let mut digits = String::new();
    digits.push(r.sign as char);
    digits.push_str(&r.number);
    let invalid = || EvalError::InvalidTextRepresentation {
        type_name: "numeric".into(),
        value: digits.clone(),
    };
    let value = Numeric::parse(digits.trim_start()).map_err(|_| invalid())?;
    let precision = r.d.pre + r.d.multi + r.read_post;
    let value = value.apply_typmod(
        u16::try_from(precision).unwrap_or(u16::MAX),
        i16::try_from(r.read_post).unwrap_or(i16::MAX),
    )?;
    if r.d.multi_flag {
        // PostgreSQL's power(10, -multi): 16 digits after the point (zero beyond them).
        let factor = match 16usize.checked_sub(r.d.multi) {
            Some(zeros) => Numeric::from_i128(10i128.pow(zeros as u32), 16)?,
            None => Numeric::from_i128(0, 16)?,
        };
        return value.checked_mul(&factor);
    }
    Ok(value)
}

impl Reader<'_> {
    /// Reads for one keyword; false when the input position stays (PostgreSQL's `continue`).
    fn key(&mut self, key: NumKey) -> bool {
        let fill = self.d.fill;
        match key {
            NumKey::Nine | NumKey::Zero | NumKey::Dec | NumKey::D => {
                self.digit_or_point(matches!(key, NumKey::Nine | NumKey::Zero));
                true
            }
            // A separator skips a `,` of the input, and nothing else; PostgreSQL never marks
            // the number as begun while reading, so in fill mode it reads nothing.
            NumKey::Comma | NumKey::G => !fill && self.amount(1) && self.cur() == b',',
            NumKey::L => {
                self.eat_non_data(1);
                false
            }
            NumKey::ThUpper | NumKey::ThLower => {
                if self.d.decimal {
                    return false;
                }
                self.eat_non_data(2);
                false
            }
            NumKey::Mi | NumKey::Pl => {
                let want = if key == NumKey::Mi { b'-' } else { b'+' };
                if self.amount(1) {
                    if self.cur() == want {
                        self.sign = want;
                    } else {
                        self.eat_non_data(1);
                        return false;
                    }
                }
                true
            }
            NumKey::Sg => {
                match self.cur() {
                    c @ (b'-' | b'+') => self.sign = c,
                    _ => {
                        self.eat_non_data(1);
                        return false;
                    }
                }
                true
            }
            _ => false,
        }
    }

    fn digit_or_point(&mut self, is_digit_key: bool) {
        if self.over() {
            return;
        }
        if self.cur() == b' ' {
            self.i += 1;
        }
        if self.over() {
            return;
        }
        // A sign before the number.
        if self.sign == b' ' && is_digit_key && self.read_pre + self.read_post == 0 {
            let c = self.cur();
            if self.d.lsign == LSign::Pre {
                if c == b'-' || c == b'+' {
                    self.sign = c;
                    self.i += 1;
                }
            } else if c == b'-' || (self.d.bracket && c == b'<') {
                self.sign = b'-';
                self.i += 1;
            } else if c == b'+' {
                self.sign = b'+';
                self.i += 1;
            }
        }
        if self.over() {
            return;
        }
        let mut read = false;
        let c = self.cur();
        if c.is_ascii_digit() {
            if self.read_dec && self.read_post == self.d.post {
                return;
            }
            self.number.push(c as char);
            if self.read_dec {
                self.read_post += 1;
            } else {
                self.read_pre += 1;
            }
            read = true;
        } else if self.d.decimal && !self.read_dec && c == b'.' {
            self.number.push('.');
            self.read_dec = true;
            read = true;
        }
        if self.over() {
            return;
        }
        // A sign behind the last digit.
        if self.sign == b' ' && self.read_pre + self.read_post > 0 {
            let next = self.input.get(self.i + 1).copied();
            if self.d.lsign != LSign::None && read && next.is_some_and(|c| !c.is_ascii_digit()) {
                if let Some(c @ (b'-' | b'+')) = next {
                    self.i += 1;
                    self.sign = c;
                }
            } else if !read && self.d.lsign == LSign::None && (self.d.plus || self.d.minus) {
                let c = self.cur();
                if c == b'-' || c == b'+' {
                    self.sign = c;
                }
            }
        }
    }
}
