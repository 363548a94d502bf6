//! A bounded memo of the canonical forms of `_Z...` symbols.
//!
//! A profiler plugin names kernels per event, so the same few hundred symbols
//! arrive millions of times. Plain names canonicalize in a few hundred
//! nanoseconds without allocating, faster than hashing them for a lookup;
//! Itanium-mangled ones cost up to tens of microseconds in the demangler.
//! The memo keeps the latter, so a repeated mangled symbol is never demangled
//! again while it stays in the memo, and answers plain names directly.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::canonical::{canonicalize, Canonical};
use crate::field::Field;
use crate::text::trim_ws;
use crate::verdict::Verdict;

/// Counters of a [`Memo`]'s work since it was made (or [`Memo::clear`]ed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoStats {
    /// `_Z...` symbols answered from the memo (not demangled again).
    pub hits: u64,
    /// `_Z...` symbols canonicalized (demangled) because they were not in the memo.
    pub misses: u64,
    /// Entries dropped by eviction.
    pub evicted: u64,
    /// Misses whose entry alone is larger than half the budget, so it was
    /// answered but not kept.
    pub too_large: u64,
    /// Plain (not `_Z...`) symbols, canonicalized directly.
    pub direct: u64,
    /// [`Memo::write_json`] answers copied from the memo.
    pub answer_hits: u64,
    /// [`Memo::write_json`] answers rendered (and kept when they fit).
    pub answer_misses: u64,
}

/// A size-bounded memo of canonical forms of `_Z...` (Itanium-mangled) symbols
/// and of JSON answers.
///
/// [`Memo::canonicalize`] returns exactly what [`canonicalize`] returns for the
/// same symbol (property-tested over every fixture and real-trace name);
/// only the time differs.
///
/// # Bound and eviction
///
/// Half the budget holds canonical forms of `_Z...` symbols, half the JSON
/// answers of [`Memo::write_json`] (any symbol). Each entry is charged an
/// estimate of the heap it holds: the symbol (as the key and as the owned
/// canonical form's text), the demangled text, the owned fragments or the
/// answer, plus [`Memo::ENTRY_OVERHEAD`] bytes. Each half's entries live in two
/// generations. New entries, and old ones found again, go to the young
/// generation; when it would exceed half of its half, the old generation is
/// dropped and the young one becomes old. So the memo never holds more than
/// the budget, and a symbol stays as long as it was used within the last two
/// generations (an approximation of least-recently-used with O(1) work per
/// call). An entry larger than half its half is never kept.
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

/// Two generations of entries under one byte bound (see [`Memo`]).
#[derive(Debug)]
struct Generations<V> {
    young: HashMap<Box<str>, (V, usize)>,
    old: HashMap<Box<str>, (V, usize)>,
    young_bytes: usize,
    old_bytes: usize,
    budget: usize,
}

impl<V> Generations<V> {
    fn new(budget: usize) -> Self {
        Generations {
            young: HashMap::new(),
            old: HashMap::new(),
            young_bytes: 0,
            old_bytes: 0,
            budget,
        }
    }

    /// The entry when it is in the young generation, where a steady stream's
    /// entries live: one hash of the key, nothing moved.
    fn get_young(&self, key: &str) -> Option<&V> {
        self.young.get(key).map(|(v, _)| v)
    }

    fn get(&self, key: &str) -> Option<&V> {
        self.young
            .get(key)
            .or_else(|| self.old.get(key))
            .map(|(v, _)| v)
    }

    /// Whether `key` is kept; an old entry is moved to the young generation.
    /// Returns the number of entries evicted by that move.
    fn refresh(&mut self, key: &str) -> Option<u64> {
        if self.young.contains_key(key) {
            return Some(0);
        }
        let (key, (value, charge)) = self.old.remove_entry(key)?;
        self.old_bytes -= charge;
        Some(self.keep(key, value, charge))
    }

    /// Whether an entry of `charge` bytes may be kept at all.
    fn fits(&self, charge: usize) -> bool {
        charge <= self.budget / 2
    }

    /// Puts an entry in the young generation, first dropping the old one
    /// and aging the young one when it is full; returns how many were dropped.
    fn keep(&mut self, key: Box<str>, value: V, charge: usize) -> u64 {
        let mut evicted = 0;
        if self.young_bytes + charge > self.budget / 2 {
            evicted = self.old.len() as u64;
            self.old = std::mem::take(&mut self.young);
            self.old_bytes = self.young_bytes;
            self.young_bytes = 0;
        }
        self.young_bytes += charge;
        self.young.insert(key, (value, charge));
        evicted
    }

    fn len(&self) -> usize {
        self.young.len() + self.old.len()
    }

