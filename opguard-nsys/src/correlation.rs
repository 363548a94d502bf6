//! How many API calls each (process, correlation id) key names, in memory
//! that follows the range of ids rather than the number of rows.

use std::collections::HashMap;

use foldhash::fast::RandomState;

/// Ids per chunk: CUPTI numbers the API calls of a process consecutively,
/// so a capture's ids fill whole chunks and a key costs about two bits.
const CHUNK_IDS: i64 = 4096;
const WORDS: usize = (CHUNK_IDS / 64) as usize;

/// Two bits per id of one chunk: seen once, seen more than once.
struct Chunk {
    once: [u64; WORDS],
    several: [u64; WORDS],
}

/// How many calls a key names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Calls {
    /// No call carries the key: the device row's launch was not captured.
    None,
    /// Exactly one call: the launch is proven.
    One,
    /// Several calls carry it: nothing is proven.
    Several,
}

/// Which (process, correlation id) keys name one API call, or several.
///
/// ```
/// use opguard_nsys::{CallIndex, Calls};
///
/// let mut index = CallIndex::new();
/// index.insert(7, 100);
/// index.insert(8, 100); // another process: another namespace
/// index.insert(8, 101);
/// index.insert(8, 101);
/// assert_eq!(index.calls(7, 100), Calls::One);
/// assert_eq!(index.calls(8, 100), Calls::One);
/// assert_eq!(index.calls(8, 101), Calls::Several);
/// assert_eq!(index.calls(7, 101), Calls::None);
/// ```
#[derive(Default)]
pub struct CallIndex {
    chunks: HashMap<(i64, i64), Box<Chunk>, RandomState>,
}

impl std::fmt::Debug for CallIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallIndex")
            .field("chunks", &self.chunks.len())
            .finish()
    }
}

fn place(correlation: i64) -> (i64, usize, u64) {
    let chunk = correlation.div_euclid(CHUNK_IDS);
    let offset = correlation.rem_euclid(CHUNK_IDS) as usize;
    (chunk, offset / 64, 1u64 << (offset % 64))
}

impl CallIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one call of `process` carrying `correlation`.
    pub fn insert(&mut self, process: i64, correlation: i64) {
        let (chunk, word, bit) = place(correlation);
        let chunk = self.chunks.entry((process, chunk)).or_insert_with(|| {
            Box::new(Chunk {
                once: [0; WORDS],
                several: [0; WORDS],
            })
        });
        if chunk.once[word] & bit != 0 {
            chunk.several[word] |= bit;
        } else {
            chunk.once[word] |= bit;
        }
    }

    /// How many calls of `process` carry `correlation`.
    pub fn calls(&self, process: i64, correlation: i64) -> Calls {
        let (chunk, word, bit) = place(correlation);
        match self.chunks.get(&(process, chunk)) {
            Some(c) if c.several[word] & bit != 0 => Calls::Several,
            Some(c) if c.once[word] & bit != 0 => Calls::One,
            _ => Calls::None,
        }
    }

    /// Bytes the chunks take (without the map's own table).
    pub fn chunk_bytes(&self) -> usize {
        self.chunks.len() * std::mem::size_of::<Chunk>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_across_chunk_edges_and_signs_stay_apart() {
        let mut index = CallIndex::new();
        for id in [-1, 0, 63, 64, 4095, 4096, i64::MAX, i64::MIN] {
            index.insert(1, id);
        }
        index.insert(1, 4096);
        for id in [-1, 0, 63, 64, 4095, i64::MAX, i64::MIN] {
            assert_eq!(index.calls(1, id), Calls::One, "{id}");
            assert_eq!(index.calls(2, id), Calls::None, "{id}");
        }
        assert_eq!(index.calls(1, 4096), Calls::Several);
        assert_eq!(index.calls(1, 1), Calls::None);
        assert_eq!(index.calls(1, 4097), Calls::None);
    }

    #[test]
    fn dense_ids_cost_about_two_bits_each() {
        let mut index = CallIndex::new();
        for id in 1_000_000..1_000_000 + 1_048_576 {
            index.insert(42, id);
        }
        // 1 Mi ids in 257 chunks (the range starts mid-chunk) of 1 KiB.
        assert_eq!(index.chunk_bytes(), 257 * 1024);
    }
}
