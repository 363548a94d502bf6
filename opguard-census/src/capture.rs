//! `opguard.census/capture-v1` records: parsing and validation.

use std::io::Read;
use std::path::Path;

use crate::error::{Error, ErrorKind};
use crate::expr::{self, Tok};
use crate::json::{self, Ctx, Document, JPath, DEFAULT_MAX_BYTES, J};

/// The crate's internal maps, keyed by short strings and integers of one
/// capture: foldhash (the workspace's fast hasher), seeded per map.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// The one capture format this crate reads.
pub const CAPTURE_FORMAT: &str = "opguard.census/capture-v1";

/// The smallest step width at which torch can leave a size symbolic: it specialises
/// sizes 0 and 1 to constants.
pub const MIN_SYMBOLIC_WIDTH: u64 = 2;

const TOP_FIELDS: &[&str] = &[
    "format",
    "label",
    "step_axis",
    "step_hint",
    "step_axis_hint",
    "frames_order",
    "ops",
    "guards",
    "replacements",
    "host_resolutions",
    // The seed's own record names (seed 004's capture script), read as the fields
    // they mean; see `SEED_NAMES`.
    "step_symbol",
    "shape_env_guards",
    "shape_env_replacements",
];

/// Seed 004's record names for capture-v1 fields: `(seed name, capture-v1 name)`.
/// `step_axis_hint` → `step_hint` is read beside them (both at once must agree);
/// `step_symbol` (a boolean) must agree with whether `step_axis` is a symbol.
const SEED_NAMES: &[(&str, &str)] = &[
    ("shape_env_guards", "guards"),
    ("shape_env_replacements", "replacements"),
];

/// One entry of a tensor shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim<'c> {
    /// A concrete size (never negative).
    Int(i64),
    /// A symbolic expression as torch printed it: `s0`, `s0 + 1`, `28*s0`.
    Symbolic(&'c str),
    /// Unknown (`null` in the capture). Counted as non-numeric: an unknown entry
    /// could be anything, including the width in disguise.
    Unknown,
}

impl Dim<'_> {
    /// Whether this entry is a plain integer.
    pub fn is_numeric(&self) -> bool {
        matches!(self, Dim::Int(_))
    }
}

/// The stored form of an entry: symbolic expressions are interned per capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    Int(i64),
    Expr(u32),
    Unknown,
}

/// The value a symbol was replaced by (`replacements` in torch's `ShapeEnv`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Replacement {
    /// Solved to a number: a specialisation.
    Number(i64),
    /// Another expression; a bare symbol here is a unification (`{"s52": "s0"}`).
    Expr(String),
}

/// Which end of a host resolution's `frames` is the innermost frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FramesOrder {
    /// `frames` runs outermost first, innermost last (the default; Python's
    /// `traceback.extract_stack` order).
    #[default]
    InnermostLast,
    /// `frames` runs innermost first.
    InnermostFirst,
}

/// One host-side conversion of a symbolic size to a Python number during the trace
/// (a `SymInt.__int__`/`__index__` call), with the frames it happened under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostResolution {
    frames: Vec<String>,
    value: i64,
}

impl HostResolution {
    /// The frames, as `file:line in function`, in the capture's declared order.
    pub fn frames(&self) -> &[String] {
        &self.frames
    }
    /// The number the size was converted to.
    pub fn value(&self) -> i64 {
        self.value
    }
    /// The innermost frame under `order`, or `None` when no frame was recorded.
    pub fn innermost(&self, order: FramesOrder) -> Option<&str> {
        match order {
            FramesOrder::InnermostLast => self.frames.last(),
            FramesOrder::InnermostFirst => self.frames.first(),
        }
        .map(String::as_str)
    }
}

#[derive(Clone, Debug)]
struct OpRec {
    name: u32,
    shapes_end: usize,
}

