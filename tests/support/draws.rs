//! Cases drawn from a property test's own strategies with a fixed seed, so a companion test
//! can count how many of them reach the paths the property is about (something placed, a
//! victim chosen, a rewrite done) and fail when a generator change leaves the property
//! asserting nothing.

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// `n` values of `strategy`, the same on every run.
pub fn fixed<S: Strategy>(strategy: &S, n: usize) -> Vec<S::Value> {
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    (0..n)
        .map(|_| strategy.new_tree(&mut runner).expect("a value").current())
        .collect()
}

/// Fails unless at least `min_percent` of `of` cases were `hits`, naming what was counted.
pub fn at_least(what: &str, hits: usize, of: usize, min_percent: usize) {
    eprintln!("{what}: {hits} of {of}");
    assert!(
        hits * 100 >= of * min_percent,
        "{what}: {hits} of {of} cases, under the {min_percent}% the property needs"
    );
}
