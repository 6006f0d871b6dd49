//! What date/time input reads of the session besides the text: the field order of
//! `DateStyle` (MDY, DMY, YMD), which places the numbers of an ambiguous date, whether
//! `IntervalStyle` is `sql_standard` (a leading minus then negates every field of an interval
//! that has no other sign), and the clock of the statement, which the words `now`, `today`,
//! `tomorrow` and `yesterday` read.
//!
//! Input is reached from many places (casts folded by the planner, parameters, COPY FROM,
//! `Datum::parse_text` in a dataflow), so the context is a thread-local set around the work of
//! one statement (`with_date_input`) rather than an argument of every parser. Outside it, the
//! style is PostgreSQL's default (MDY, postgres intervals) and there is no clock: a dataflow evaluates without a session, and a word
//! that needs the clock is refused with 0A000 there (in a materialized view, an index or a
//! subscription, as `now()` is). A non-constant cast planned under another style carries
//! that style itself (`ZonedFunc::Input`). A prepared statement keeps what its text read of
//! the clock when it was prepared, as PostgreSQL's does.

use std::cell::RefCell;

use chrono::{Duration, NaiveDate, NaiveDateTime};

use super::decode::DtErr;
use super::style::DateOrder;
use super::tz::Zone;

/// The settings that steer how date/time text reads.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct InputStyle {
    /// `DateStyle`'s field order.
    pub order: DateOrder,
    /// `IntervalStyle = sql_standard`.
    pub sql_standard_intervals: bool,
}

/// The statement's time, as the special words read it.
#[derive(Clone, Debug)]
pub struct InputClock {
    /// The transaction's start, a UTC instant (PostgreSQL's `now`).
    pub now: NaiveDateTime,
    /// The session's zone, in which `today` begins and `now` is a local time.
    pub zone: Zone,
}

thread_local! {
    static INPUT: RefCell<(InputStyle, Option<InputClock>)> = const {
        RefCell::new((
            InputStyle {
                order: DateOrder::Mdy,
                sql_standard_intervals: false,
            },
            None,
        ))
    };
}

/// Runs `f` with `style` steering input and `clock` as the time the special words read
/// (none: they are refused with 0A000).
pub fn with_date_input<R>(
    style: InputStyle,
    clock: Option<InputClock>,
    f: impl FnOnce() -> R,
) -> R {
    let previous = INPUT.with(|i| i.replace((style, clock)));
    let result = f();
    INPUT.with(|i| *i.borrow_mut() = previous);
    result
}

/// Runs `f` with `style` steering input, keeping the clock.
pub fn with_input_style<R>(style: InputStyle, f: impl FnOnce() -> R) -> R {
    let previous = INPUT.with(|i| std::mem::replace(&mut i.borrow_mut().0, style));
    let result = f();
    INPUT.with(|i| i.borrow_mut().0 = previous);
    result
}

/// The input style in effect.
pub fn input_style() -> InputStyle {
    INPUT.with(|i| i.borrow().0)
}

/// The field order in effect.
pub fn date_order() -> DateOrder {
    input_style().order
}

/// The local date and time of the clock in the session's zone, with the zone's offset east
/// of UTC then; `word` (the one that asked) is refused with 0A000 without a clock.
pub(super) fn local_now(word: &str) -> Result<(NaiveDateTime, i32), DtErr> {
    let clock = INPUT.with(|i| i.borrow().1.clone());
    let Some(clock) = clock else {
        return Err(DtErr::NeedsClock(word.to_string()));
    };
    let east = clock.zone.offset_at_utc(&clock.now);
    let local = clock
        .now
        .checked_add_signed(Duration::seconds(east.into()))
        .ok_or(DtErr::OutOfRange)?;
    Ok((local, east))
}

/// The local date `days` after today (`today`, `tomorrow`, `yesterday`).
pub(super) fn local_day(word: &str, days: i64) -> Result<NaiveDate, DtErr> {
    let (now, _) = local_now(word)?;
    now.date()
        .checked_add_signed(Duration::days(days))
        .ok_or(DtErr::OutOfRange)
}
