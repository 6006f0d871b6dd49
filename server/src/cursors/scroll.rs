//! Moving a query cursor over the rows it read at DECLARE. The cursor is a slot number over
//! `n` rows: 0 is before the first row, `1..=n` is on that row, `n + 1` is after the last.
//! Every FETCH or MOVE direction is first reduced to one of three motions: a *sweep* reads up
//! to `count` rows (or all of them) one after another, forward or backward, and ends on the
//! last row it read, or past the edge when it ran out; a *look* reads the row the cursor is on
//! (FORWARD 0, BACKWARD 0, RELATIVE 0) without moving; a *jump* goes straight to one slot
//! (ABSOLUTE, RELATIVE, FIRST, LAST) and reads that row if there is one, or stays before the
//! first or after the last row when the slot is out of range. A negative FORWARD or BACKWARD
//! count sweeps the other way. FETCH returns the rows read; MOVE goes through the same motion
//! and only counts them. A NO SCROLL cursor can only read onward from where it is, so it
//! refuses whatever would read backward, re-read the current row, or jump to a slot it has
//! already reached or one counted from the end. The exact set was found by comparing with a
//! real server (see `no_scroll_refuses`): a backward sweep is refused even with nothing
//! behind, except MOVE BACKWARD ALL before the first row; a FETCH of the current row is
//! refused while on a row (always for BACKWARD 0); a MOVE of zero rows is always allowed.

use kpg_sql::FetchDirection;
use kpg_types::Row;

use crate::error::ExecError;

/// A cursor over rows held in memory.
pub struct Portal {
    rows: Vec<Row>,
    /// The slot: 0 before the first row, `i` on the `i`th row, `rows.len() + 1` after the last.
    slot: usize,
    no_scroll: bool,
}

/// What a FETCH returns (`rows`; its tag's count is their number) or a MOVE counts.
pub struct Fetched {
    pub rows: Vec<Row>,
    pub count: u64,
}

/// A direction reduced to what it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Motion {
    /// Read rows one after another; `limit` is at least 1, `None` for all.
    Sweep { forward: bool, limit: Option<u64> },
    /// Read the current row, if on one; `backward` for BACKWARD 0.
    Look { backward: bool },
    /// Go to the slot `offset` away from `anchor`: the start (ABSOLUTE k ≥ 0), the slot after
    /// the last row (ABSOLUTE k < 0) or the current slot (RELATIVE k ≠ 0).
    Jump { anchor: Anchor, offset: i64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Anchor {
    Start,
    End,
    Here,
}

impl Motion {
    fn of(direction: FetchDirection) -> Motion {
        let counted = |forward: bool, count: i64| match count {
            0 => Motion::Look { backward: !forward },
            c => Motion::Sweep {
                forward: forward == (c > 0),
                limit: Some(c.unsigned_abs()),
            },
        };
        match direction {
            FetchDirection::Forward(None) => Motion::Sweep {
                forward: true,
                limit: None,
            },
            FetchDirection::Backward(None) => Motion::Sweep {
                forward: false,
                limit: None,
            },
            FetchDirection::Forward(Some(c)) => counted(true, c),
            FetchDirection::Backward(Some(c)) => counted(false, c),
            FetchDirection::Relative(0) => Motion::Look { backward: false },
            FetchDirection::Relative(k) => Motion::Jump {
                anchor: Anchor::Here,
                offset: k,
            },
            FetchDirection::Absolute(k) if k < 0 => Motion::Jump {
                anchor: Anchor::End,
                offset: k,
            },
            FetchDirection::Absolute(k) => Motion::Jump {
                anchor: Anchor::Start,
                offset: k,
            },
        }
    }
}

/// The rows a motion reads, as 1-based row numbers: `len` of them from `first`, going down
/// when `descending`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    first: usize,
    len: usize,
    descending: bool,
}

impl Span {
    const NONE: Span = Span {
        first: 0,
        len: 0,
        descending: false,
    };

    fn one(row: usize) -> Span {
        Span {
            first: row,
            len: 1,
            descending: false,
        }
    }
}

impl Portal {
    /// `rows`: the cursor's rows in order, read at DECLARE. `no_scroll`: declared NO SCROLL
    /// (moving backward is an error).
    pub fn new(rows: Vec<Row>, no_scroll: bool) -> Portal {
        Portal {
            rows,
            slot: 0,
            no_scroll,
        }
    }

