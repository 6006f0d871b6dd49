//! Offset columns stored in 32 bits while they fit.
//!
//! Owns: [`Offsets`]. Invariant: `get(i)` returns the `i`-th pushed value; values are pushed in
//! non-decreasing order (they are offsets into a column), so once one needs 64 bits every later
//! one does, and the list is a 32-bit prefix followed by a 64-bit suffix.

/// A non-decreasing list of offsets: `u32` while they fit, then `u64`.
#[derive(Debug, Default)]
pub(crate) struct Offsets {
    small: Vec<u32>,
    large: Vec<u64>,
}

impl Offsets {
    pub(crate) fn with_capacity(cap: usize) -> Self {
        Offsets {
            small: Vec::with_capacity(cap),
            large: Vec::new(),
        }
    }
    #[inline]
    pub(crate) fn push(&mut self, offset: usize) {
        match u32::try_from(offset) {
            Ok(small) if self.large.is_empty() => self.small.push(small),
            _ => self.large.push(offset as u64),
        }
    }
    #[inline]
    pub(crate) fn get(&self, i: usize) -> usize {
        match self.small.get(i) {
            Some(offset) => *offset as usize,
            None => self.large[i - self.small.len()] as usize,
        }
    }
    pub(crate) fn len(&self) -> usize {
        self.small.len() + self.large.len()
    }
    pub(crate) fn last(&self) -> Option<usize> {
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
