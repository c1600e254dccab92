//! Anchors and aliases inside one entry: an anchored value's JSON is kept where it was written,
//! and an alias copies it, within the full parser's budget for alias expansion.

use std::ops::Range;

use super::Reader;
use crate::tree::ALIAS_EXPANSION_NODES;

/// A character of the anchor names this reader takes (YAML allows more; the rest goes to the
/// full parser).
fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')
}

impl Reader<'_, '_> {
    /// The anchor or alias name starting at `from` (after its `&` or `*`), before `end`; `None`
    /// when it is empty.
    pub(super) fn anchor_name(&self, from: usize, end: usize) -> Option<Range<usize>> {
        let length = self.bytes[from..end]
            .iter()
            .take_while(|&&b| name_byte(b))
            .count();
        (length > 0).then_some(from..from + length)
    }

    /// Define the anchor `name` on the value about to be written: a name means the value whose
    /// anchor came last in the text, even while that value is still being read (as the full
    /// parser numbers anchors). The index for [`Self::anchored`].
    pub(super) fn anchor(&mut self, name: Range<usize>) -> usize {
        self.anchors.push((name, None));
        self.anchors.len() - 1
    }

    /// The value of anchor `index` is the JSON written since `start`.
    pub(super) fn anchored(&mut self, index: usize, start: usize) {
        self.anchors[index].1 = Some(start..self.out.len());
    }

    /// Copy the JSON of the value anchored as `name`; `None` when there is none yet (an anchor
    /// of another entry, or of a value still being read), or when the copies of this entry
    /// would pass the full parser's budget. Each node of a copy takes at least one byte of its
    /// JSON and its strings (keys counted twice) at most twice their JSON, so a budget of bytes
    /// in the parser's count of nodes keeps within both of its limits.
    pub(super) fn alias(&mut self, name: Range<usize>) -> Option<()> {
        let name = &self.bytes[name];
        let (_, json) = self
            .anchors
            .iter()
            .rev()
            .find(|(anchor, _)| &self.bytes[anchor.clone()] == name)?;
        let json = json.clone()?;
        self.expanded += json.len();
        if self.expanded > ALIAS_EXPANSION_NODES {
            return None;
        }
        self.out.extend_from_within(json);
        Some(())
    }
}
