//! A small deterministic generator (xorshift) for randomized tests and benchmarks (this crate's
//! and the ones built on it): the same seed gives the same cases on every machine, so a failure
//! reproduces and two systems compared in a benchmark see the same values.

pub struct Rng(pub u64);

impl Rng {
    /// The next number of the sequence.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}
