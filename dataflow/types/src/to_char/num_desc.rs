//! The number picture of `to_char` and `to_number`: its keywords (`9 0 . , D G S PR MI PL SG
//! L V EEEE FM TH th RN rn B C SP`) and what the picture as a whole says (digits before and
//! after the point, where the sign goes, fill mode, roman numerals, scientific notation), with
//! PostgreSQL's checks of incompatible keywords (42601), as `NUMDesc_prepare` makes them.

use super::picture::{self, Node};
use crate::error::EvalError;

/// A keyword of a number picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumKey {
    Comma,
    Dec,
    Zero,
    Nine,
    B,
    C,
    D,
    Eeee,
    Fm,
    G,
    L,
    Mi,
    Pl,
    Pr,
    RnUpper,
    RnLower,
    Sg,
    Sp,
    S,
    ThUpper,
    ThLower,
    V,
}

/// PostgreSQL's number keywords, the longer first where one starts another.
const TABLE: &[(&str, NumKey)] = &[
    (",", NumKey::Comma),
    (".", NumKey::Dec),
    ("0", NumKey::Zero),
    ("9", NumKey::Nine),
    ("B", NumKey::B),
    ("C", NumKey::C),
    ("D", NumKey::D),
    ("EEEE", NumKey::Eeee),
    ("FM", NumKey::Fm),
    ("G", NumKey::G),
    ("L", NumKey::L),
    ("MI", NumKey::Mi),
    ("PL", NumKey::Pl),
    ("PR", NumKey::Pr),
    ("RN", NumKey::RnUpper),
    ("SG", NumKey::Sg),
    ("SP", NumKey::Sp),
    ("S", NumKey::S),
    ("TH", NumKey::ThUpper),
    ("V", NumKey::V),
    ("b", NumKey::B),
    ("c", NumKey::C),
    ("d", NumKey::D),
    ("eeee", NumKey::Eeee),
    ("fm", NumKey::Fm),
    ("g", NumKey::G),
    ("l", NumKey::L),
    ("mi", NumKey::Mi),
    ("pl", NumKey::Pl),
    ("pr", NumKey::Pr),
    ("rn", NumKey::RnLower),
    ("sg", NumKey::Sg),
    ("sp", NumKey::Sp),
    ("s", NumKey::S),
    ("th", NumKey::ThLower),
    ("v", NumKey::V),
];

/// Where an `S` puts the locale's sign.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LSign {
    None,
    Pre,
    Post,
}

/// What a number picture says as a whole.
#[derive(Clone, Debug)]
pub struct NumDesc {
    /// Digit positions before and after the point.
    pub pre: usize,
    pub post: usize,
    pub lsign: LSign,
    /// Digit positions before an `S` that precedes the point.
    pub pre_lsign_num: usize,
    /// Digits of `V` (the value is multiplied by 10^multi).
    pub multi: usize,
    /// 1-based position of the first `0` before the point, and of the last digit position
    /// before the point after it (0 when there is no `0`).
    pub zero_start: usize,
    pub zero_end: usize,
    pub zero: bool,
    pub decimal: bool,
    pub fill: bool,
    pub minus: bool,
    pub plus: bool,
    pub bracket: bool,
    pub roman: bool,
    pub eeee: bool,
    pub multi_flag: bool,
    pub blank: bool,
}

fn syntax(msg: &str) -> EvalError {
    EvalError::SyntaxError(msg.to_string())
}

impl NumDesc {
    /// Parses a number picture and checks its keywords.
    pub fn parse(picture: &str) -> Result<(Vec<Node<NumKey>>, NumDesc), EvalError> {
        let nodes = picture::parse(picture, TABLE, false);
        let mut d = NumDesc {
            pre: 0,
            post: 0,
            lsign: LSign::None,
            pre_lsign_num: 0,
            multi: 0,
            zero_start: 0,
            zero_end: 0,
            zero: false,
            decimal: false,
            fill: false,
            minus: false,
            plus: false,
            bracket: false,
            roman: false,
            eeee: false,
            multi_flag: false,
            blank: false,
        };
        for n in &nodes {
            if let Node::Key { key, .. } = n {
                d.prepare(*key)?;
            }
        }
        Ok((nodes, d))
    }

