//! A bounded memo of canonical forms and JSON answers of kernel symbols.
//!
//! A profiler plugin names kernels per event, so the same few hundred symbols
//! arrive millions of times. Canonicalizing a real name (a few hundred bytes)
//! costs its scan, up to a microsecond; an Itanium-mangled one costs up to
//! tens of microseconds in the demangler. Looking a kept answer up costs one
//! seeded hash of the symbol and one comparison, so the memo keeps every
//! symbol it is asked about, and a repeated symbol is never canonicalized (or
//! demangled) again while it stays in the memo.

use std::borrow::Cow;
use std::hash::BuildHasher;

use hashbrown::HashTable;

use crate::canonical::{canonicalize, Canonical};
use crate::field::Field;
use crate::text::trim_ws;
use crate::verdict::Verdict;

/// Counters of a [`Memo`]'s work since it was made (or [`Memo::clear`]ed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoStats {
    /// Canonical forms answered from the memo (not canonicalized again).
    pub hits: u64,
    /// Symbols canonicalized (demangled, for `_Z...` ones) because they
    /// were not in the memo.
    pub misses: u64,
    /// Entries dropped by eviction.
    pub evicted: u64,
    /// Misses whose entry alone is larger than half the budget, so it was
    /// answered but not kept.
    pub too_large: u64,
    /// [`Memo::write_json`] answers copied from the memo.
    pub answer_hits: u64,
    /// [`Memo::write_json`] answers rendered (and kept when they fit).
    pub answer_misses: u64,
}

/// A size-bounded memo of canonical forms and JSON answers of kernel symbols.
///
/// [`Memo::canonicalize`] returns exactly what [`canonicalize`] returns for the
/// same symbol (property-tested over every fixture and real-trace name);
/// only the time differs: a kept symbol costs one hash and one comparison,
/// and the answer is lent from the memo, not copied.
///
/// # Bound and eviction
///
/// Half the budget holds canonical forms, half the JSON answers of
/// [`Memo::write_json`]. Each entry is charged an estimate of the heap it
/// holds: the symbol (as the key and as the owned canonical form's text), the
/// demangled text, the owned fragments or the answer, plus
/// [`Memo::ENTRY_OVERHEAD`] bytes. Each half's entries live in two
/// generations. New entries, and old ones found again, go to the young
/// generation; when it would exceed half of its half, the old generation is
/// dropped and the young one becomes old. So the memo never holds more than
/// the budget, and a symbol stays as long as it was used within the last two
/// generations (an approximation of least-recently-used with O(1) work per
/// call). An entry larger than half its half is never kept.
///
/// # Hashing
///
/// Symbols are hashed with foldhash, seeded at random per memo: a tenth of
/// the cost of the standard library's SipHash on a few hundred bytes, and
/// still seeded, so names chosen to collide in one process do not collide
/// in another (the memo's input comes from traces a user did not write).
///
/// ```
/// use opguard_kernel_name::{canonicalize, Memo};
///
/// let mut memo = Memo::new();
/// let symbol = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_";
/// for _ in 0..3 {
///     let c = memo.canonicalize(symbol);
///     assert_eq!(c.identity(), canonicalize(symbol).identity());
/// }
/// assert_eq!((memo.stats().misses, memo.stats().hits), (1, 2));
/// ```
#[derive(Debug)]
pub struct Memo {
    canonical: Generations<Canonical<'static>>,
    answers: Generations<Box<str>>,
    /// The projection the kept answers were rendered with.
    answer_fields: Vec<Field>,
    budget: usize,
    stats: MemoStats,
}

/// One kept symbol and what it stands for.
#[derive(Debug)]
struct Entry<V> {
    key: Box<str>,
    value: V,
    /// The bytes charged against the budget.
    charge: usize,
}

/// One generation: entries in arrival order, indexed by their key's hash.
///
/// The index holds `(hash, slot)`, so a lookup compares the full hash before
/// the key and returns a slot number rather than a borrow, which lets the
/// caller move an entry between generations before reading it. A slot is
/// emptied when its entry moves to the young generation; a generation is only
/// ever dropped whole, so slots are never reused.
#[derive(Debug)]
struct Generation<V> {
    index: HashTable<(u64, usize)>,
    slots: Vec<Option<Entry<V>>>,
    bytes: usize,
}

