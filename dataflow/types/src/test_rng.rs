//! A small deterministic generator (xorshift) for the crate's randomized tests: the same seed
//! gives the same cases on every machine, so a failure reproduces.

pub struct Rng(pub u64);

impl Rng {
    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}