    /// FETCH (`is_move` false: returns the rows) or MOVE (`is_move` true: rows empty, count =
    /// how many rows it moved over/onto, as PostgreSQL's MOVE tag) in `direction`.
    pub fn fetch(
        &mut self,
        direction: FetchDirection,
        is_move: bool,
    ) -> Result<Fetched, ExecError> {
        let motion = Motion::of(direction);
        if self.no_scroll && self.refuses(motion, is_move) {
            return Err(only_forward());
        }
        let span = self.perform(motion);
        let rows = if is_move {
            Vec::new()
        } else {
            (0..span.len)
                .map(|i| {
                    let row = if span.descending {
                        span.first - i
                    } else {
                        span.first + i
                    };
                    self.rows[row - 1].clone()
                })
                .collect()
        };
        Ok(Fetched {
            rows,
            count: span.len as u64,
        })
    }

    fn after_last(&self) -> usize {
        self.rows.len() + 1
    }

    fn on_row(&self) -> bool {
        (1..=self.rows.len()).contains(&self.slot)
    }

    /// Whether a NO SCROLL cursor refuses `motion` from its current slot.
    fn refuses(&self, motion: Motion, is_move: bool) -> bool {
        match motion {
            Motion::Sweep { forward: true, .. } => false,
            // Only a MOVE to the start from the start passes.
            Motion::Sweep {
                forward: false,
                limit,
            } => !(is_move && limit.is_none() && self.slot == 0),
            Motion::Look { backward } => !is_move && (backward || self.on_row()),
            Motion::Jump {
                anchor: Anchor::End,
                ..
            } => true,
            Motion::Jump {
                anchor: Anchor::Here,
                offset,
            } => offset < 0,
            // Anything up to the slot reached is behind; staying before the first row is not.
            Motion::Jump {
                anchor: Anchor::Start,
                offset,
            } => self.slot > 0 && offset <= self.slot as i64,
        }
    }

    /// Moves the cursor by `motion` and returns the rows it read.
    fn perform(&mut self, motion: Motion) -> Span {
        let n = self.rows.len();
        match motion {
            Motion::Look { .. } => {
                if self.on_row() {
                    Span::one(self.slot)
                } else {
                    Span::NONE
                }
            }
            Motion::Sweep { forward, limit } => {
                // Rows between the slot and the edge it sweeps toward.
                let ahead = if forward {
                    n.saturating_sub(self.slot)
                } else {
                    self.slot.saturating_sub(1)
                };
                let first = if forward {
                    self.slot + 1
                } else {
                    self.slot.saturating_sub(1)
                };
                let wanted = limit.map(|l| usize::try_from(l).unwrap_or(usize::MAX));
                // A count that fits ends on the last row read; asking for more than is there
                // (or for all) reads it all and ends past the edge.
                let fits = wanted.filter(|&w| w <= ahead);
                let len = fits.unwrap_or(ahead);
                self.slot = match (forward, fits) {
                    (true, Some(w)) => self.slot + w,
                    (false, Some(w)) => self.slot - w,
                    (true, None) => self.after_last(),
                    (false, None) => 0,
                };
                Span {
                    first,
                    len,
                    descending: !forward,
                }
            }
            Motion::Jump { anchor, offset } => {
                let base = match anchor {
                    Anchor::Start => 0,
                    Anchor::End => self.after_last() as i64,
                    Anchor::Here => self.slot as i64,
                };
                let target = base.saturating_add(offset);
                if target < 1 {
                    self.slot = 0;
                    Span::NONE
                } else if target > n as i64 {
                    self.slot = self.after_last();
                    Span::NONE
                } else {
                    self.slot = target as usize;
                    Span::one(self.slot)
                }
            }
        }
    }
}

/// PostgreSQL's error for moving a NO SCROLL cursor backward.
pub fn only_forward() -> ExecError {
    ExecError::new("55000", "cursor can only scan forward")
        .with_hint("Declare it with SCROLL option to enable backward scan.")
}

#[cfg(test)]
mod tests {
    use super::*;
    use kpg_types::Datum;
    use FetchDirection::*;

    fn portal(n: i32, no_scroll: bool) -> Portal {
        Portal::new(
            (1..=n).map(|i| Row::new(vec![Datum::Int32(i)])).collect(),
            no_scroll,
        )
    }