impl<V> Generation<V> {
    fn new() -> Self {
        Generation {
            index: HashTable::new(),
            slots: Vec::new(),
            bytes: 0,
        }
    }

    fn slot(&self, hash: u64, key: &[u8]) -> Option<usize> {
        let slots = &self.slots;
        self.index
            .find(hash, |&(h, slot)| h == hash && is_key(slots, slot, key))
            .map(|&(_, slot)| slot)
    }

    fn take(&mut self, hash: u64, key: &[u8]) -> Option<Entry<V>> {
        let slots = &self.slots;
        let found = self
            .index
            .find_entry(hash, |&(h, slot)| h == hash && is_key(slots, slot, key))
            .ok()?;
        let ((_, slot), _) = found.remove();
        let entry = self.slots.get_mut(slot)?.take()?;
        self.bytes -= entry.charge;
        Some(entry)
    }

    fn push(&mut self, hash: u64, entry: Entry<V>) -> usize {
        let slot = self.slots.len();
        self.bytes += entry.charge;
        self.slots.push(Some(entry));
        self.index.insert_unique(hash, (hash, slot), |&(h, _)| h);
        slot
    }

    fn value(&self, slot: usize) -> Option<&V> {
        self.slots.get(slot)?.as_ref().map(|e| &e.value)
    }

    fn len(&self) -> usize {
        self.index.len()
    }
}

fn is_key<V>(slots: &[Option<Entry<V>>], slot: usize, key: &[u8]) -> bool {
    slots
        .get(slot)
        .and_then(Option::as_ref)
        .is_some_and(|e| e.key.as_bytes() == key)
}

/// Two generations of entries under one byte bound (see [`Memo`]).
#[derive(Debug)]
struct Generations<V> {
    young: Generation<V>,
    old: Generation<V>,
    budget: usize,
    hasher: foldhash::fast::RandomState,
    /// How many times the young generation became the old one: a slot
    /// returned before a rotation no longer names a young entry.
    rotations: u64,
}

impl<V> Generations<V> {
    fn new(budget: usize) -> Self {
        Generations {
            young: Generation::new(),
            old: Generation::new(),
            budget,
            hasher: foldhash::fast::RandomState::default(),
            rotations: 0,
        }
    }

    /// Keys are hashed and compared as bytes, so a caller holding a line it
    /// has not checked for UTF-8 yet can look it up (a kept key is UTF-8).
    fn hash(&self, key: &[u8]) -> u64 {
        self.hasher.hash_one(key)
    }

    /// The young-generation slot of `key`, moving it there from the old
    /// generation when it is found only there; with the number of entries
    /// that move evicted. `None` when the key is not kept.
    fn find(&mut self, hash: u64, key: &[u8]) -> Option<(usize, u64)> {
        if let Some(slot) = self.young.slot(hash, key) {
            return Some((slot, 0));
        }
        let entry = self.old.take(hash, key)?;
        Some(self.keep(hash, entry))
    }

    /// The value in a young slot returned by [`Generations::find`] or
    /// [`Generations::keep`].
    fn young_value(&self, slot: usize) -> Option<&V> {
        self.young.value(slot)
    }

    /// Whether an entry of `charge` bytes may be kept at all.
    fn fits(&self, charge: usize) -> bool {
        charge <= self.budget / 2
    }

    /// Puts an entry in the young generation, first dropping the old one
    /// and aging the young one when it is full; returns its slot and how
    /// many entries were dropped.
    fn keep(&mut self, hash: u64, entry: Entry<V>) -> (usize, u64) {
        let mut evicted = 0;
        if self.young.bytes + entry.charge > self.budget / 2 {
            evicted = self.old.len() as u64;
            self.old = std::mem::replace(&mut self.young, Generation::new());
            self.rotations += 1;
        }
        (self.young.push(hash, entry), evicted)
    }

    fn len(&self) -> usize {
        self.young.len() + self.old.len()
    }