/// A parsed and validated `opguard.census/capture-v1` record.
///
/// Reading refuses, with a JSON path: unknown fields (a field of a later version is
/// never silently misread), duplicate keys, missing required fields (`guards`,
/// `replacements` and `host_resolutions` included: an absent log must not read as
/// an empty one), negative or fractional sizes, numbers written as strings, strings
/// that are not sympy expressions, and a step axis that is not a symbol
/// (code `step_axis_not_symbolic`).
///
/// `step_hint` is also accepted under the name `step_axis_hint`; both at once must
/// agree. The seed's other record names are read too: `shape_env_guards` and
/// `shape_env_replacements` as `guards` and `replacements` (one name per field),
/// and `step_symbol: true|false`, which must agree with `step_axis` (a symbol, or
/// null).
#[derive(Clone, Debug)]
pub struct Capture {
    label: String,
    step_axis: Option<String>,
    step_hint: u64,
    frames_order: FramesOrder,
    names: Vec<Box<str>>,
    ops: Vec<OpRec>,
    shapes: Vec<usize>,
    entries: Vec<Entry>,
    exprs: Vec<Box<str>>,
    guards: Vec<String>,
    replacements: Vec<(String, Replacement)>,
    host_resolutions: Vec<HostResolution>,
}

/// One operator call of a capture.
#[derive(Clone, Copy)]
pub struct OpView<'c> {
    capture: &'c Capture,
    index: usize,
}

impl<'c> OpView<'c> {
    /// The operator as torch printed it: `namespace.operator.overload`.
    pub fn name(&self) -> &'c str {
        &self.capture.names[self.capture.ops[self.index].name as usize]
    }
    /// The shapes of its tensor inputs then outputs.
    pub fn shapes(&self) -> impl ExactSizeIterator<Item = Shape<'c>> + 'c {
        let c = self.capture;
        let start = if self.index == 0 {
            0
        } else {
            c.ops[self.index - 1].shapes_end
        };
        let end = c.ops[self.index].shapes_end;
        (start..end).map(move |s| {
            let from = if s == 0 { 0 } else { c.shapes[s - 1] };
            Shape {
                capture: c,
                entries: &c.entries[from..c.shapes[s]],
            }
        })
    }
}

/// One tensor shape of an operator call.
#[derive(Clone, Copy)]
pub struct Shape<'c> {
    capture: &'c Capture,
    entries: &'c [Entry],
}

impl<'c> Shape<'c> {
    /// Number of entries (the tensor's rank).
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    /// Whether the shape has no entries (a scalar tensor).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// The entries in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Dim<'c>> + 'c {
        let c = self.capture;
        self.entries.iter().map(move |e| c.dim(*e))
    }
}

impl std::fmt::Debug for Shape<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl std::fmt::Debug for OpView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpView")
            .field("name", &self.name())
            .field("shapes", &self.shapes().collect::<Vec<_>>())
            .finish()
    }
}

impl Document for Capture {
    const KIND: &'static str = "capture";

    fn parse_as(bytes: &[u8], what: &str) -> Result<Capture, Error> {
        let tree = json::parse(bytes, DEFAULT_MAX_BYTES, what)?;
        let capture = read_capture(&Ctx { what }, &tree)?;
        capture.refuse_unless_width_can_be_symbolic()?;
        Ok(capture)
    }
}

impl Capture {
    /// Parse a capture from JSON bytes (at most [`DEFAULT_MAX_BYTES`]).
    pub fn from_slice(bytes: &[u8]) -> Result<Capture, Error> {
        <Capture as Document>::parse_as(bytes, Self::KIND)
    }

    /// Parse a capture from a reader, reading at most `limit` bytes (one more is
    /// a `limit_exceeded` document error, never a truncated parse).
    pub fn from_reader<R: Read>(reader: R, limit: u64) -> Result<Capture, Error> {
        json::load_reader(reader, limit)
    }

    /// Read and parse a capture file (at most [`DEFAULT_MAX_BYTES`]).
    pub fn from_path(path: impl AsRef<Path>) -> Result<Capture, Error> {
        json::load_path(path.as_ref())
    }

