//! A map kept as one sorted vector: the shape of every label, annotation and resource map.
//!
//! Those maps hold a handful of entries each, and a 150,000-pod state holds about four of them
//! per pod. A `BTreeMap` allocates a leaf of eleven slots for even one entry (about 550 bytes
//! for string pairs); a sorted vector holds exactly its entries, is found by binary search, and
//! iterates, compares, hashes and serializes in the same key order as the `BTreeMap` it
//! replaces, so outputs do not change.

use std::borrow::Borrow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Entries sorted by key, each key once.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SortedMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap {
            entries: Vec::new(),
        }
    }
}

/// Keys are strings of any representation: every lookup takes a `&str`.
impl<K: Ord + Borrow<str>, V> SortedMap<K, V> {
    pub const fn new() -> Self {
        SortedMap {
            entries: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    pub fn get(&self, key: &str) -> Option<&V> {
        self.find(key).ok().map(|at| &self.entries[at].1)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.find(key).ok().map(|at| &mut self.entries[at].1)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// Sets `key` to `value`, returning the value it replaced.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(key.borrow()) {
            Ok(at) => Some(std::mem::replace(&mut self.entries[at].1, value)),
            Err(at) => {
                self.entries.insert(at, (key, value));
                None
            }
        }
    }

    pub fn remove(&mut self, key: &str) -> Option<V> {
        self.find(key).ok().map(|at| self.entries.remove(at).1)
    }

    /// The value of `key`, inserted as `make()` first when absent.
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let at = match self.find(key.borrow()) {
            Ok(at) => at,
            Err(at) => {
                self.entries.insert(at, (key, make()));
                at
            }
        };
        &mut self.entries[at].1
    }

    /// The entry of `key`, to fill in when absent (`BTreeMap::entry`'s common uses).
    pub fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        Entry { map: self, key }
    }

    pub fn get_key_value(&self, key: &str) -> Option<(&K, &V)> {
        self.find(key).ok().map(|at| pair_ref(&self.entries[at]))
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }

    pub fn iter(&self) -> Iter<'_, K, V> {
        self.entries.iter().map(pair_ref)
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&K, &mut V)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        self.entries.iter().map(|(_, v)| v)
    }

    /// Builds the map from entries in any order; of equal keys the last wins, as when
    /// inserting them one by one.
    fn from_unsorted(mut entries: Vec<(K, V)>) -> Self {
        if !entries.is_sorted_by(|a, b| a.0 < b.0) {
            // Stable, so equal keys keep their order and the last of each run is the latest.
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            let mut deduped: Vec<(K, V)> = Vec::with_capacity(entries.len());
            for entry in entries {
                match deduped.last_mut() {
                    Some(last) if last.0 == entry.0 => *last = entry,
                    _ => deduped.push(entry),
                }
            }
            entries = deduped;
        }
        entries.shrink_to_fit();
        SortedMap { entries }
    }
}

/// A key of a [`SortedMap`], present or not.
pub struct Entry<'a, K, V> {
    map: &'a mut SortedMap<K, V>,
    key: K,
}

impl<'a, K: Ord + Borrow<str>, V> Entry<'a, K, V> {
    pub fn or_insert(self, value: V) -> &'a mut V {
        self.map.get_or_insert_with(self.key, || value)
    }

    pub fn or_default(self) -> &'a mut V
    where
        V: Default,
    {
        self.map.get_or_insert_with(self.key, V::default)
    }
}

type Iter<'a, K, V> = std::iter::Map<std::slice::Iter<'a, (K, V)>, fn(&(K, V)) -> (&K, &V)>;

fn pair_ref<K, V>((k, v): &(K, V)) -> (&K, &V) {
    (k, v)
}

/// Built from pairs of anything that converts to the key and value: `String` pairs build a map
/// of compact strings.
impl<K: Ord + Borrow<str>, V, A: Into<K>, B: Into<V>> FromIterator<(A, B)> for SortedMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (A, B)>>(iter: I) -> Self {
        SortedMap::from_unsorted(
            iter.into_iter()
                .map(|(key, value)| (key.into(), value.into()))
                .collect(),
        )
    }
}

