//! A small deterministic generator for end-to-end runs, so a failure can
//! be replayed from its seed.

/// A linear congruential generator.
#[derive(Debug, Clone)]
pub struct Dice(pub u64);

impl Dice {
    /// A number in `0..n`.
    pub fn roll(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}