    /// The capture's label.
    pub fn label(&self) -> &str {
        &self.label
    }
    /// The declared step axis: the symbol of the step's width, `None` for a concrete
    /// capture (a control).
    pub fn step_axis(&self) -> Option<&str> {
        self.step_axis.as_deref()
    }
    /// The step width the capture was traced at.
    pub fn step_hint(&self) -> u64 {
        self.step_hint
    }
    /// Which end of each host resolution's frames is innermost.
    pub fn frames_order(&self) -> FramesOrder {
        self.frames_order
    }
    /// Number of operator calls.
    pub fn op_count(&self) -> usize {
        self.ops.len()
    }
    /// The operator calls in trace order.
    pub fn ops(&self) -> impl ExactSizeIterator<Item = OpView<'_>> + '_ {
        (0..self.ops.len()).map(move |index| OpView {
            capture: self,
            index,
        })
    }
    /// The guards, as torch printed them.
    pub fn guards(&self) -> &[String] {
        &self.guards
    }
    /// The replacements, in document order.
    pub fn replacements(&self) -> &[(String, Replacement)] {
        &self.replacements
    }
    /// The host-resolution log.
    pub fn host_resolutions(&self) -> &[HostResolution] {
        &self.host_resolutions
    }

    pub(crate) fn interned_names(&self) -> &[Box<str>] {
        &self.names
    }
    pub(crate) fn raw_ops(&self) -> impl Iterator<Item = (u32, &[usize])> + '_ {
        let mut start = 0;
        self.ops.iter().map(move |o| {
            let s = &self.shapes[start..o.shapes_end];
            start = o.shapes_end;
            (o.name, s)
        })
    }
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }
    pub(crate) fn exprs(&self) -> &[Box<str>] {
        &self.exprs
    }
    fn dim(&self, e: Entry) -> Dim<'_> {
        match e {
            Entry::Int(v) => Dim::Int(v),
            Entry::Expr(i) => Dim::Symbolic(&self.exprs[i as usize]),
            Entry::Unknown => Dim::Unknown,
        }
    }

    /// The refusal of seed 004 finding 5: a capture at a width torch specialises
    /// (0 or 1), or one whose declared axis is not a symbol, is not a symbolic capture
    /// and must not be readable as one.
    fn refuse_unless_width_can_be_symbolic(&self) -> Result<(), Error> {
        let refuse = |reason: String| {
            ErrorKind::StepAxisNotSymbolic {
                label: self.label.clone(),
                step_axis: self
                    .step_axis
                    .as_deref()
                    .map_or_else(|| "null".to_string(), |s| format!("{s:?}")),
                step_hint: self.step_hint,
                reason,
            }
            .into()
        };
        if self.step_hint < MIN_SYMBOLIC_WIDTH {
            let hint = self.step_hint;
            return Err(refuse(match &self.step_axis {
                Some(axis) => format!(
                    "it claims step axis {axis:?} at step width {hint}, but torch specialises a \
                     size of 0 or 1 to a constant, so no symbol can stand for the width here; the \
                     narrowest width that traces a symbol is {MIN_SYMBOLIC_WIDTH}"
                ),
                None => format!(
                    "its step width is {hint}, which torch specialises to a constant: the capture \
                     has no step symbol (step_axis is null) whatever mode traced it, so it cannot \
                     stand as a symbolic capture, and as a concrete control it cannot tell the \
                     width from the constant {hint}; trace at width {MIN_SYMBOLIC_WIDTH} or more"
                ),
            }));
        }
        Ok(())
    }
}