impl<K: Ord + Borrow<str>, V, A: Into<K>, B: Into<V>, const N: usize> From<[(A, B); N]>
    for SortedMap<K, V>
{
    fn from(entries: [(A, B); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl<K: Ord + Borrow<str>, V, A: Into<K>, B: Into<V>> Extend<(A, B)> for SortedMap<K, V> {
    fn extend<I: IntoIterator<Item = (A, B)>>(&mut self, iter: I) {
        for (key, value) in iter {
            self.insert(key.into(), value.into());
        }
    }
}

impl<K, V> IntoIterator for SortedMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a, K: Ord + Borrow<str>, V> IntoIterator for &'a SortedMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<K: Ord + Borrow<str>, V> std::ops::Index<&str> for SortedMap<K, V> {
    type Output = V;
    /// Panics when the key is absent, as `BTreeMap`'s index does.
    fn index(&self, key: &str) -> &V {
        self.get(key).expect("no entry found for key")
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SortedMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.entries.iter().map(|(k, v)| (k, v)))
            .finish()
    }
}

impl<K: Serialize, V: Serialize> Serialize for SortedMap<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (k, v) in &self.entries {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, K: Ord + Borrow<str> + Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de>
    for SortedMap<K, V>
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<K, V>(PhantomData<(K, V)>);
        impl<'de, K: Ord + Borrow<str> + Deserialize<'de>, V: Deserialize<'de>> Visitor<'de>
            for MapVisitor<K, V>
        {
            type Value = SortedMap<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::with_capacity(access.size_hint().unwrap_or(0).min(64));
                while let Some(entry) = access.next_entry()? {
                    entries.push(entry);
                }
                Ok(SortedMap::from_unsorted(entries))
            }
        }
        deserializer.deserialize_map(MapVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// Every operation agrees with `BTreeMap` on the same sequence of edits, duplicates and
    /// out-of-order keys included.
    #[test]
    fn behaves_as_a_btree_map() {
        let edits: &[(&str, &str)] = &[
            ("zone", "a"),
            ("app", "web"),
            ("zone", "b"),
            ("tier", "db"),
            ("app", "api"),
        ];
        let mut sorted = SortedMap::new();
        let mut btree = BTreeMap::new();
        for (k, v) in edits {
            assert_eq!(sorted.insert(*k, *v), btree.insert(*k, *v));
        }
        assert_eq!(
            sorted.iter().collect::<Vec<_>>(),
            btree.iter().collect::<Vec<_>>()
        );
        assert_eq!(sorted.get("zone"), Some(&"b"));
        assert_eq!(sorted.remove("app"), btree.remove("app"));
        assert_eq!(sorted.remove("app"), None);
        assert!(!sorted.contains_key("app"));
        let collected: SortedMap<_, _> = edits.iter().copied().collect();
        let expected: BTreeMap<_, _> = edits.iter().copied().collect();
        assert_eq!(
            collected.iter().collect::<Vec<_>>(),
            expected.iter().collect::<Vec<_>>()
        );
    }

    /// Decoding keeps the last of duplicate keys, sorts, and serializes as the `BTreeMap`
    /// would; a null or non-map is an error in the same terms.
    #[test]
    fn decodes_and_encodes_as_a_btree_map() {
        let text = r#"{"b":"2","a":"1","b":"3"}"#;
        let sorted: SortedMap<String, String> = serde_json::from_str(text).unwrap();
        let btree: BTreeMap<String, String> = serde_json::from_str(text).unwrap();
        assert_eq!(
            serde_json::to_string(&sorted).unwrap(),
            serde_json::to_string(&btree).unwrap()
        );
        assert_eq!(
            serde_json::to_string(&sorted).unwrap(),
            r#"{"a":"1","b":"3"}"#
        );
        let error = serde_json::from_str::<SortedMap<String, String>>("[1]").unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid type: sequence, expected a map at line 1 column 0"
        );
    }
}