    /// The row numbers a FETCH returns.
    fn fetch(p: &mut Portal, d: FetchDirection) -> Vec<i32> {
        let f = p.fetch(d, false).expect("fetch");
        assert_eq!(f.count, f.rows.len() as u64);
        f.rows
            .iter()
            .map(|r| match r.get(0) {
                kpg_types::packed::DatumRef::Int32(i) => i,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    fn mv(p: &mut Portal, d: FetchDirection) -> u64 {
        let f = p.fetch(d, true).expect("move");
        assert!(f.rows.is_empty());
        f.count
    }

    fn refused(p: &mut Portal, d: FetchDirection, is_move: bool) -> bool {
        match p.fetch(d, is_move) {
            Err(e) => {
                assert_eq!(e.code, "55000");
                true
            }
            Ok(_) => false,
        }
    }

    #[test]
    fn sweeps_stop_on_the_last_row_read_or_past_the_edge() {
        let mut p = portal(6, false);
        assert_eq!(fetch(&mut p, Forward(Some(2))), [1, 2]);
        assert_eq!(fetch(&mut p, Forward(Some(1))), [3]);
        assert_eq!(fetch(&mut p, Backward(Some(2))), [2, 1]);
        assert_eq!(p.slot, 1);
        assert_eq!(fetch(&mut p, Backward(Some(5))), Vec::<i32>::new());
        assert_eq!(p.slot, 0);
        assert_eq!(fetch(&mut p, Forward(Some(-3))), Vec::<i32>::new());
        assert_eq!(fetch(&mut p, Forward(None)), [1, 2, 3, 4, 5, 6]);
        assert_eq!(p.slot, 7);
        assert_eq!(fetch(&mut p, Forward(Some(1))), Vec::<i32>::new());
        assert_eq!(fetch(&mut p, Backward(Some(-2))), Vec::<i32>::new());
        assert_eq!(fetch(&mut p, Backward(Some(1))), [6]);
        assert_eq!(fetch(&mut p, Forward(Some(-10))), [5, 4, 3, 2, 1]);
        assert_eq!(p.slot, 0);
        assert_eq!(fetch(&mut p, Forward(Some(6))), [1, 2, 3, 4, 5, 6]);
        assert_eq!(p.slot, 6, "exactly enough rows: on the last one");
        assert_eq!(fetch(&mut p, Backward(None)), [5, 4, 3, 2, 1]);
        assert_eq!(p.slot, 0);
    }

    #[test]
    fn looking_rereads_the_current_row_only() {
        let mut p = portal(3, false);
        for d in [Forward(Some(0)), Backward(Some(0)), Relative(0)] {
            assert_eq!(fetch(&mut p, d), Vec::<i32>::new());
        }
        fetch(&mut p, Absolute(2));
        for d in [Forward(Some(0)), Backward(Some(0)), Relative(0)] {
            assert_eq!(fetch(&mut p, d), [2]);
            assert_eq!(mv(&mut p, d), 1);
        }
        mv(&mut p, Forward(None));
        assert_eq!(mv(&mut p, Relative(0)), 0);
    }

    #[test]
    fn jumps_land_on_a_row_or_just_outside() {
        let mut p = portal(6, false);
        assert_eq!(fetch(&mut p, Absolute(-1)), [6]);
        assert_eq!(fetch(&mut p, Absolute(1)), [1]);
        assert_eq!(fetch(&mut p, Absolute(-6)), [1]);
        assert_eq!(fetch(&mut p, Absolute(-7)), Vec::<i32>::new());
        assert_eq!(p.slot, 0);
        assert_eq!(fetch(&mut p, Relative(1)), [1]);
        assert_eq!(fetch(&mut p, Absolute(7)), Vec::<i32>::new());
        assert_eq!(p.slot, 7);
        assert_eq!(fetch(&mut p, Relative(-2)), [5]);
        assert_eq!(fetch(&mut p, Relative(3)), Vec::<i32>::new());
        assert_eq!(p.slot, 7);
        assert_eq!(fetch(&mut p, Absolute(3)), [3]);
        assert_eq!(fetch(&mut p, Absolute(0)), Vec::<i32>::new());
        assert_eq!(p.slot, 0);
        assert_eq!(fetch(&mut p, Relative(i64::MIN)), Vec::<i32>::new());
        assert_eq!(fetch(&mut p, Relative(i64::MAX)), Vec::<i32>::new());
        assert_eq!(p.slot, 7);
        assert_eq!(mv(&mut p, Absolute(i32::MAX.into())), 0);
        assert_eq!(mv(&mut p, Backward(Some(i64::MIN))), 0);
        assert_eq!(mv(&mut p, Forward(Some(i64::MIN))), 6);
    }

    #[test]
    fn move_counts_what_fetch_would_return() {
        let directions = [
            Forward(None),
            Backward(None),
            Forward(Some(3)),
            Backward(Some(-4)),
            Backward(Some(2)),
            Forward(Some(0)),
            Relative(-1),
            Absolute(-2),
            Absolute(9),
        ];
        for start in 0..=7 {
            for d in directions {
                let (mut a, mut b) = (portal(6, false), portal(6, false));
                a.slot = start;
                b.slot = start;
                let fetched = fetch(&mut a, d).len() as u64;
                assert_eq!(mv(&mut b, d), fetched, "{d:?} from {start}");
                assert_eq!(a.slot, b.slot);
            }
        }
    }

    #[test]
    fn empty_cursor() {
        let mut p = portal(0, false);
        assert_eq!(fetch(&mut p, Forward(Some(1))), Vec::<i32>::new());
        assert_eq!(p.slot, 1);
        assert_eq!(fetch(&mut p, Absolute(-1)), Vec::<i32>::new());
        assert_eq!(p.slot, 0);
        assert_eq!(mv(&mut p, Forward(None)), 0);
        assert_eq!(mv(&mut p, Backward(None)), 0);
    }

    #[test]
    fn no_scroll_refuses() {
        // Onward motion passes anywhere.
        for start in 0..=7 {
            for d in [
                Forward(Some(2)),
                Forward(None),
                Backward(Some(-1)),
                Relative(3),
            ] {
                let mut p = portal(6, true);
                p.slot = start;
                assert!(!refused(&mut p, d, false), "{d:?} from {start}");
            }
            // So does ABSOLUTE past the slot reached, and nothing else counted from the start.
            for k in 0..=8 {
                let mut p = portal(6, true);
                p.slot = start;
                let behind = start > 0 && k <= start;
                assert_eq!(
                    refused(&mut p, Absolute(k as i64), true),
                    behind,
                    "{k} from {start}"
                );
            }
            // Backward, or counted from the end: refused, even at the start.
            for d in [
                Backward(Some(1)),
                Forward(Some(-2)),
                Relative(-1),
                Absolute(-1),
                Absolute(-9),
            ] {
                for is_move in [false, true] {
                    let mut p = portal(6, true);
                    p.slot = start;
                    assert!(refused(&mut p, d, is_move), "{d:?} from {start}");
                }
            }
            let at = |slot| {
                let mut p = portal(6, true);
                p.slot = slot;
                p
            };
            // BACKWARD ALL: only a MOVE from before the first row.
            assert!(refused(&mut at(start), Backward(None), false));
            assert_eq!(refused(&mut at(start), Backward(None), true), start > 0);
            // The current row: a FETCH re-reads it (refused on a row; BACKWARD 0 always), a
            // MOVE does not.
            let on_row = (1..=6).contains(&start);
            for d in [Forward(Some(0)), Relative(0)] {
                assert_eq!(refused(&mut at(start), d, false), on_row, "{d:?} {start}");
                assert!(!refused(&mut at(start), d, true));
            }
            assert!(refused(&mut at(start), Backward(Some(0)), false));
            assert!(!refused(&mut at(start), Backward(Some(0)), true));
        }
    }

    #[test]
    fn no_scroll_reads_onward_like_scroll() {
        let mut p = portal(6, true);
        assert_eq!(mv(&mut p, Backward(None)), 0);
        assert_eq!(fetch(&mut p, Absolute(2)), [2]);
        assert_eq!(mv(&mut p, Relative(0)), 1);
        assert_eq!(fetch(&mut p, Backward(Some(-2))), [3, 4]);
        assert_eq!(fetch(&mut p, Absolute(6)), [6]);
        assert_eq!(fetch(&mut p, Forward(None)), Vec::<i32>::new());
        assert_eq!(fetch(&mut p, Relative(0)), Vec::<i32>::new());
        assert_eq!(fetch(&mut p, Absolute(8)), Vec::<i32>::new());
    }
}
