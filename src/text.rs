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
