//! Wording every layer shares: a count with its noun (`1 node`, `3 nodes`), so no message
//! says "1 pods".

/// `1 node`, `3 nodes`.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The candidate nearest to `word` by edit distance, if it is near enough to be a typo.
pub fn closest(word: &str, candidates: impl Iterator<Item = &'static str>) -> Option<&'static str> {
    let lower = word.to_ascii_lowercase();
    candidates
        .map(|name| {
            (
                strsim::osa_distance(&lower, &name.to_ascii_lowercase()),
                name,
            )
        })
        .min_by_key(|(distance, _)| *distance)
        .filter(|(distance, _)| *distance <= (word.len() / 3).max(1))
        .map(|(_, name)| name)
}
