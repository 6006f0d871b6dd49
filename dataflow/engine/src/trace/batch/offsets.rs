//! Offset columns stored in 32 bits while they fit, and a trailing run of one value as a count.
//!
//! Owns: [`Offsets`]. Invariant: `get(i)` returns the `i`-th pushed value; values are pushed in
//! non-decreasing order (they are offsets into a column), so once one needs 64 bits every later
//! one does, and the list is a 32-bit prefix followed by a 64-bit suffix, followed by `repeats`
//! copies of the last stored value that are not stored. The run is what a batch loaded at one
//! time holds: every val's update is the first one repeated (an empty range), so its update
//! offsets are `0, 1, 1, 1, ...` and take no memory a row.

/// A non-decreasing list of offsets: `u32` while they fit, then `u64`, then a counted run.
#[derive(Debug, Default)]
pub(crate) struct Offsets {
    small: Vec<u32>,
    large: Vec<u64>,
    /// Copies of the last stored value pushed after it and not stored.
    repeats: usize,
    /// The last stored value (kept beside the columns: `push` compares with it every time).
    last: Option<usize>,
}

impl Offsets {
    pub(crate) fn with_capacity(cap: usize) -> Self {
        Offsets {
            small: Vec::with_capacity(cap),
            large: Vec::new(),
            repeats: 0,
            last: None,
        }
    }
    #[inline]
    pub(crate) fn push(&mut self, offset: usize) {
        let last = self.last;
        if last == Some(offset) {
            self.repeats += 1;
            return;
        }
        if let Some(last) = last {
            // The run ends: store its copies before the new value.
            for _ in 0..std::mem::take(&mut self.repeats) {
                self.store(last);
            }
        }
        self.store(offset);
    }
    #[inline]
    fn store(&mut self, offset: usize) {
        self.last = Some(offset);
        match u32::try_from(offset) {
            Ok(small) if self.large.is_empty() => self.small.push(small),
            _ => self.large.push(offset as u64),
        }
    }
    #[inline]
    pub(crate) fn get(&self, i: usize) -> usize {
        match self.small.get(i) {
            Some(offset) => *offset as usize,
            None => match self.large.get(i - self.small.len()) {
                Some(offset) => *offset as usize,
                None => {
                    assert!(i < self.len(), "offset {i} of {}", self.len());
                    self.last.expect("a run follows a stored value")
                }
            },
        }
    }
    pub(crate) fn len(&self) -> usize {
        self.small.len() + self.large.len() + self.repeats
    }
    pub(crate) fn last(&self) -> Option<usize> {
        self.last
    }
    #[cfg(test)]
    fn last_stored(&self) -> Option<usize> {
        match self.large.last() {
            Some(offset) => Some(*offset as usize),
            None => self.small.last().map(|o| *o as usize),
        }
    }
    /// Bytes of the two columns' allocations.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.small.capacity() * std::mem::size_of::<u32>()
            + self.large.capacity() * std::mem::size_of::<u64>()
    }
    pub(crate) fn shrink_to_fit(&mut self) {
        self.small.shrink_to_fit();
        self.large.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::Offsets;

    /// Every pushed value reads back, across runs, the 32-bit limit and runs of large values.
    #[test]
    fn reads_what_was_pushed() {
        let big = u32::MAX as usize;
        let values = [
            0,
            1,
            1,
            1,
            1,
            2,
            3,
            3,
            7,
            7,
            7,
            big,
            big,
            big + 5,
            big + 5,
            big + 5,
            big + 9,
        ];
        for prefix in 0..=values.len() {
            let mut offsets = Offsets::with_capacity(4);
            for &v in &values[..prefix] {
                offsets.push(v);
            }
            assert_eq!(offsets.len(), prefix);
            assert_eq!(offsets.last(), values[..prefix].last().copied());
            assert_eq!(
                offsets.last(),
                offsets.last_stored(),
                "the kept last is the stored one"
            );
            for (i, &v) in values[..prefix].iter().enumerate() {
                assert_eq!(offsets.get(i), v, "prefix {prefix}, index {i}");
            }
        }
    }

    #[test]
    fn a_constant_run_takes_no_memory() {
        let mut offsets = Offsets::with_capacity(0);
        offsets.push(0);
        for _ in 0..100_000 {
            offsets.push(1);
        }
        offsets.shrink_to_fit();
        assert_eq!(offsets.len(), 100_001);
        assert_eq!((offsets.get(0), offsets.get(100_000)), (0, 1));
        assert!(offsets.heap_bytes() <= 16, "{} bytes", offsets.heap_bytes());
    }
}
