//! Kernel-name requests: canonicalize, short name, verdict, and their batch forms.

use std::borrow::Cow;

use opguard_kernel_name::{canonicalize, matches, short_name};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

use crate::boundary::ok;
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
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PairsRequest<'a> {
    #[serde(borrow)]
    pairs: Vec<(Cow<'a, str>, Cow<'a, str>)>,
}

/// `{"symbol": s}` → the canonical form (the parity fixture's fields).
pub(crate) fn canonicalize_one(request: &str) -> Result<String, Error> {
    let r: SymbolRequest<'_> = parse("kernel_canonicalize", request)?;
    Ok(ok(&canonicalize(&r.symbol)))
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
    Ok(ok(&matches(&r.want, &r.got)))
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

/// `{"symbols": [s, …]}` → `[canonical, …]` in order.
pub(crate) fn canonicalize_batch(request: &str) -> Result<String, Error> {
    let r: SymbolsRequest<'_> = parse("kernel_canonicalize_batch", request)?;
    Ok(ok(&lazy(r.symbols.iter().map(|s| canonicalize(s)))))
}

/// `{"pairs": [[want, got], …]}` → `[verdict, …]` in order.
pub(crate) fn verdict_batch(request: &str) -> Result<String, Error> {
    let r: PairsRequest<'_> = parse("kernel_match_batch", request)?;
    Ok(ok(&lazy(
        r.pairs.iter().map(|(want, got)| matches(want, got)),
    )))
}