fn read_capture(ctx: &Ctx, tree: &J) -> Result<Capture, Error> {
    let root = JPath::Root;
    // The format first, so a family table or anything else offered as a capture
    // is named for what it is before its fields are read.
    let found_format = match tree {
        J::Object(entries) => entries
            .iter()
            .find(|(k, _)| &**k == "format")
            .map(|(_, v)| v),
        other => return Err(ctx.wrong_type(&root, other, "a capture object")),
    };
    match found_format {
        Some(J::Str(f)) if &**f == CAPTURE_FORMAT => {}
        Some(J::Str(f)) => return Err(wrong_format(ctx, format!("{f:?}"))),
        Some(other) => return Err(wrong_format(ctx, other.type_name().to_string())),
        None => return Err(wrong_format(ctx, "absent (no format field)".into())),
    }
    let f = ctx.fields(&root, tree, TOP_FIELDS, "a capture object")?;
    for (seed, ours) in SEED_NAMES {
        if f.get(seed).is_some() && f.get(ours).is_some() {
            return Err(ErrorKind::ConflictingFields {
                what: ctx.what.to_string(),
                first: (*ours).into(),
                second: (*seed).into(),
                problem: format!("{seed} is the seed's name for {ours}; give one of them"),
            }
            .into());
        }
    }
    // A required field may come under its seed name.
    let req = |key: &'static str| match SEED_NAMES
        .iter()
        .find(|(seed, ours)| *ours == key && f.get(seed).is_some())
    {
        Some((seed, _)) => f.require(ctx, &root, seed),
        None => f.require(ctx, &root, key),
    };

    let label = ctx
        .non_empty_string(&root.key("label"), req("label")?, "a non-empty string")?
        .to_string();

    let hint_expected = "the step width traced, a non-negative integer";
    let hint_a = f.get("step_hint");
    let hint_b = f.get("step_axis_hint");
    let step_hint = match (hint_a, hint_b) {
        (Some(a), Some(b)) => {
            let a = ctx.u64(&root.key("step_hint"), a, hint_expected)?;
            let b = ctx.u64(&root.key("step_axis_hint"), b, hint_expected)?;
            if a != b {
                return Err(ErrorKind::ConflictingFields {
                    what: ctx.what.to_string(),
                    first: "step_hint".into(),
                    second: "step_axis_hint".into(),
                    problem: format!("{a} and {b}; give one, or the same number in both"),
                }
                .into());
            }
            a
        }
        (Some(a), None) => ctx.u64(&root.key("step_hint"), a, hint_expected)?,
        (None, Some(b)) => ctx.u64(&root.key("step_axis_hint"), b, hint_expected)?,
        (None, None) => return Err(ctx.missing(&root, "step_hint")),
    };

    let axis_path = root.key("step_axis");
    let step_axis = match req("step_axis")? {
        J::Null => None,
        J::Str(s) => match expr::bare_symbol(s) {
            Some(sym) => Some(sym.to_string()),
            None => {
                return Err(ErrorKind::StepAxisNotSymbolic {
                    label,
                    step_axis: format!("{s:?}"),
                    step_hint,
                    reason: format!(
                        "it claims step axis {s:?}, which is not a symbol{}; torch specialises \
                         sizes 0 and 1 to constants, and a step axis that is a number or an \
                         expression means the width was not traced as a symbol",
                        if expr::integer_literal(s).is_some() {
                            " but a number"
                        } else {
                            ""
                        }
                    ),
                }
                .into())
            }
        },
        J::Int(i) => {
            return Err(ErrorKind::StepAxisNotSymbolic {
                label,
                step_axis: i.to_string(),
                step_hint,
                reason: format!(
                    "it claims step axis {i}, a number, not a symbol: torch specialises sizes 0 \
                     and 1 to constants, so the width was traced as the constant {i}"
                ),
            }
            .into())
        }
        other => return Err(ctx.wrong_type(&axis_path, other, "a symbol name or null")),
    };

    match f.get("step_symbol") {
        None => {}
        Some(J::Bool(claimed)) if *claimed == step_axis.is_some() => {}
        Some(J::Bool(claimed)) => {
            return Err(ErrorKind::ConflictingFields {
                what: ctx.what.to_string(),
                first: "step_symbol".into(),
                second: "step_axis".into(),
                problem: format!(
                    "step_symbol is {claimed} but step_axis is {}",
                    step_axis
                        .as_deref()
                        .map_or("null".to_string(), |a| format!("the symbol {a:?}"))
                ),
            }
            .into())
        }
        Some(other) => {
            return Err(ctx.wrong_type(&root.key("step_symbol"), other, "true or false"))
        }
    }

    let frames_order = match f.get("frames_order") {
        None => FramesOrder::default(),
        Some(v) => {
            let p = root.key("frames_order");
            match ctx.string(&p, v, "\"innermost_last\" or \"innermost_first\"")? {
                "innermost_last" => FramesOrder::InnermostLast,
                "innermost_first" => FramesOrder::InnermostFirst,
                other => {
                    return Err(ctx.invalid(
                        &p,
                        format!("{other:?} is not a frames order"),
                        "\"innermost_last\" or \"innermost_first\"",
                    ))
                }
            }
        }
    };

    let mut capture = Capture {
        label,
        step_axis,
        step_hint,
        frames_order,
        names: Vec::new(),
        ops: Vec::new(),
        shapes: Vec::new(),
        entries: Vec::new(),
        exprs: Vec::new(),
        guards: Vec::new(),
        replacements: Vec::new(),
        host_resolutions: Vec::new(),
    };
    read_ops(ctx, req("ops")?, &mut capture)?;
    capture.guards = read_guards(ctx, req("guards")?)?;
    capture.replacements = read_replacements(ctx, req("replacements")?)?;
    capture.host_resolutions = read_host_resolutions(ctx, req("host_resolutions")?)?;
    Ok(capture)
}

