//! Census requests: the census of one capture, and the two-width comparison.

use std::borrow::Cow;

use opguard_census::{
    Capture, Census, DeclaredHostResolutions, FamilyTable, HostResolutionDiff, WidthComparison,
};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::boundary::ok;
use crate::error::Error;
use crate::request::{one_of, parse, Doc};

/// Loads one document with the library's own parser: inline documents are
/// handed over byte for byte (so its duplicate-key and unknown-field checks
/// still apply), files are read with its default size limit.
fn load<T>(
    name: &str,
    doc: Option<Doc<'_>>,
    from_slice: fn(&[u8]) -> Result<T, opguard_census::Error>,
    from_path: fn(&str) -> Result<T, opguard_census::Error>,
) -> Result<Option<T>, Error> {
    let result = match doc {
        None => return Ok(None),
        Some(Doc::Inline(raw)) => from_slice(raw.get().as_bytes()),
        Some(Doc::Path(path)) => from_path(path),
    };
    result
        .map(Some)
        .map_err(|e| Error::census(&e).in_input(name))
}

fn capture(name: &str, doc: Option<Doc<'_>>) -> Result<Option<Capture>, Error> {
    load(name, doc, Capture::from_slice, |p| Capture::from_path(p))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CensusRequest<'a> {
    #[serde(borrow, default)]
    capture: Option<&'a RawValue>,
    #[serde(borrow, default)]
    capture_path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    families: Option<&'a RawValue>,
    #[serde(borrow, default)]
    families_path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    declared_host_resolutions: Option<&'a RawValue>,
    #[serde(borrow, default)]
    declared_host_resolutions_path: Option<Cow<'a, str>>,
    /// Seed 004: an incomplete census is not a pass. On unless the request
    /// says `false`.
    #[serde(default = "on")]
    require_classified: bool,
    #[serde(default)]
    require_host_resolutions: bool,
}

fn on() -> bool {
    true
}

#[derive(Serialize)]
struct CensusReply {
    census: Census,
    host_resolution_diff: Option<HostResolutionDiff>,
}

/// `{"capture"|"capture_path", "families"|"families_path"?,
/// "declared_host_resolutions"|"declared_host_resolutions_path"?,
/// "require_classified"? (default true), "require_host_resolutions"?}` →
/// `{"census": …, "host_resolution_diff": … | null}`; an operator no family
/// claims is `census.unclassified_operators` unless `require_classified` is
/// `false`.
pub(crate) fn census(request: &str) -> Result<String, Error> {
    let r: CensusRequest<'_> = parse("census", request)?;
    let capture_doc = one_of("capture", r.capture, r.capture_path.as_deref(), true)?;
    let families_doc = one_of("families", r.families, r.families_path.as_deref(), false)?;
    let declared_doc = one_of(
        "declared_host_resolutions",
        r.declared_host_resolutions,
        r.declared_host_resolutions_path.as_deref(),
        false,
    )?;
    if r.require_host_resolutions && declared_doc.is_none() {
        return Err(Error::invalid_request(
            "`require_host_resolutions` is true but no declared set is given; expected \
             `declared_host_resolutions` or `declared_host_resolutions_path`",
        ));
    }
    let table = family_table(families_doc)?;
    let declared = load(
        "declared_host_resolutions",
        declared_doc,
        DeclaredHostResolutions::from_slice,
        |p| DeclaredHostResolutions::from_path(p),
    )?;
    let Some(capture) = capture("capture", capture_doc)? else {
        return Err(Error::invalid_request("no capture given"));
    };
    let census = Census::compute(&capture, &table);
    if r.require_classified {
        census
            .require_classified()
            .map_err(|e| Error::census(&e).in_input("capture"))?;
    }
    if let (true, Some(d)) = (r.require_host_resolutions, &declared) {
        census
            .require_host_resolutions(d)
            .map_err(|e| Error::census(&e).in_input("capture"))?;
    }
    let host_resolution_diff = declared.as_ref().map(|d| census.host_resolution_diff(d));
    Ok(ok(&CensusReply {
        census,
        host_resolution_diff,
    }))
}

/// The family table a request names, or the default one.
fn family_table(doc: Option<Doc<'_>>) -> Result<FamilyTable, Error> {
    Ok(load("families", doc, FamilyTable::from_slice, |p| {
        FamilyTable::from_path(p)
    })?
    .unwrap_or_default())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CompareRequest<'a> {
    #[serde(borrow, default)]
    first: Option<&'a RawValue>,
    #[serde(borrow, default)]
    first_path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    second: Option<&'a RawValue>,
    #[serde(borrow, default)]
    second_path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    control: Option<&'a RawValue>,
    #[serde(borrow, default)]
    control_path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    families: Option<&'a RawValue>,
    #[serde(borrow, default)]
    families_path: Option<Cow<'a, str>>,
}

/// `{"first"|"first_path", "second"|"second_path", "control"|"control_path"?,
/// "families"|"families_path"?}` → the width comparison (with the family
/// table the census of the same captures would use).
pub(crate) fn compare_widths(request: &str) -> Result<String, Error> {
    let r: CompareRequest<'_> = parse("census_compare_widths", request)?;
    let first_doc = one_of("first", r.first, r.first_path.as_deref(), true)?;
    let second_doc = one_of("second", r.second, r.second_path.as_deref(), true)?;
    let control_doc = one_of("control", r.control, r.control_path.as_deref(), false)?;
    let (Some(first), Some(second)) =
        (capture("first", first_doc)?, capture("second", second_doc)?)
    else {
        return Err(Error::invalid_request("two captures are required"));
    };
    let control = capture("control", control_doc)?;
    let families_doc = one_of("families", r.families, r.families_path.as_deref(), false)?;
    let table = family_table(families_doc)?;
    let cmp = WidthComparison::compare_with_families(&first, &second, control.as_ref(), &table)
        .map_err(|e| Error::census(&e))?;
    Ok(ok(&cmp))
}