    fn bytes(&self) -> usize {
        self.young.bytes + self.old.bytes
    }
}

impl Default for Memo {
    fn default() -> Self {
        Memo::new()
    }
}

impl Memo {
    /// The budget of [`Memo::new`]: 32 MiB, room for about a thousand of the
    /// longest real NVCC cuDNN symbols (about 2 KB mangled, 12 KB demangled).
    pub const DEFAULT_BUDGET: usize = 32 << 20;

    /// Bytes charged per entry besides its text (hash-table slot, the
    /// canonical form's fixed part), a deliberate over-estimate.
    pub const ENTRY_OVERHEAD: usize = 256;

    /// An empty memo with [`Memo::DEFAULT_BUDGET`].
    pub fn new() -> Self {
        Memo::with_budget(Memo::DEFAULT_BUDGET)
    }

    /// An empty memo holding at most `bytes` (estimated; see the type's docs).
    /// A budget of 0 keeps nothing: every call canonicalizes.
    pub fn with_budget(bytes: usize) -> Self {
        Memo {
            canonical: Generations::new(bytes / 2),
            answers: Generations::new(bytes - bytes / 2),
            answer_fields: Vec::new(),
            budget: bytes,
            stats: MemoStats::default(),
        }
    }

    /// The canonical form of `symbol`, equal to [`canonicalize`]`(symbol)`:
    /// lent from the memo, or canonicalized once and kept.
    pub fn canonicalize<'a>(&'a mut self, symbol: &'a str) -> Cow<'a, Canonical<'a>> {
        let kept = self.remember(symbol);
        self.resolve(symbol, kept)
    }

    /// [`matches`](crate::matches())`(want, got)`, with both sides taken from the memo.
    pub fn matches(&mut self, want: &str, got: &str) -> Verdict {
        let want_kept = self.remember(want);
        let got_kept = self.remember(got);
        // Keeping `got` may rotate the generations and move `want` to the
        // old one; `resolve` then canonicalizes it again (same answer).
        let want = self.resolve(want, want_kept);
        let got = self.resolve(got, got_kept);
        want.matches(&got)
    }

    /// Makes sure `symbol` is in the young generation (counting the hit or
    /// miss) and returns where; returns its canonical form instead when it
    /// was too large to keep.
    fn remember(&mut self, symbol: &str) -> Result<Kept, Box<Canonical<'static>>> {
        let hash = self.canonical.hash(symbol.as_bytes());
        if let Some((slot, evicted)) = self.canonical.find(hash, symbol.as_bytes()) {
            self.stats.hits += 1;
            self.stats.evicted += evicted;
            return Ok(self.kept(slot));
        }
        self.stats.misses += 1;
        let canonical = canonicalize(symbol).into_owned();
        let charge =
            Memo::ENTRY_OVERHEAD + symbol.len() + canonical.symbol().len() + canonical.heap_bytes();
        if !self.canonical.fits(charge) {
            self.stats.too_large += 1;
            return Err(Box::new(canonical));
        }
        let entry = Entry {
            key: symbol.into(),
            value: canonical,
            charge,
        };
        let (slot, evicted) = self.canonical.keep(hash, entry);
        self.stats.evicted += evicted;
        Ok(self.kept(slot))
    }

    fn kept(&self, slot: usize) -> Kept {
        Kept {
            slot,
            rotations: self.canonical.rotations,
        }
    }

    /// The canonical form of a symbol after [`Memo::remember`]: the kept one
    /// while the generations have not rotated since, else canonicalized again.
    fn resolve<'a>(
        &'a self,
        symbol: &'a str,
        kept: Result<Kept, Box<Canonical<'static>>>,
    ) -> Cow<'a, Canonical<'a>> {
        let kept = match kept {
            Ok(kept) if kept.rotations == self.canonical.rotations => kept,
            Ok(_) => return Cow::Owned(canonicalize(symbol)),
            Err(unkept) => return Cow::Owned(*unkept),
        };
        match self.canonical.young_value(kept.slot) {
            Some(canonical) => Cow::Borrowed(canonical),
            None => Cow::Owned(canonicalize(symbol)),
        }
    }

    /// Appends the JSON answer for `symbol` (its canonical form projected on
    /// `fields`, as `serde_json` writes [`Canonical::project`]) to `out`.
    ///
    /// A repeated symbol costs a hash lookup and a copy (the CLI's `--stdin`
    /// batch). Kept answers belong to one projection; asking with other
    /// `fields` drops them.
    pub fn write_json(&mut self, symbol: &str, fields: &[Field], out: &mut String) {
        if !self.write_kept_json(symbol.as_bytes(), fields, out) {
            self.render_json(symbol, fields, out);
        }
    }

    /// [`Memo::write_json`] for a symbol given as bytes (a line read from a
    /// file or a pipe): a kept symbol's bytes are known to be UTF-8, so only
    /// a symbol the memo does not hold is checked. On `Err` nothing is written.
    pub fn write_json_bytes(
        &mut self,
        symbol: &[u8],
        fields: &[Field],
        out: &mut String,
    ) -> Result<(), std::str::Utf8Error> {
        if !self.write_kept_json(symbol, fields, out) {
            self.render_json(std::str::from_utf8(symbol)?, fields, out);
        }
        Ok(())
    }

    /// Appends the kept answer for `symbol` under `fields`, if there is one.
    fn write_kept_json(&mut self, symbol: &[u8], fields: &[Field], out: &mut String) -> bool {
        if self.answer_fields != fields {
            self.answers = Generations::new(self.answers.budget);
            self.answer_fields = fields.to_vec();
        }
        let hash = self.answers.hash(symbol);
        let Some((slot, evicted)) = self.answers.find(hash, symbol) else {
            return false;
        };
        let Some(answer) = self.answers.young_value(slot) else {
            return false;
        };
        out.push_str(answer);
        self.stats.answer_hits += 1;
        self.stats.evicted += evicted;
        true
    }

    /// Renders the answer of a symbol not kept, appends it and keeps it.
    fn render_json(&mut self, symbol: &str, fields: &[Field], out: &mut String) {
        self.stats.answer_misses += 1;
        let start = out.len();
        // The answer is what is kept; a plain symbol's canonical form is not
        // kept besides it (it would only be read again under other `fields`),
        // a `_Z...` one is (demangling is the expensive part).
        let rendered = if is_mangled(symbol) {
            serde_json::to_string(&self.canonicalize(symbol).project(fields))
        } else {
            serde_json::to_string(&canonicalize(symbol).project(fields))
        };
        // Serializing a canonical form cannot fail (string keys, no maps
        // with other keys, no non-finite numbers); an empty answer is the
        // total fallback that keeps the caller's line count.
        out.push_str(rendered.as_deref().unwrap_or("{}"));
        let answer = &out[start..];
        let charge = Memo::ENTRY_OVERHEAD + symbol.len() + answer.len();
        if self.answers.fits(charge) {
            let entry = Entry {
                key: symbol.into(),
                value: answer.into(),
                charge,
            };
            let hash = self.answers.hash(symbol.as_bytes());
            self.stats.evicted += self.answers.keep(hash, entry).1;
        }
    }

    /// How many entries the memo holds (canonical forms and answers).
    pub fn len(&self) -> usize {
        self.canonical.len() + self.answers.len()
    }

    /// Whether the memo holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The estimated bytes held (never more than [`Memo::budget`]).
    pub fn bytes(&self) -> usize {
        self.canonical.bytes() + self.answers.bytes()
    }

    /// The budget in bytes.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// What the memo did since it was made or cleared.
    pub fn stats(&self) -> MemoStats {
        self.stats
    }

    /// Drops every entry and resets the counters (the budget stays).
    pub fn clear(&mut self) {
        *self = Memo::with_budget(self.budget);
    }
}

/// Where [`Memo::remember`] put a symbol: a young slot, valid until the
/// generations rotate again.
#[derive(Clone, Copy, Debug)]
struct Kept {
    slot: usize,
    rotations: u64,
}

/// Whether `canonicalize` sends the symbol to the demangler (by far the
/// most expensive path).
fn is_mangled(symbol: &str) -> bool {
    trim_ws(symbol).starts_with("_Z")
}
