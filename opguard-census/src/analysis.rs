//! One pass over a capture's shapes: the name-free digest, the concrete-dimension
//! multiset, per-operator counts, and what the capture says about its step axis.

use std::collections::{BTreeMap, HashMap, HashSet};

use sha2::{Digest as _, Sha256};

use crate::admitted::{admitted, Admitted, Constraint};
use crate::capture::{Capture, Entry, FastMap, Replacement};
use crate::expr::{self, RelOp, Tok};

/// The digest's domain tag; bump it if the byte stream below ever changes.
pub(crate) const DIGEST_TAG: &[u8] = b"opguard.census/digest-v1\0";

/// Per interned operator name: calls, shape entries, non-numeric entries.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct NameStats {
    pub(crate) calls: u64,
    pub(crate) entries: u64,
    pub(crate) non_numeric: u64,
}

/// Symbols joined by symbol-to-symbol replacements (`{"s52": "s0"}`) and by guards
/// `Eq(a, b)` between two bare symbols.
#[derive(Debug, Default)]
pub(crate) struct Unification {
    index: HashMap<String, usize>,
    parent: Vec<usize>,
}

impl Unification {
    pub(crate) fn of(capture: &Capture) -> Unification {
        let mut u = Unification::default();
        for (k, r) in capture.replacements() {
            if let Replacement::Expr(e) = r {
                if let Some(v) = expr::bare_symbol(e) {
                    u.join(k, v);
                }
            }
        }
        let mut toks = Vec::new();
        for g in capture.guards() {
            if expr::tokenize(g, &mut toks).is_err() {
                continue;
            }
            if let Some((l, RelOp::Eq, r)) = expr::split_relation(&toks) {
                if let ([Tok::Ident(a)], [Tok::Ident(b)]) = (l, r) {
                    if expr::bare_symbol(a).is_some() && expr::bare_symbol(b).is_some() {
                        u.join(a, b);
                    }
                }
            }
        }
        u
    }

    fn id(&mut self, s: &str) -> usize {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.parent.len();
        self.parent.push(i);
        self.index.insert(s.to_string(), i);
        i
    }

    fn find_id(&self, mut i: usize) -> usize {
        while self.parent[i] != i {
            i = self.parent[i];
        }
        i
    }

    fn join(&mut self, a: &str, b: &str) {
        let (a, b) = (self.id(a), self.id(b));
        let (ra, rb) = (self.find_id(a), self.find_id(b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[hi] = lo;
        }
    }

    /// A key for `s`'s set: equal keys, same set. Symbols never unified get their own.
    pub(crate) fn set_of(&self, s: &str) -> SetKey {
        match self.index.get(s) {
            Some(&i) => SetKey::Joined(self.find_id(i)),
            None => SetKey::Alone(s.to_string()),
        }
    }

    /// Every symbol in the same set as `s` (including `s`).
    pub(crate) fn members(&self, s: &str) -> HashSet<String> {
        let mut out = HashSet::new();
        out.insert(s.to_string());
        if let Some(&i) = self.index.get(s) {
            let root = self.find_id(i);
            for (name, &j) in &self.index {
                if self.find_id(j) == root {
                    out.insert(name.clone());
                }
            }
        }
        out
    }
}

/// Identity of a unification set.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum SetKey {
    Joined(usize),
    Alone(String),
}

/// What a capture says about its step axis, by the capture's own evidence.
#[derive(Debug, Default)]
pub(crate) struct StepInfo {
    /// The step axis and every symbol unified with it (empty for a concrete capture).
    pub(crate) class: HashSet<String>,
    /// Canonical ids (digest numbering) of class symbols that appear in shapes.
    pub(crate) shape_ids: Vec<u32>,
    /// Shape entries that mention a class symbol.
    pub(crate) entries: u64,
    /// `(symbol, number)`: class symbols replaced by a number.
    pub(crate) solved: Vec<(String, i64)>,
    /// `(guard, number)`: the guards that, in the step's symbols alone, admit
    /// only one value of the size range (`Eq(s0, 2)`, `s0 <= 2`, `s0 < 3`, ...),
    /// with that value.
    pub(crate) pinned: Vec<(String, i64)>,
    /// Guards in the step's symbols alone that admit no value of the size
    /// range at all.
    pub(crate) admits_nothing: Vec<String>,
    /// `(symbol, number)`: any symbol replaced by the capture's own step hint.
    pub(crate) solved_to_hint: Vec<(String, i64)>,
    /// Guards that admit only the capture's own step hint for any symbol.
    pub(crate) pinned_to_hint: Vec<String>,
}

