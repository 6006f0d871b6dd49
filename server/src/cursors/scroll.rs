//! A query cursor's position over its rows, moved exactly as PostgreSQL 15 moves a portal:
//! `DoPortalRunFetch`, `PortalRunSelect` and `DoPortalRewind` of pquery.c, step for step.
//!
//! The rows are read once, when the cursor is declared, so the "executor" below is a scan over
//! a vector that stands before the first row (0), on a row (1..=n) or after the last (n + 1);
//! forward it returns the rows after its position, backward the rows before it, in that order.
//! The portal keeps PostgreSQL's own bookkeeping beside it: `pos` (the number of the row last
//! returned, counted from the start), `at_start` and `at_end`. The directions are reduced to
//! forward and backward runs the way PostgreSQL reduces them, which is what gives the edge
//! cases their PostgreSQL meaning: `ABSOLUTE 0` and `RELATIVE 0`, counts past either end,
//! `MOVE 0` (1 if on a row), `MOVE BACKWARD ALL` (the rows it passed, less one), and the
//! error of a NO SCROLL cursor, raised by exactly the runs that move it backward or rewind it.

use kpg_sql::FetchDirection;
use kpg_types::Row;

use crate::error::ExecError;

/// PostgreSQL's `FETCH_ALL` (`LONG_MAX`): a run of every remaining row.
const FETCH_ALL: i64 = i64::MAX;

pub struct Portal {
    rows: Vec<Row>,
    /// The scan's position: 0 before the first row, `i` on row `i`, `rows.len() + 1` after.
    scan: usize,
    pos: u64,
    at_start: bool,
    at_end: bool,
    no_scroll: bool,
}

/// What a FETCH returns (`rows`, its tag's count is their number) or a MOVE counts.
pub struct Fetched {
    pub rows: Vec<Row>,
    pub count: u64,
}

impl Portal {
    pub fn new(rows: Vec<Row>, no_scroll: bool) -> Portal {
        Portal {
            rows,
            scan: 0,
            pos: 0,
            at_start: true,
            at_end: false,
            no_scroll,
        }
    }

    /// Runs `FETCH` (`is_move` false) or `MOVE` in `direction` (`DoPortalRunFetch`).
    pub fn fetch(
        &mut self,
        direction: FetchDirection,
        is_move: bool,
    ) -> Result<Fetched, ExecError> {
        let mut out = (!is_move).then(Vec::new);
        let count = self.run_fetch(direction, out.as_mut())?;
        Ok(Fetched {
            rows: out.unwrap_or_default(),
            count,
        })
    }

    fn run_fetch(
        &mut self,
        direction: FetchDirection,
        dest: Option<&mut Vec<Row>>,
    ) -> Result<u64, ExecError> {
        let (mut forward, mut count) = match direction {
            FetchDirection::Forward(n) => (true, n.unwrap_or(FETCH_ALL)),
            FetchDirection::Backward(n) => (false, n.unwrap_or(FETCH_ALL)),
            FetchDirection::Absolute(count) => {
                if count > 0 {
                    // Rewind and advance, or move from where the portal stands if that is
                    // closer: the same runs as PostgreSQL, so that NO SCROLL fails alike.
                    if count - 1 <= (self.pos / 2) as i64 {
                        self.rewind()?;
                        if count > 1 {
                            self.select(true, count - 1, None)?;
                        }
                    } else {
                        let mut pos = self.pos as i64;
                        if self.at_end {
                            pos += 1;
                        }
                        if count <= pos {
                            self.select(false, pos - count + 1, None)?;
                        } else if count > pos + 1 {
                            self.select(true, count - pos - 1, None)?;
                        }
                    }
                    return self.select(true, 1, dest);
                } else if count < 0 {
                    self.select(true, FETCH_ALL, None)?;
                    if count < -1 {
                        self.select(false, -count - 1, None)?;
                    }
                    return self.select(false, 1, dest);
                }
                self.rewind()?;
                return self.select(true, 0, dest);
            }
            FetchDirection::Relative(count) => {
                if count > 0 {
                    if count > 1 {
                        self.select(true, count - 1, None)?;
                    }
                    return self.select(true, 1, dest);
                } else if count < 0 {
                    if count < -1 {
                        self.select(false, -count - 1, None)?;
                    }
                    return self.select(false, 1, dest);
                }
                (true, 0)
            }
        };
        if count < 0 {
            forward = !forward;
            count = -count;
        }
        // A zero count re-fetches the current row, if there is one.
        if count == 0 {
            let on_row = !self.at_start && !self.at_end;
            if dest.is_none() {
                return Ok(u64::from(on_row));
            }
            if on_row {
                self.select(false, 1, None)?;
                count = 1;
                forward = true;
            }
        }
        // MOVE BACKWARD ALL rewinds.
        if !forward && count == FETCH_ALL && dest.is_none() {
            let mut result = self.pos;
            if result > 0 && !self.at_end {
                result -= 1;
            }
            self.rewind()?;
            return Ok(result);
        }
        self.select(forward, count, dest)
    }

