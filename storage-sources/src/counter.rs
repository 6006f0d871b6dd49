//! The COUNTER load generator: one `bigint` column; the snapshot holds 1 and tick n adds
//! n + 1, retracting the oldest value once more than `max_cardinality` values are present.

use kpg_types::{Datum, Row};

use crate::Generator;

pub struct Counter {
    max_cardinality: Option<u64>,
}

impl Counter {
    pub fn new(max_cardinality: Option<u64>) -> Self {
        Counter { max_cardinality }
    }
}

fn value(v: u64) -> Row {
    Row::new(vec![Datum::Int64(v as i64)])
}

impl Generator for Counter {
    fn snapshot(&self, worker: usize, _peers: usize) -> Box<dyn Iterator<Item = (usize, Row)>> {
        if worker == 0 && self.max_cardinality != Some(0) {
            Box::new(std::iter::once((0, value(1))))
        } else {
            Box::new(std::iter::empty())
        }
    }

    fn tick(&mut self, n: u64) -> Vec<(usize, Row, i64)> {
        let new = n + 1;
        let mut changes = Vec::new();
        match self.max_cardinality {
            Some(0) => {}
            Some(m) if new > m => {
                changes.push((0, value(new), 1));
                changes.push((0, value(new - m), -1));
            }
            _ => changes.push((0, value(new), 1)),
        }
        changes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The collection after the snapshot and `ticks` ticks.
    fn contents(max: Option<u64>, ticks: u64) -> Vec<i64> {
        let mut g = Counter::new(max);
        let mut acc: BTreeMap<Row, i64> = BTreeMap::new();
        for (_, row) in (0..3).flat_map(|w| g.snapshot(w, 3)) {
            *acc.entry(row).or_default() += 1;
        }
        for n in 1..=ticks {
            for (_, row, diff) in g.tick(n) {
                *acc.entry(row).or_default() += diff;
            }
        }
        assert!(acc.values().all(|d| *d == 0 || *d == 1), "{acc:?}");
        acc.into_iter()
            .filter(|(_, d)| *d == 1)
            .map(|(r, _)| match r.get(0) {
                kpg_types::packed::DatumRef::Int64(v) => v,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn counts_up_and_keeps_the_latest_values() {
        assert_eq!(contents(None, 0), vec![1]);
        assert_eq!(contents(None, 4), vec![1, 2, 3, 4, 5]);
        assert_eq!(contents(Some(3), 1), vec![1, 2]);
        assert_eq!(contents(Some(3), 6), vec![5, 6, 7]);
        assert_eq!(contents(Some(1), 6), vec![7]);
        assert_eq!(contents(Some(0), 6), Vec::<i64>::new());
    }
}