fn wrong_format(ctx: &Ctx, found: String) -> Error {
    ErrorKind::WrongFormat {
        what: ctx.what.to_string(),
        found,
        expected: CAPTURE_FORMAT,
    }
    .into()
}

fn valid_op_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|seg| !seg.is_empty())
        && name.chars().all(|c| !c.is_whitespace() && !c.is_control())
}

fn read_ops(ctx: &Ctx, v: &J, capture: &mut Capture) -> Result<(), Error> {
    let root = JPath::Root;
    let ops_path = root.key("ops");
    let items = ctx.array(&ops_path, v, "an array of operator calls")?;
    let mut intern: FastMap<&str, u32> = FastMap::default();
    let mut expr_ids: FastMap<&str, u32> = FastMap::default();
    let mut toks: Vec<Tok> = Vec::new();
    capture.ops.reserve(items.len());
    for (i, item) in items.iter().enumerate() {
        let op_path = ops_path.index(i);
        let f = ctx.fields(
            &op_path,
            item,
            &["name", "shapes"],
            "an operator call object",
        )?;
        let name_path = op_path.key("name");
        let name = ctx.string(
            &name_path,
            f.require(ctx, &op_path, "name")?,
            "the operator's name",
        )?;
        if !valid_op_name(name) {
            return Err(ctx.invalid(
                &name_path,
                format!("{name:?} is not an operator name"),
                "namespace.operator.overload with no empty part and no whitespace",
            ));
        }
        let id = match intern.get(name) {
            Some(&id) => id,
            None => {
                let id = capture.names.len() as u32;
                capture.names.push(name.into());
                intern.insert(name, id);
                id
            }
        };
        let shapes_path = op_path.key("shapes");
        let shapes = ctx.array(
            &shapes_path,
            f.require(ctx, &op_path, "shapes")?,
            "an array of shapes",
        )?;
        for (s, shape) in shapes.iter().enumerate() {
            let shape_path = shapes_path.index(s);
            let entries = ctx.array(&shape_path, shape, "a shape: an array of size entries")?;
            for (e, entry) in entries.iter().enumerate() {
                let dim = match entry {
                    J::Str(s) => match expr_ids.get(&**s) {
                        Some(&id) => Entry::Expr(id),
                        None => {
                            check_entry_expression(ctx, &shape_path.index(e), s, &mut toks)?;
                            let id = capture.exprs.len() as u32;
                            capture.exprs.push((**s).into());
                            expr_ids.insert(s, id);
                            Entry::Expr(id)
                        }
                    },
                    other => read_dim(ctx, &shape_path.index(e), other)?,
                };
                capture.entries.push(dim);
            }
            capture.shapes.push(capture.entries.len());
        }
        capture.ops.push(OpRec {
            name: id,
            shapes_end: capture.shapes.len(),
        });
    }
    Ok(())
}

const DIM_EXPECTED: &str = "a non-negative integer, a symbolic expression string, or null";