    /// Up to `count` rows (all for `FETCH_ALL`) in one direction (`PortalRunSelect`).
    fn select(
        &mut self,
        forward: bool,
        count: i64,
        dest: Option<&mut Vec<Row>>,
    ) -> Result<u64, ExecError> {
        if forward {
            if self.at_end || count <= 0 {
                return Ok(0);
            }
            let limit = (count != FETCH_ALL).then_some(count as u64);
            let n = self.scan_rows(true, limit, dest);
            if n > 0 {
                self.at_start = false;
            }
            if limit.is_none_or(|l| n < l) {
                self.at_end = true;
            }
            self.pos += n;
            Ok(n)
        } else {
            if self.no_scroll {
                return Err(only_forward());
            }
            if self.at_start || count <= 0 {
                return Ok(0);
            }
            let limit = (count != FETCH_ALL).then_some(count as u64);
            let n = self.scan_rows(false, limit, dest);
            if n > 0 && self.at_end {
                self.at_end = false;
                self.pos += 1;
            }
            if limit.is_none_or(|l| n < l) {
                self.at_start = true;
                self.pos = 0;
            } else {
                self.pos -= n;
            }
            Ok(n)
        }
    }

    /// The executor: moves the scan up to `limit` rows (all with `None`), handing each row it
    /// lands on to `dest`; returns how many it landed on.
    fn scan_rows(
        &mut self,
        forward: bool,
        limit: Option<u64>,
        mut dest: Option<&mut Vec<Row>>,
    ) -> u64 {
        let n = self.rows.len();
        let mut done = 0;
        while limit.is_none_or(|l| done < l) {
            if forward {
                if self.scan >= n {
                    self.scan = n + 1;
                    break;
                }
                self.scan += 1;
            } else {
                if self.scan <= 1 {
                    self.scan = 0;
                    break;
                }
                self.scan -= 1;
            }
            if let Some(out) = dest.as_deref_mut() {
                out.push(self.rows[self.scan - 1].clone());
            }
            done += 1;
        }
        done
    }

    /// Back to before the first row (`DoPortalRewind`); a NO SCROLL cursor that has moved
    /// cannot.
    fn rewind(&mut self) -> Result<(), ExecError> {
        if self.at_start && !self.at_end {
            return Ok(());
        }
        if self.no_scroll {
            return Err(only_forward());
        }
        self.scan = 0;
        self.pos = 0;
        self.at_start = true;
        self.at_end = false;
        Ok(())
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

    fn values(p: &mut Portal, d: FetchDirection) -> Vec<i32> {
        p.fetch(d, false)
            .unwrap()
            .rows
            .iter()
            .map(|r| match r.get(0) {
                Datum::Int32(i) => *i,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    fn moved(p: &mut Portal, d: FetchDirection) -> u64 {
        p.fetch(d, true).unwrap().count
    }

    #[test]
    fn positions_as_postgres() {
        let mut p = portal(5, false);
        assert_eq!(values(&mut p, Forward(Some(2))), [1, 2]);
        assert_eq!(values(&mut p, Relative(0)), [2]);
        assert_eq!(values(&mut p, Backward(Some(1))), [1]);
        assert_eq!(values(&mut p, Backward(Some(1))), Vec::<i32>::new());
        assert_eq!(values(&mut p, Relative(0)), Vec::<i32>::new());
        assert_eq!(values(&mut p, Absolute(-1)), [5]);
        assert_eq!(values(&mut p, Forward(Some(1))), Vec::<i32>::new());
        assert_eq!(values(&mut p, Backward(None)), [5, 4, 3, 2, 1]);
        assert_eq!(values(&mut p, Absolute(3)), [3]);
        assert_eq!(values(&mut p, Absolute(9)), Vec::<i32>::new());
        assert_eq!(values(&mut p, Prior()), [5]);
        assert_eq!(values(&mut p, Absolute(-9)), Vec::<i32>::new());
        assert_eq!(values(&mut p, Forward(Some(-1))), Vec::<i32>::new());
        assert_eq!(values(&mut p, Relative(2)), [2]);
        assert_eq!(values(&mut p, Absolute(0)), Vec::<i32>::new());
        assert_eq!(values(&mut p, Forward(None)), [1, 2, 3, 4, 5]);
    }

    #[allow(non_snake_case)]
    fn Prior() -> FetchDirection {
        Backward(Some(1))
    }

    #[test]
    fn move_counts_as_postgres() {
        let mut p = portal(5, false);
        assert_eq!(moved(&mut p, Forward(Some(0))), 0);
        assert_eq!(moved(&mut p, Forward(Some(2))), 2);
        assert_eq!(moved(&mut p, Forward(Some(0))), 1);
        assert_eq!(moved(&mut p, Forward(None)), 3);
        assert_eq!(moved(&mut p, Backward(None)), 5);
        assert_eq!(moved(&mut p, Absolute(2)), 1);
        assert_eq!(moved(&mut p, Backward(None)), 1);
        assert_eq!(moved(&mut p, Forward(Some(9))), 5);
    }

    #[test]
    fn no_scroll_refuses_backward_runs() {
        let mut p = portal(5, true);
        assert_eq!(values(&mut p, Absolute(1)), [1]);
        assert_eq!(values(&mut p, Absolute(3)), [3]);
        assert_eq!(moved(&mut p, Forward(Some(0))), 1);
        assert_eq!(p.fetch(Relative(0), false).err().unwrap().code, "55000");
        assert!(p.fetch(Backward(Some(1)), false).is_err());
        assert!(p.fetch(Absolute(1), false).is_err());
        assert_eq!(values(&mut p, Forward(None)), [4, 5]);
    }
}