    fn lsign_set(&self) -> bool {
        self.lsign != LSign::None
    }

    fn prepare(&mut self, key: NumKey) -> Result<(), EvalError> {
        if self.eeee && key != NumKey::Eeee {
            return Err(syntax("\"EEEE\" must be the last pattern used"));
        }
        match key {
            NumKey::Nine => {
                if self.bracket {
                    return Err(syntax("\"9\" must be ahead of \"PR\""));
                }
                if self.multi_flag {
                    self.multi += 1;
                } else if self.decimal {
                    self.post += 1;
                } else {
                    self.pre += 1;
                }
            }
            NumKey::Zero => {
                if self.bracket {
                    return Err(syntax("\"0\" must be ahead of \"PR\""));
                }
                if !self.zero && !self.decimal {
                    self.zero = true;
                    self.zero_start = self.pre + 1;
                }
                if self.decimal {
                    self.post += 1;
                } else {
                    self.pre += 1;
                }
                self.zero_end = self.pre;
            }
            NumKey::B => {
                if self.pre == 0 && self.post == 0 && !self.zero {
                    self.blank = true;
                }
            }
            NumKey::D | NumKey::Dec => {
                if self.decimal {
                    return Err(syntax("multiple decimal points"));
                }
                if self.multi_flag {
                    return Err(syntax("cannot use \"V\" and decimal point together"));
                }
                self.decimal = true;
            }
            NumKey::Fm => self.fill = true,
            NumKey::S => {
                if self.lsign_set() {
                    return Err(syntax("cannot use \"S\" twice"));
                }
                if self.plus || self.minus || self.bracket {
                    return Err(syntax(
                        "cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together",
                    ));
                }
                if !self.decimal {
                    self.lsign = LSign::Pre;
                    self.pre_lsign_num = self.pre;
                } else {
                    self.lsign = LSign::Post;
                }
            }
            NumKey::Mi => {
                if self.lsign_set() {
                    return Err(syntax("cannot use \"S\" and \"MI\" together"));
                }
                self.minus = true;
            }
            NumKey::Pl => {
                if self.lsign_set() {
                    return Err(syntax("cannot use \"S\" and \"PL\" together"));
                }
                self.plus = true;
            }
            NumKey::Sg => {
                if self.lsign_set() {
                    return Err(syntax("cannot use \"S\" and \"SG\" together"));
                }
                self.minus = true;
                self.plus = true;
            }
            NumKey::Pr => {
                if self.lsign_set() || self.plus || self.minus {
                    return Err(syntax(
                        "cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" together",
                    ));
                }
                self.bracket = true;
            }
            NumKey::RnUpper | NumKey::RnLower => self.roman = true,
            NumKey::V => {
                if self.decimal {
                    return Err(syntax("cannot use \"V\" and decimal point together"));
                }
                self.multi_flag = true;
            }
            NumKey::Eeee => {
                if self.eeee {
                    return Err(syntax("cannot use \"EEEE\" twice"));
                }
                if self.blank
                    || self.fill
                    || self.lsign_set()
                    || self.bracket
                    || self.minus
                    || self.plus
                    || self.roman
                    || self.multi_flag
                {
                    return Err(EvalError::SyntaxErrorDetail {
                        message: "\"EEEE\" is incompatible with other formats".into(),
                        detail: "\"EEEE\" may only be used together with digit and decimal \
                                 point patterns."
                            .into(),
                    });
                }
                self.eeee = true;
            }
            NumKey::Comma
            | NumKey::C
            | NumKey::G
            | NumKey::L
            | NumKey::Sp
            | NumKey::ThUpper
            | NumKey::ThLower => {}
        }
        Ok(())
    }
}
