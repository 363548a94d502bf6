//! Trace requests: what the reader established about a file, and launch regions.

use std::borrow::Cow;

use opguard_formats::ReadOptions;
use opguard_model::analysis::{aggregate, launch_region, DEFAULT_TOP_KERNELS};
use opguard_model::{ArtifactSpec, ModelOptions, Provider};
use opguard_trace::{trace_info, ReaderOptions, TraceReader};
use serde::{Deserialize, Serialize};

use crate::boundary::ok;
use crate::error::Error;
use crate::request::parse;

/// Reader limits a request may set; absent fields keep the reader's defaults.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Reader {
    max_encoded_bytes: Option<u64>,
    max_decoded_bytes: Option<u64>,
    max_depth: Option<usize>,
    max_value_bytes: Option<usize>,
    lossy_utf8: Option<bool>,
    salvage: Option<bool>,
    unverified_schema: Option<bool>,
}

impl Reader {
    pub(crate) fn options(&self) -> ReaderOptions {
        let mut o = ReaderOptions::new();
        if let Some(n) = self.max_encoded_bytes {
            o = o.max_encoded_bytes(n);
        }
        if let Some(n) = self.max_decoded_bytes {
            o = o.max_decoded_bytes(n);
        }
        if let Some(n) = self.max_depth {
            o = o.max_depth(n);
        }
        if let Some(n) = self.max_value_bytes {
            o = o.max_value_bytes(n);
        }
        if let Some(on) = self.lossy_utf8 {
            o = o.lossy_utf8(on);
        }
        if let Some(on) = self.salvage {
            o = o.salvage(on);
        }
        o
    }

    /// Whether an export of an unverified schema is read anyway.
    pub(crate) fn unverified_schema(&self) -> bool {
        self.unverified_schema.unwrap_or(false)
    }

    /// How to read a capture of any format keeping what `model` asks for.
    pub(crate) fn read_options(&self, model: ModelOptions) -> ReadOptions {
        ReadOptions::new(model)
            .reader(self.options())
            .unverified_schema(self.unverified_schema())
    }
}

/// A trace given by file (`path`) or as JSON text (`text`).
enum Source<'a> {
    Path(&'a str),
    Text(&'a str),
}

fn source<'a>(
    path: &'a Option<Cow<'a, str>>,
    text: &'a Option<Cow<'a, str>>,
) -> Result<Source<'a>, Error> {
    match (path, text) {
        (Some(p), None) => Ok(Source::Path(p)),
        (None, Some(t)) => Ok(Source::Text(t)),
        (Some(_), Some(_)) => Err(Error::invalid_request(
            "`path` and `text` are both given; expected one of them",
        )),
        (None, None) => Err(Error::invalid_request(
            "neither `path` (a trace file, plain or gzip) nor `text` (the trace JSON) is given; \
             expected one of them",
        )),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InfoRequest<'a> {
    #[serde(borrow, default)]
    path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(default)]
    reader: Reader,
}

/// `{"path"|"text", "reader"?}` → the capture's facts by format
/// (`opguard_formats::Info`, what `opguard trace info` prints: `"format"`
/// names it: `chrome_json`, `nsys_sqlite`, `rocprofv3_csv`, `rocprofv3_json`,
/// `rocpd_sqlite`, `xspace`; `text` is a Chrome trace).
pub(crate) fn info(request: &str) -> Result<String, Error> {
    let r: InfoRequest<'_> = parse("trace_info", request)?;
    let info = match source(&r.path, &r.text)? {
        Source::Path(p) => {
            opguard_formats::info(p, &r.reader.read_options(ModelOptions::launches_only()))
                .map_err(|e| Error::capture(&e).in_input(p.to_owned()))?
        }
        Source::Text(t) => TraceReader::with_options(t.as_bytes(), r.reader.options())
            .and_then(|reader| trace_info(reader, &mut |_| {}))
            .map(opguard_formats::Info::ChromeJson)
            .map_err(|e| Error::trace(&e).in_input("text"))?,
    };
    Ok(ok(&info))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ArtifactRequest<'a> {
    #[serde(borrow, default)]
    path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    stage: Option<String>,
    #[serde(borrow, default)]
    provider: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegionsRequest<'a> {
    #[serde(borrow)]
    artifacts: Vec<ArtifactRequest<'a>>,
    #[serde(default)]
    top: Option<usize>,
    #[serde(default)]
    reader: Reader,
}

/// `{"artifacts": [{"path"|"text", "role"?, "stage"?, "provider"?}], "top"?, "reader"?}`
/// → `{"regions": [one per artifact], "aggregate": …, "warnings": [{"input":
/// "artifacts[i]", "code", "offset", "complete_events", "message", …}]}`.
pub(crate) fn launch_regions(request: &str) -> Result<String, Error> {
    let r: RegionsRequest<'_> = parse("trace_launch_regions", request)?;
    if r.artifacts.is_empty() {
        return Err(Error::invalid_request(
            "`artifacts` is empty; expected at least one trace",
        ));
    }
    let options = r.reader.read_options(ModelOptions::launches_only());
    let top = r.top.unwrap_or(DEFAULT_TOP_KERNELS);
    let mut regions = Vec::with_capacity(r.artifacts.len());
    let mut warnings = Vec::new();
    for (i, a) in r.artifacts.iter().enumerate() {
        let input = format!("artifacts[{i}]");
        let mut spec = ArtifactSpec::new();
        if let Some(role) = &a.role {
            spec = spec.role(role.clone());
        }
        if let Some(stage) = &a.stage {
            spec = spec.stage(stage.clone());
        }
        if let Some(name) = &a.provider {
            let provider = Provider::from_name(name).ok_or_else(|| {
                Error::invalid_request(format!(
                    "{input}.provider is {name:?}; expected one of {}",
                    Provider::names()
                ))
                .with("input", input.clone())
            })?;
            spec = spec.provider(provider);
        }
        let src = source(&a.path, &a.text).map_err(|e| e.in_input(input.clone()))?;
        // A file is read through the door (an Nsight Systems export is
        // streamed row by row); text is a Chrome trace.
        let (region, read_warnings) = match src {
            Source::Path(p) => {
                opguard_formats::launch_region(p, spec, &options, top, &mut |_, _| {})
                    .map(|read| (read.region, read.warnings))
            }
            Source::Text(t) => TraceReader::with_options(t.as_bytes(), options.reader.clone())
                .and_then(|reader| {
                    opguard_trace::model_from_reader(reader, spec, &options.model, &mut |_, _| {})
                })
                .map(|model| (launch_region(&model, top), model.summary().warnings.clone()))
                .map_err(opguard_formats::Error::from),
        }
        .map_err(|e| Error::capture(&e).in_input(input.clone()))?;
        regions.push(region);
        warnings.extend(read_warnings.into_iter().map(|warning| InputWarning {
            input: input.clone(),
            warning,
        }));
    }
    /// What the reader accepted in one artifact (`array_unterminated`;
    /// `truncated` and the like under salvage), as trace info reports it.
    #[derive(Serialize)]
    struct InputWarning {
        input: String,
        #[serde(flatten)]
        warning: opguard_trace::ReadWarning,
    }
    #[derive(Serialize)]
    struct Regions<'a> {
        regions: &'a [opguard_model::analysis::LaunchRegion],
        aggregate: opguard_model::analysis::RegionAggregate,
        warnings: Vec<InputWarning>,
    }
    Ok(ok(&Regions {
        regions: &regions,
        aggregate: aggregate(&regions)
            .map_err(|e| Error::new(format!("trace.{}", e.code()), e.to_string()))?,
        warnings,
    }))
}