/// The result of the pass.
#[derive(Debug)]
pub(crate) struct Structure {
    pub(crate) digest: String,
    pub(crate) symbol_ids: HashMap<String, u32>,
    pub(crate) concrete: BTreeMap<i64, u64>,
    pub(crate) entries: u64,
    pub(crate) non_numeric: u64,
    pub(crate) unknown: u64,
    pub(crate) per_name: Vec<NameStats>,
    pub(crate) step: StepInfo,
    pub(crate) unification: Unification,
}

fn push_u64(buf: &mut Vec<u8>, mut v: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    buf.extend_from_slice(&tmp[i..]);
}

fn push_i64(buf: &mut Vec<u8>, v: i64) {
    if v < 0 {
        buf.push(b'-');
    }
    push_u64(buf, v.unsigned_abs());
}

/// Canonical text of one symbolic entry, assigning ids to new symbols in order.
/// Returns whether the entry mentions a symbol of `class`.
fn canonical_entry<'a>(
    text: &'a str,
    ids: &mut FastMap<&'a str, u32>,
    class: &HashSet<String>,
    toks: &mut Vec<Tok<'a>>,
    out: &mut String,
) -> bool {
    out.clear();
    let assign = |s: &'a str, ids: &mut FastMap<&'a str, u32>| -> u32 {
        let next = ids.len() as u32;
        *ids.entry(s).or_insert(next)
    };
    if let Some(sym) = expr::bare_symbol(text) {
        let id = assign(sym, ids);
        out.push('#');
        expr::push_int(out, i64::from(id));
        return class.contains(sym);
    }
    if expr::tokenize(text, toks).is_err() {
        // Unreachable for a validated capture; hash the text as written.
        out.push_str(text);
        return false;
    }
    let mut mentions = false;
    for i in 0..toks.len() {
        if expr::is_symbol(toks, i) {
            if let Tok::Ident(s) = toks[i] {
                assign(s, ids);
                mentions |= class.contains(s);
            }
        }
    }
    let name = |id: &u32, out: &mut String| {
        out.push('#');
        expr::push_int(out, i64::from(*id));
    };
    if let Some(lin) = expr::parse_linear(toks) {
        let mapped = expr::Linear {
            terms: lin.terms.iter().map(|(s, c)| (ids[s], *c)).collect(),
            constant: lin.constant,
        };
        if let Some(norm) = mapped.normalise() {
            norm.render(out, name, |v, out| expr::push_int(out, v));
            return mentions;
        }
    }
    expr::render_tokens(
        toks,
        out,
        |s, out| name(&ids[s], out),
        |v, out| out.push_str(v),
    );
    mentions
}

/// Run the pass.
pub(crate) fn analyse(capture: &Capture) -> Structure {
    let unification = Unification::of(capture);
    let class: HashSet<String> = match capture.step_axis() {
        Some(axis) => unification.members(axis),
        None => HashSet::new(),
    };

    let mut hasher = Sha256::new();
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 16);
    buf.extend_from_slice(DIGEST_TAG);
    let mut ids: FastMap<&str, u32> = FastMap::default();
    let mut toks: Vec<Tok> = Vec::new();
    let mut text = String::new();
    // Canonical bytes of each interned expression, computed where it first appears:
    // from then on its symbols all have ids, so its canonical form is fixed.
    let exprs = capture.exprs();
    let mut canon: Vec<Option<(Box<[u8]>, bool)>> = vec![None; exprs.len()];
    let mut concrete: FastMap<i64, u64> = FastMap::default();
    let (mut entries_total, mut unknown, mut step_entries) = (0u64, 0u64, 0u64);
    let names = capture.interned_names();
    let mut per_name = vec![NameStats::default(); names.len()];
    let entries = capture.entries();
    let mut pos = 0usize;

    for (name_id, shape_ends) in capture.raw_ops() {
        let name = &names[name_id as usize];
        let stats = &mut per_name[name_id as usize];
        stats.calls += 1;
        buf.push(b'o');
        push_u64(&mut buf, name.len() as u64);
        buf.push(b':');
        buf.extend_from_slice(name.as_bytes());
        buf.push(b's');
        push_u64(&mut buf, shape_ends.len() as u64);
        buf.push(b';');
        for &end in shape_ends {
            let shape = &entries[pos..end];
            pos = end;
            buf.push(b'd');
            push_u64(&mut buf, shape.len() as u64);
            buf.push(b';');
            stats.entries += shape.len() as u64;
            for entry in shape {
                match *entry {
                    Entry::Int(v) => {
                        *concrete.entry(v).or_insert(0) += 1;
                        buf.push(b'i');
                        push_i64(&mut buf, v);
                        buf.push(b';');
                    }
                    Entry::Unknown => {
                        stats.non_numeric += 1;
                        unknown += 1;
                        buf.extend_from_slice(b"n;");
                    }
                    Entry::Expr(id) => {
                        stats.non_numeric += 1;
                        let slot = &mut canon[id as usize];
                        let (bytes, mentions) = slot.get_or_insert_with(|| {
                            let mentions = canonical_entry(
                                &exprs[id as usize],
                                &mut ids,
                                &class,
                                &mut toks,
                                &mut text,
                            );
                            let mut b = Vec::with_capacity(text.len() + 8);
                            b.push(b'e');
                            push_u64(&mut b, text.len() as u64);
                            b.push(b':');
                            b.extend_from_slice(text.as_bytes());
                            (b.into_boxed_slice(), mentions)
                        });
                        if *mentions {
                            step_entries += 1;
                        }
                        buf.extend_from_slice(bytes);
                    }
                }
            }
            entries_total += shape.len() as u64;
        }
        if buf.len() >= 1 << 15 {
            hasher.update(&buf);
            buf.clear();
        }
    }
    hasher.update(&buf);
    let digest = hex(&hasher.finalize());
    let non_numeric = per_name.iter().map(|s| s.non_numeric).sum::<u64>();

    let symbol_ids: HashMap<String, u32> =
        ids.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    let mut step = step_info(capture, class, &symbol_ids, &unification);
    step.entries = step_entries;
    Structure {
        digest,
        symbol_ids,
        concrete: concrete.into_iter().collect(),
        entries: entries_total,
        non_numeric,
        unknown,
        per_name,
        step,
        unification,
    }
}

fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(HEX[(b >> 4) as usize] as char);
        s.push(HEX[(b & 15) as usize] as char);
    }
    s
}

fn step_info(
    capture: &Capture,
    class: HashSet<String>,
    symbol_ids: &HashMap<String, u32>,
    unification: &Unification,
) -> StepInfo {
    let hint = i64::try_from(capture.step_hint()).ok();
    let mut info = StepInfo::default();
    let mut shape_ids: Vec<u32> = class
        .iter()
        .filter_map(|s| symbol_ids.get(s).copied())
        .collect();
    shape_ids.sort_unstable();
    info.shape_ids = shape_ids;
    for (k, r) in capture.replacements() {
        if let Replacement::Number(n) = r {
            if class.contains(k) {
                info.solved.push((k.clone(), *n));
            }
            if Some(*n) == hint {
                info.solved_to_hint.push((k.clone(), *n));
            }
        }
    }
    // Every guard in the symbols of one set alone, as a constraint on the set's
    // value; the step's set is the step axis's.
    let guards = capture.guards();
    let step_set = capture.step_axis().map(|a| unification.set_of(a));
    let mut by_set: HashMap<SetKey, Vec<Constraint>> = HashMap::new();
    let mut toks = Vec::new();
    for (i, g) in guards.iter().enumerate() {
        if expr::tokenize(g, &mut toks).is_err() {
            continue;
        }
        let Some((l, op, r)) = expr::split_relation(&toks) else {
            continue;
        };
        let (Some(l), Some(r)) = (expr::parse_linear(l), expr::parse_linear(r)) else {
            continue;
        };
        let mut sets = l
            .terms
            .iter()
            .chain(r.terms.iter())
            .map(|(sym, _)| unification.set_of(sym));
        let Some(set) = sets.next() else { continue };
        if sets.all(|other| other == set) {
            by_set
                .entry(set)
                .or_default()
                .push(Constraint::of(i, &l, op, &r));
        }
    }
    let mut sets: Vec<(SetKey, Vec<Constraint>)> = by_set.into_iter().collect();
    sets.sort_by_key(|(_, cs)| cs[0].guard);
    for (set, constraints) in sets {
        let admits = admitted(&constraints);
        let texts = || admits.deciding.iter().map(|&i| guards[i].clone());
        let is_step = step_set.as_ref() == Some(&set);
        match admits.admitted {
            Admitted::Only(v) if is_step => info.pinned.extend(texts().map(|g| (g, v))),
            Admitted::Nothing if is_step => info.admits_nothing.extend(texts()),
            _ => {}
        }
        if matches!(admits.admitted, Admitted::Only(v) if Some(v) == hint) {
            info.pinned_to_hint.extend(texts());
        }
    }
    info.class = class;
    info
}