    fn bytes(&self) -> usize {
        self.young_bytes + self.old_bytes
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

    /// The canonical form of `symbol`, equal to [`canonicalize`]`(symbol)`.
    ///
    /// Plain symbols are canonicalized directly (borrowing from `symbol`);
    /// `_Z...` symbols come from the memo, or are canonicalized once and kept.
    pub fn canonicalize<'a>(&'a mut self, symbol: &'a str) -> Cow<'a, Canonical<'a>> {
        if !is_mangled(symbol) {
            self.stats.direct += 1;
            return Cow::Owned(canonicalize(symbol));
        }
        if let Some(unkept) = self.fetch(symbol) {
            return Cow::Owned(unkept);
        }
        match self.peek(symbol) {
            Some(kept) => Cow::Borrowed(kept),
            None => Cow::Owned(canonicalize(symbol)),
        }
    }

    /// [`matches`](crate::matches())`(want, got)`, with `_Z...` sides taken from the memo.
    pub fn matches(&mut self, want: &str, got: &str) -> Verdict {
        let want_unkept = self.remember(want);
        let got_unkept = self.remember(got);
        // Keeping `got` may rotate the generations, but never drops the
        // entry `want` just refreshed: it moves to the old generation.
        let want = self.resolve(want, want_unkept);
        let got = self.resolve(got, got_unkept);
        want.matches(&got)
    }

    /// Makes sure a `_Z...` symbol is in the memo (counting the hit or miss);
    /// returns its canonical form only when it was too large to keep.
    fn remember(&mut self, symbol: &str) -> Option<Canonical<'static>> {
        if is_mangled(symbol) {
            self.fetch(symbol)
        } else {
            self.stats.direct += 1;
            None
        }
    }

    /// The canonical form of a symbol after [`Memo::remember`].
    fn resolve<'a>(
        &'a self,
        symbol: &'a str,
        unkept: Option<Canonical<'static>>,
    ) -> Cow<'a, Canonical<'a>> {
        if let Some(unkept) = unkept {
            return Cow::Owned(unkept);
        }
        match self.peek(symbol) {
            Some(kept) => Cow::Borrowed(kept),
            None => Cow::Owned(canonicalize(symbol)),
        }
    }

    /// The kept canonical form of `symbol`, without counting or refreshing it.
    fn peek(&self, symbol: &str) -> Option<&Canonical<'static>> {
        self.canonical.get(symbol)
    }

    /// Puts a `_Z...` symbol's canonical form in the young generation
    /// (canonicalizing it on a miss, moving it forward from the old one on a
    /// hit there); returns it instead when it is too large to keep.
    fn fetch(&mut self, symbol: &str) -> Option<Canonical<'static>> {
        if let Some(evicted) = self.canonical.refresh(symbol) {
            self.stats.hits += 1;
            self.stats.evicted += evicted;
            return None;
        }
        self.stats.misses += 1;
        let canonical = canonicalize(symbol).into_owned();
        let charge =
            Memo::ENTRY_OVERHEAD + symbol.len() + canonical.symbol().len() + canonical.heap_bytes();
        if !self.canonical.fits(charge) {
            self.stats.too_large += 1;
            return Some(canonical);
        }
        self.stats.evicted += self.canonical.keep(symbol.into(), canonical, charge);
        None
    }

    /// Appends the JSON answer for `symbol` (its canonical form projected on
    /// `fields`, as `serde_json` writes [`Canonical::project`]) to `out`.
    ///
    /// Answers are memoized for every symbol, plain ones included: a caller
    /// naming kernels per event (the CLI's `--stdin` batch) then pays a hash
    /// lookup and a copy for a repeated symbol. Kept answers belong to one
    /// projection; asking with other `fields` drops them.
    pub fn write_json(&mut self, symbol: &str, fields: &[Field], out: &mut String) {
        if self.answer_fields != fields {
            self.answers = Generations::new(self.answers.budget);
            self.answer_fields = fields.to_vec();
        }
        if let Some(answer) = self.answers.get_young(symbol) {
            out.push_str(answer);
            self.stats.answer_hits += 1;
            return;
        }
        if let Some(evicted) = self.answers.refresh(symbol) {
            self.stats.answer_hits += 1;
            self.stats.evicted += evicted;
            if let Some(answer) = self.answers.get(symbol) {
                out.push_str(answer);
                return;
            }
        }
        self.stats.answer_misses += 1;
        let start = out.len();
        let rendered = serde_json::to_string(&self.canonicalize(symbol).project(fields));
        // Serializing a canonical form cannot fail (string keys, no maps
        // with other keys, no non-finite numbers); an empty answer is the
        // total fallback that keeps the caller's line count.
        out.push_str(rendered.as_deref().unwrap_or("{}"));
        let answer = &out[start..];
        let charge = Memo::ENTRY_OVERHEAD + symbol.len() + answer.len();
        if self.answers.fits(charge) {
            self.stats.evicted += self.answers.keep(symbol.into(), answer.into(), charge);
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

/// Whether `canonicalize` sends the symbol to the demangler (the only
/// expensive path, and the only one memoized).
fn is_mangled(symbol: &str) -> bool {
    trim_ws(symbol).starts_with("_Z")
}
