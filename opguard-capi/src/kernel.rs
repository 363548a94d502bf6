//! Kernel-name requests: canonicalize, short name, verdict, and their batch forms.

use std::borrow::Cow;

use std::cell::RefCell;

use opguard_kernel_name::{short_name, Field, Memo};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use crate::boundary::{ok, ok_text};
use crate::error::Error;
use crate::request::parse;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SymbolRequest<'a> {
    #[serde(borrow)]
    symbol: Cow<'a, str>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CanonicalizeRequest<'a> {
    #[serde(borrow)]
    symbol: Cow<'a, str>,
    #[serde(borrow, default)]
    fields: Option<Vec<Cow<'a, str>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PairRequest<'a> {
    #[serde(borrow)]
    want: Cow<'a, str>,
    #[serde(borrow)]
    got: Cow<'a, str>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SymbolsRequest<'a> {
    #[serde(borrow)]
    symbols: Vec<Cow<'a, str>>,
    #[serde(borrow, default)]
    fields: Option<Vec<Cow<'a, str>>>,
}

/// Checks a `fields` list: known names, no repeats; kept in the order given.
fn projection(fields: Option<&[Cow<'_, str>]>) -> Result<Option<Vec<Field>>, Error> {
    let Some(fields) = fields else {
        return Ok(None);
    };
    Field::list(fields.iter().map(|f| f.as_ref()))
        .map(Some)
        .map_err(|e| Error::invalid_request(format!("`fields`: {e}")))
}

thread_local! {
    /// The memo of every canonicalize and match call made on this thread, so
    /// a plugin naming kernels per event demangles each `_Z...` symbol once
    /// per thread (within [`Memo::DEFAULT_BUDGET`]). One memo per thread
    /// rather than one behind a process-wide lock: threads naming kernels at
    /// once never wait for each other.
    static MEMO: RefCell<Memo> = RefCell::new(Memo::new());
}

/// Runs `work` with this thread's memo; with a memo that keeps nothing when
/// the thread's memo is unavailable (the thread is exiting, or a call is
/// already using it), so a call never fails for want of the memo: answers
/// are the same with or without it.
fn with_memo<T>(work: impl FnOnce(&mut Memo) -> T) -> T {
    let mut work = Some(work);
    let kept = MEMO.try_with(|memo| match memo.try_borrow_mut() {
        Ok(mut memo) => work.take().map(|w| w(&mut memo)),
        Err(_) => None,
    });
    match (kept, work) {
        (Ok(Some(answer)), _) => answer,
        (_, Some(work)) => work(&mut Memo::with_budget(0)),
        // `work` was taken only when it ran and answered.
        (_, None) => unreachable!("the memo's work ran but gave no answer"),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PairsRequest<'a> {
    #[serde(borrow)]
    pairs: Vec<(Cow<'a, str>, Cow<'a, str>)>,
}

/// `{"symbol": s, "fields"?: [...]}` → the canonical form (the parity
/// fixture's fields), or the named fields of it.
pub(crate) fn canonicalize_one(request: &str) -> Result<String, Error> {
    let r: CanonicalizeRequest<'_> = parse("kernel_canonicalize", request)?;
    let fields = projection(r.fields.as_deref())?;
    let fields = fields.as_deref().unwrap_or(&Field::ALL);
    Ok(with_memo(|memo| {
        ok_text(|out| memo.write_json(&r.symbol, fields, out))
    }))
}

#[derive(Serialize)]
struct ShortName<'a> {
    short_name: &'a str,
}

/// `{"symbol": s}` → `{"short_name": …}`.
pub(crate) fn short_name_one(request: &str) -> Result<String, Error> {
    let r: SymbolRequest<'_> = parse("kernel_short_name", request)?;
    Ok(ok(&ShortName {
        short_name: &short_name(&r.symbol),
    }))
}

/// `{"want": a, "got": b}` → `{"is_match", "reason", "basis"}`.
pub(crate) fn verdict_one(request: &str) -> Result<String, Error> {
    let r: PairRequest<'_> = parse("kernel_verdict", request)?;
    Ok(with_memo(|memo| ok(&memo.matches(&r.want, &r.got))))
}

/// Serializes each item as it is computed: no intermediate vector.
struct Lazy<I>(std::cell::Cell<Option<I>>);

impl<I, T> Serialize for Lazy<I>
where
    I: ExactSizeIterator<Item = T>,
    T: Serialize,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(items) = self.0.take() else {
            return serializer.serialize_seq(Some(0))?.end();
        };
        let mut seq = serializer.serialize_seq(Some(items.len()))?;
        for item in items {
            seq.serialize_element(&item)?;
        }
        seq.end()
    }
}

fn lazy<I: ExactSizeIterator>(items: I) -> Lazy<I> {
    Lazy(std::cell::Cell::new(Some(items)))
}

/// `{"symbols": [s, …], "fields"?: [...]}` → `[canonical, …]` in order.
///
/// Each item is the memo's kept JSON answer for the symbol and projection
/// (`Memo::write_json`, equal to serializing the canonical form), so a
/// repeated symbol costs a lookup and a copy rather than a serialization.
pub(crate) fn canonicalize_batch(request: &str) -> Result<String, Error> {
    let r: SymbolsRequest<'_> = parse("kernel_canonicalize_batch", request)?;
    let fields = projection(r.fields.as_deref())?;
    let fields = fields.as_deref().unwrap_or(&Field::ALL);
    Ok(with_memo(|memo| {
        ok_text(|out| {
            out.push('[');
            for (i, symbol) in r.symbols.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                memo.write_json(symbol, fields, out);
            }
            out.push(']');
        })
    }))
}

/// `{"pairs": [[want, got], …]}` → `[verdict, …]` in order.
pub(crate) fn verdict_batch(request: &str) -> Result<String, Error> {
    let r: PairsRequest<'_> = parse("kernel_match_batch", request)?;
    Ok(with_memo(|memo| {
        ok(&lazy(
            r.pairs.iter().map(|(want, got)| memo.matches(want, got)),
        ))
    }))
}
