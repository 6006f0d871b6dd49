//! A hash table of `(key, value, diff)` updates for the snapshot operators.
//!
//! Owns: [`HashTable`]. The entries stay in one vector in arrival order; a map from each key's
//! hash to its last entry and a `next` link per entry chain the entries of one hash, so
//! building costs one map insert per update and no allocation per key. Keys of different
//! hashes never share a chain; keys that collide do, and readers compare keys.
//! [`consolidate_hashed`] sums the diffs of equal updates without sorting them.

use crate::difference::Semigroup;
use crate::operators::arrange::hash_key;
use crate::Data;

/// Updates by key: a chain of entries per key hash.
pub(crate) struct HashTable<K, V, R> {
    pub(crate) heads: foldhash::HashMap<u64, usize>,
    pub(crate) entries: Vec<(K, V, R)>,
    /// For each entry, the next entry with the same key hash (`usize::MAX` ends the chain).
    pub(crate) next: Vec<usize>,
}

impl<K: Data, V, R> HashTable<K, V, R> {
    pub(crate) fn build(entries: Vec<(K, V, R)>) -> Self {
        let mut heads = foldhash::HashMap::default();
        heads.reserve(entries.len());
        let mut next = vec![usize::MAX; entries.len()];
        for (i, (k, _, _)) in entries.iter().enumerate() {
            if let Some(previous) = heads.insert(hash_key(k), i) {
                next[i] = previous;
            }
        }
        HashTable {
            heads,
            entries,
            next,
        }
    }

    /// The entries whose key equals `key`.
    pub(crate) fn matches<'a>(&'a self, key: &'a K) -> impl Iterator<Item = &'a (K, V, R)> + 'a {
        let mut at = self
            .heads
            .get(&hash_key(key))
            .copied()
            .unwrap_or(usize::MAX);
        std::iter::from_fn(move || {
            while at != usize::MAX {
                let entry = &self.entries[at];
                at = self.next[at];
                if entry.0 == *key {
                    return Some(entry);
                }
            }
            None
        })
    }
}

/// The updates (`len` of them) with the diffs of equal `(key, value)` pairs summed and zeros
/// dropped, in no particular order. Joining unconsolidated inputs would multiply their repetitions.
pub(crate) fn consolidate_hashed<K: Data, V: Data, R: Semigroup>(
    updates: impl IntoIterator<Item = (K, V, R)>,
    len: usize,
) -> Vec<(K, V, R)> {
    let mut sums: foldhash::HashMap<(K, V), R> = foldhash::HashMap::default();
    sums.reserve(len);
    for (k, v, r) in updates {
        match sums.entry((k, v)) {
            std::collections::hash_map::Entry::Occupied(mut e) => e.get_mut().plus_equals(&r),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(r);
            }
        }
    }
    sums.into_iter()
        .filter(|(_, r)| !r.is_zero())
        .map(|((k, v), r)| (k, v, r))
        .collect()
}
