//! Model stage: interned names and sorted position indexes, kept compact
//! and reusable across models.

use std::collections::HashMap;

use crate::slice::NameId;

/// a key), `keys[k]` the key of `positions[k]`, sorted. Two flat vectors
/// instead of a map of vectors: no allocation per key, about a third of the
/// memory, and their capacity is kept for the next model
/// ([`ModelStorage`](crate::ModelStorage)).
#[derive(Debug, Clone)]
pub(crate) struct SliceIndex<K> {
    keys: Vec<K>,
    positions: Vec<usize>,
}

impl<K> Default for SliceIndex<K> {
    fn default() -> Self {
        SliceIndex {
            keys: Vec::new(),
            positions: Vec::new(),
        }
    }
}

impl<K: Ord + Copy> SliceIndex<K> {
    /// Indexes `(key, slice position)` pairs given in file order.
    pub(crate) fn build(&mut self, pairs: impl Iterator<Item = (K, usize)> + Clone) {
        // Counted first: collected into a growing vector, the pairs would
        // take up to twice their size, at the model's peak.
        let n = pairs.clone().count();
        let mut sorted: Vec<(K, usize)> = Vec::with_capacity(n);
        sorted.extend(pairs);
        // Positions are distinct, so this order is total: by key, then file
        // order.
        sorted.sort_unstable();
        self.clear();
        self.keys.reserve_exact(n);
        self.positions.reserve_exact(n);
        self.keys.extend(sorted.iter().map(|p| p.0));
        self.positions.extend(sorted.iter().map(|p| p.1));
    }

    /// The positions of `key`, in file order (empty when it has none).
    pub(crate) fn get(&self, key: &K) -> &[usize] {
        let start = self.keys.partition_point(|k| k < key);
        let len = self.keys[start..].partition_point(|k| k == key);
        &self.positions[start..start + len]
    }

    pub(crate) fn clear(&mut self) {
        self.keys.clear();
        self.positions.clear();
    }
}

/// A map on the model's per-event path. foldhash instead of std's SipHash:
/// interning a name and finding a host total hashed at 190 and 255
/// instructions a key (a tenth of a job rank's read); seeded at random per
/// map, as std's is, so a crafted trace cannot pick the collisions.
pub(crate) type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Distinct strings numbered in order of first sight: each is copied once,
/// lookups borrow. The model's names, and readers' and analyses' own
/// tallies.
#[derive(Debug, Default, Clone)]
pub struct Interner {
    map: FastMap<Box<str>, NameId>,
    list: Vec<Box<str>>,
}

impl Interner {
    /// An empty interner.
    pub fn new() -> Self {
        Self::default()
    }
    /// The id of `s`, added when it is new.
    pub fn intern(&mut self, s: &str) -> NameId {
        if let Some(&id) = self.map.get(s) {
            return id;
        }
        let id = NameId(self.list.len() as u32);
        self.list.push(s.into());
        self.map.insert(s.into(), id);
        id
    }
    /// The string of `id` (empty for an id of another interner).
    pub fn get(&self, id: NameId) -> &str {
        self.list.get(id.0 as usize).map_or("", |s| s)
    }
    /// The id of `s`, without adding it.
    pub fn find(&self, s: &str) -> Option<NameId> {
        self.map.get(s).copied()
    }
    /// Forgets every string, keeping the table's and the list's capacity.
    pub fn clear(&mut self) {
        self.map.clear();
        self.list.clear();
    }
}