fn read_dim(ctx: &Ctx, path: &JPath, v: &J) -> Result<Entry, Error> {
    match v {
        J::Int(i) if *i >= 0 => Ok(Entry::Int(*i)),
        J::Int(i) => Err(ctx.invalid(path, format!("size {i} is negative"), DIM_EXPECTED)),
        J::BigUint(u) => Err(ctx.invalid(
            path,
            format!("size {u} is beyond the signed 64-bit range"),
            DIM_EXPECTED,
        )),
        J::Float(x) => Err(ctx.invalid(path, format!("size {x} is not an integer"), DIM_EXPECTED)),
        J::Null => Ok(Entry::Unknown),
        other => Err(ctx.wrong_type(path, other, DIM_EXPECTED)),
    }
}

fn check_entry_expression<'a>(
    ctx: &Ctx,
    path: &JPath,
    s: &'a str,
    toks: &mut Vec<Tok<'a>>,
) -> Result<(), Error> {
    check_expression(ctx, path, s, toks)?;
    if expr::integer_literal(s).is_some() {
        return Err(ctx.invalid(
            path,
            format!("{s:?} is a number written as a string"),
            "a concrete size written as a JSON integer",
        ));
    }
    Ok(())
}

fn check_expression<'a>(
    ctx: &Ctx,
    path: &JPath,
    s: &'a str,
    toks: &mut Vec<Tok<'a>>,
) -> Result<(), Error> {
    if expr::bare_symbol(s).is_some() {
        return Ok(());
    }
    expr::tokenize(s, toks).map_err(|problem| {
        ErrorKind::InvalidExpression {
            what: ctx.what.to_string(),
            path: path.to_string(),
            text: s.to_string(),
            problem,
        }
        .into()
    })
}

fn read_guards(ctx: &Ctx, v: &J) -> Result<Vec<String>, Error> {
    let path = JPath::Root.key("guards");
    let items = ctx.array(&path, v, "an array of guard strings")?;
    let mut toks = Vec::new();
    items
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let p = path.index(i);
            let s = ctx.string(&p, g, "a guard as torch printed it")?;
            check_expression(ctx, &p, s, &mut toks)?;
            Ok(s.to_string())
        })
        .collect()
}

fn read_replacements(ctx: &Ctx, v: &J) -> Result<Vec<(String, Replacement)>, Error> {
    let path = JPath::Root.key("replacements");
    let entries = ctx.object(&path, v, "an object mapping symbols to their replacements")?;
    let mut toks = Vec::new();
    let mut out = Vec::with_capacity(entries.len());
    for (k, val) in entries {
        let p = path.key(k);
        if expr::bare_symbol(k).is_none() {
            return Err(ctx.invalid(
                &p,
                format!("key {k:?} is not a symbol"),
                "each key a symbol that was replaced",
            ));
        }
        let r = match val {
            J::Int(i) => Replacement::Number(*i),
            J::Str(s) => {
                check_expression(ctx, &p, s, &mut toks)?;
                match expr::integer_literal(s) {
                    Some(n) => Replacement::Number(n),
                    None => Replacement::Expr(s.trim().to_string()),
                }
            }
            other => return Err(ctx.wrong_type(&p, other, "an expression string or an integer")),
        };
        out.push((k.to_string(), r));
    }
    Ok(out)
}

fn read_host_resolutions(ctx: &Ctx, v: &J) -> Result<Vec<HostResolution>, Error> {
    let path = JPath::Root.key("host_resolutions");
    let items = ctx.array(&path, v, "an array of host resolutions")?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let p = path.index(i);
        let f = ctx.fields(&p, item, &["frames", "value"], "a host resolution object")?;
        let frames_path = p.key("frames");
        let frames_v = f.require(ctx, &p, "frames")?;
        let frames = ctx
            .array(
                &frames_path,
                frames_v,
                "an array of \"file:line in function\" strings",
            )?
            .iter()
            .enumerate()
            .map(|(j, fr)| {
                ctx.non_empty_string(
                    &frames_path.index(j),
                    fr,
                    "a \"file:line in function\" string",
                )
                .map(str::to_string)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let value_path = p.key("value");
        let value = match f.require(ctx, &p, "value")? {
            J::Int(i) => *i,
            other => return Err(ctx.wrong_type(&value_path, other, "an integer")),
        };
        out.push(HostResolution { frames, value });
    }
    Ok(out)
}
