//! The keywords of a datetime picture (`YYYY`, `MM`, `Month`, `HH24`, `TZ`, ...), in
//! PostgreSQL's table: each name in the cases PostgreSQL knows, the longer first where one
//! starts another, so that `MONTH` is not read as `MON` and `TH`.

/// A datetime keyword; the case of names whose output has a case is part of the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DchKey {
    /// `A.D.`/`B.C.` and friends: (dotted, upper).
    Era(bool, bool),
    /// `A.M.`/`P.M.` and friends: (dotted, upper).
    Meridiem(bool, bool),
    Cc,
    /// Day name, full: (case).
    Day(Case),
    /// Day name, abbreviated.
    Dy(Case),
    Ddd,
    Dd,
    D,
    Ff(u8),
    Fx,
    Hh24,
    Hh12,
    Hh,
    Iddd,
    Id,
    Iw,
    Iyyy,
    Iyy,
    Iy,
    I,
    J,
    Mi,
    Mm,
    Month(Case),
    Mon(Case),
    Ms,
    Of,
    Q,
    /// Roman month: upper.
    Rm(bool),
    Sssss,
    Ssss,
    Ss,
    Tzh,
    Tzm,
    /// Zone abbreviation: upper.
    Tz(bool),
    Us,
    Ww,
    W,
    YCommaYyy,
    Yyyy,
    Yyy,
    Yy,
    Y,
}

/// The case a name is written in: `MONTH`, `Month`, `month`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    Upper,
    Capitalized,
    Lower,
}

use Case::{Capitalized, Lower, Upper};
use DchKey::*;

/// PostgreSQL's datetime keywords (`DCH_keywords`).
pub const TABLE: &[(&str, DchKey)] = &[
    ("A.D.", Era(true, true)),
    ("A.M.", Meridiem(true, true)),
    ("AD", Era(false, true)),
    ("AM", Meridiem(false, true)),
    ("B.C.", Era(true, true)),
    ("BC", Era(false, true)),
    ("CC", Cc),
    ("DAY", Day(Upper)),
    ("DDD", Ddd),
    ("DD", Dd),
    ("DY", Dy(Upper)),
    ("Day", Day(Capitalized)),
    ("Dy", Dy(Capitalized)),
    ("D", D),
    ("FF1", Ff(1)),
    ("FF2", Ff(2)),
    ("FF3", Ff(3)),
    ("FF4", Ff(4)),
    ("FF5", Ff(5)),
    ("FF6", Ff(6)),
    ("FX", Fx),
    ("HH24", Hh24),
    ("HH12", Hh12),
    ("HH", Hh),
    ("IDDD", Iddd),
    ("ID", Id),
    ("IW", Iw),
    ("IYYY", Iyyy),
    ("IYY", Iyy),
    ("IY", Iy),
    ("I", I),
    ("J", J),
    ("MI", Mi),
    ("MM", Mm),
    ("MONTH", Month(Upper)),
    ("MON", Mon(Upper)),
    ("MS", Ms),
    ("Month", Month(Capitalized)),
    ("Mon", Mon(Capitalized)),
    ("OF", Of),
    ("P.M.", Meridiem(true, true)),
    ("PM", Meridiem(false, true)),
    ("Q", Q),
    ("RM", Rm(true)),
    ("SSSSS", Sssss),
    ("SSSS", Ssss),
    ("SS", Ss),
    ("TZH", Tzh),
    ("TZM", Tzm),
    ("TZ", Tz(true)),
    ("US", Us),
    ("WW", Ww),
    ("W", W),
    ("Y,YYY", YCommaYyy),
    ("YYYY", Yyyy),
    ("YYY", Yyy),
    ("YY", Yy),
    ("Y", Y),
    ("a.d.", Era(true, false)),
    ("a.m.", Meridiem(true, false)),
    ("ad", Era(false, false)),
    ("am", Meridiem(false, false)),
    ("b.c.", Era(true, false)),
    ("bc", Era(false, false)),
    ("cc", Cc),
    ("day", Day(Lower)),
    ("ddd", Ddd),
    ("dd", Dd),
    ("dy", Dy(Lower)),
    ("d", D),
    ("ff1", Ff(1)),
    ("ff2", Ff(2)),
    ("ff3", Ff(3)),
    ("ff4", Ff(4)),
    ("ff5", Ff(5)),
    ("ff6", Ff(6)),
    ("fx", Fx),
    ("hh24", Hh24),
    ("hh12", Hh12),
    ("hh", Hh),
    ("iddd", Iddd),
    ("id", Id),
    ("iw", Iw),
    ("iyyy", Iyyy),
    ("iyy", Iyy),
    ("iy", Iy),
    ("i", I),
    ("j", J),
    ("mi", Mi),
    ("mm", Mm),
    ("month", Month(Lower)),
    ("mon", Mon(Lower)),
    ("ms", Ms),
    ("of", Of),
    ("p.m.", Meridiem(true, false)),
    ("pm", Meridiem(false, false)),
    ("q", Q),
    ("rm", Rm(false)),
    ("sssss", Sssss),
    ("ssss", Ssss),
    ("ss", Ss),
    ("tzh", Tzh),
    ("tzm", Tzm),
    ("tz", Tz(false)),
    ("us", Us),
    ("ww", Ww),
    ("w", W),
    ("y,yyy", YCommaYyy),
    ("yyyy", Yyyy),
    ("yyy", Yyy),
    ("yy", Yy),
    ("y", Y),
];

impl DchKey {
    /// Keys that name calendar things an interval does not have (PostgreSQL's
    /// `INVALID_FOR_INTERVAL`).
    pub fn invalid_for_interval(self) -> bool {
        matches!(
            self,
            Era(..) | Day(_) | Dy(_) | D | Id | Month(_) | Mon(_) | Tz(_) | Tzh | Tzm | Of
        )
    }

    /// Keys that read or write the time zone.
    pub fn zoned(self) -> bool {
        matches!(self, Tz(_) | Tzh | Tzm | Of)
    }
}
