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
}

/// A size-bounded memo of canonical forms of `_Z...` (Itanium-mangled) symbols.
///
/// [`Memo::canonicalize`] returns exactly what [`canonicalize`] returns for the
/// same symbol (property-tested over every fixture and real-trace name);
/// only the time differs.
///
/// # Bound and eviction
///
/// Each entry is charged an estimate of the heap it holds: the symbol (as the
/// key and as the owned canonical form's text), the demangled text, the owned
/// fragments, plus [`Memo::ENTRY_OVERHEAD`] bytes. The entries live in two
/// generations. New entries, and old ones found again, go to the young
/// generation; when it would exceed half the budget, the old generation is
/// dropped and the young one becomes old. So the memo never holds more than
/// the budget, and a symbol stays as long as it was used within the last two
/// generations (an approximation of least-recently-used with O(1) work per
/// call). An entry larger than half the budget is never kept.
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
    young: HashMap<Box<str>, Canonical<'static>>,
    old: HashMap<Box<str>, Canonical<'static>>,
    young_bytes: usize,
    old_bytes: usize,
    budget: usize,
    stats: MemoStats,
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
            young: HashMap::new(),
            old: HashMap::new(),
            young_bytes: 0,
            old_bytes: 0,
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
        self.young.get(symbol).or_else(|| self.old.get(symbol))
    }

    /// Puts a `_Z...` symbol's canonical form in the young generation
    /// (canonicalizing it on a miss, moving it forward from the old one on a
    /// hit there); returns it instead when it is too large to keep.
    fn fetch(&mut self, symbol: &str) -> Option<Canonical<'static>> {
        if self.young.contains_key(symbol) {
            self.stats.hits += 1;
            return None;
        }
        if let Some((key, canonical)) = self.old.remove_entry(symbol) {
            self.stats.hits += 1;
            let charge = charge(&canonical);
            self.old_bytes -= charge;
            self.keep(key, canonical, charge);
            return None;
        }
        self.stats.misses += 1;
        let canonical = canonicalize(symbol).into_owned();
        let charge = charge(&canonical);
        if charge > self.budget / 2 {
            self.stats.too_large += 1;
            return Some(canonical);
        }
        self.keep(symbol.into(), canonical, charge);
        None
    }

    /// Puts an entry in the young generation, rotating first when it is full.
    fn keep(&mut self, key: Box<str>, canonical: Canonical<'static>, charge: usize) {
        if self.young_bytes + charge > self.budget / 2 {
            self.stats.evicted += self.old.len() as u64;
            self.old = std::mem::take(&mut self.young);
            self.old_bytes = self.young_bytes;
            self.young_bytes = 0;
        }
        self.young_bytes += charge;
        self.young.insert(key, canonical);
    }

    /// How many symbols the memo holds.
    pub fn len(&self) -> usize {
        self.young.len() + self.old.len()
    }

    /// Whether the memo holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The estimated bytes held (never more than [`Memo::budget`]).
    pub fn bytes(&self) -> usize {
        self.young_bytes + self.old_bytes
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

/// The bytes an entry is charged: its key plus the canonical form's text.
fn charge(canonical: &Canonical<'static>) -> usize {
    Memo::ENTRY_OVERHEAD + canonical.symbol().len() + canonical.heap_bytes()
}

/// Whether `canonicalize` sends the symbol to the demangler (the only
/// expensive path, and the only one memoized).
fn is_mangled(symbol: &str) -> bool {
    trim_ws(symbol).starts_with("_Z")
}
