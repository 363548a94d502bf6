//! Kernel-name requests: canonicalize, short name, verdict, and their batch forms.

use std::borrow::Cow;

use opguard_kernel_name::{canonicalize, matches, short_name, Canonical, IDENTITY_SCHEME};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
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

/// The fields of a canonical form, in its serialization order. A `fields`
/// request picks some of them; a test proves the projection of all of them
/// equals the full serialization.
pub(crate) const CANONICAL_FIELDS: &[&str] = &[
    "symbol",
    "base",
    "qualification",
    "short_name",
    "template",
    "annotation",
    "truncated",
    "degenerate",
    "memory_op",
    "mangling",
    "demangled",
    "identity",
    "identity_scheme",
];

/// Checks a `fields` list: known names, no repeats; kept in the order given.
fn projection(fields: Option<&[Cow<'_, str>]>) -> Result<Option<Vec<&'static str>>, Error> {
    let Some(fields) = fields else {
        return Ok(None);
    };
    let mut picked = Vec::with_capacity(fields.len());
    for f in fields {
        let Some(known) = CANONICAL_FIELDS.iter().find(|k| **k == f.as_ref()) else {
            return Err(Error::invalid_request(format!(
                "`fields` names {f:?}; expected some of {}",
                CANONICAL_FIELDS.join(", ")
            )));
        };
        if picked.contains(known) {
            return Err(Error::invalid_request(format!(
                "`fields` names {f:?} twice"
            )));
        }
        picked.push(*known);
    }
    Ok(Some(picked))
}

/// A canonical form, whole or projected onto some fields.
struct Shown<'c, 'a> {
    canonical: &'c Canonical<'a>,
    fields: Option<&'c [&'static str]>,
}

impl Serialize for Shown<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(fields) = self.fields else {
            return self.canonical.serialize(serializer);
        };
        let c = self.canonical;
        let mut map = serializer.serialize_map(Some(fields.len()))?;
        for field in fields {
            match *field {
                "symbol" => map.serialize_entry(field, c.symbol())?,
                "base" => map.serialize_entry(field, c.base())?,
                "qualification" => map.serialize_entry(field, &c.qualification())?,
                "short_name" => map.serialize_entry(field, &*c.short_name())?,
                "template" => map.serialize_entry(field, c.template())?,
                "annotation" => map.serialize_entry(field, &c.annotation())?,
                "truncated" => map.serialize_entry(field, &c.is_truncated())?,
                "degenerate" => map.serialize_entry(field, &c.is_degenerate())?,
                "memory_op" => map.serialize_entry(field, &c.memory_op())?,
                "mangling" => map.serialize_entry(field, c.mangling().as_str())?,
                "demangled" => map.serialize_entry(field, &c.demangled())?,
                "identity" => map.serialize_entry(field, &c.identity())?,
                "identity_scheme" => map.serialize_entry(field, IDENTITY_SCHEME)?,
                // `projection` admits only the names above.
                other => return Err(serde::ser::Error::custom(format!("unknown field {other}"))),
            }
        }
        map.end()
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
    Ok(ok(&Shown {
        canonical: &canonicalize(&r.symbol),
        fields: fields.as_deref(),
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

/// `{"symbols": [s, …], "fields"?: [...]}` → `[canonical, …]` in order.
pub(crate) fn canonicalize_batch(request: &str) -> Result<String, Error> {
    let r: SymbolsRequest<'_> = parse("kernel_canonicalize_batch", request)?;
    let fields = projection(r.fields.as_deref())?;
    let fields = fields.as_deref();
    Ok(ok(&lazy(r.symbols.iter().map(|s| Projected {
        canonical: canonicalize(s),
        fields,
    }))))
}

/// An owned canonical form with its projection (items of a batch).
struct Projected<'c, 'a> {
    canonical: Canonical<'a>,
    fields: Option<&'c [&'static str]>,
}

impl Serialize for Projected<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Shown {
            canonical: &self.canonical,
            fields: self.fields,
        }
        .serialize(serializer)
    }
}

/// `{"pairs": [[want, got], …]}` → `[verdict, …]` in order.
pub(crate) fn verdict_batch(request: &str) -> Result<String, Error> {
    let r: PairsRequest<'_> = parse("kernel_match_batch", request)?;
    Ok(ok(&lazy(
        r.pairs.iter().map(|(want, got)| matches(want, got)),
    )))
}
