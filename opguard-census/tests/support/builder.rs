//! Builds constructed captures from a recipe: rows of `(operator, count, shapes)`
//! whose shape entries are constants or the step (`s`, `k*s`, `s + k`). The same
//! recipe yields the symbolic capture at any width, under any symbol name, and the
//! concrete control (the step written as its number). Nothing here knows the
//! figures the tests pin: they come out of the census.

use serde_json::{json, Value};

/// One shape entry of a recipe.
#[derive(Clone, Copy, Debug)]
pub enum E {
    /// A constant size.
    C(i64),
    /// The step.
    S,
    /// `k*s`.
    Times(i64),
    /// `s + k`.
    Plus(i64),
}

/// Which captures a row appears in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Only {
    Both,
    Symbolic,
    Control,
}

/// `count` calls of `name`, each with `shapes`.
#[derive(Clone, Debug)]
pub struct Row {
    pub name: &'static str,
    pub count: usize,
    pub shapes: Vec<Vec<E>>,
    pub only: Only,
}

pub fn row(name: &'static str, count: usize, shapes: Vec<Vec<E>>) -> Row {
    Row {
        name,
        count,
        shapes,
        only: Only::Both,
    }
}

pub fn only(mut r: Row, only: Only) -> Row {
    r.only = only;
    r
}

/// How to write one capture.
pub struct Shot<'a> {
    pub label: &'a str,
    pub width: i64,
    /// `None` for the concrete control.
    pub symbol: Option<&'a str>,
    /// Guards, with `{s}` for the step symbol and `{a}` for its alias.
    pub guards: &'a [&'a str],
    /// An alias unified with the step (`{"alias": "symbol"}` in replacements).
    pub alias: Option<&'a str>,
    /// Host resolutions: (innermost frame, conversions), each under one outer frame.
    pub host_lines: &'a [(String, u64)],
}

fn entry(e: E, width: i64, symbol: Option<&str>) -> Value {
    match (e, symbol) {
        (E::C(v), _) => json!(v),
        (E::S, Some(s)) => json!(s),
        (E::S, None) => json!(width),
        (E::Times(k), Some(s)) => json!(format!("{k}*{s}")),
        (E::Times(k), None) => json!(k * width),
        (E::Plus(k), Some(s)) => json!(format!("{s} + {k}")),
        (E::Plus(k), None) => json!(width + k),
    }
}

/// Write the capture as a `capture-v1` JSON value.
pub fn build(rows: &[Row], shot: &Shot) -> Value {
    let mut ops = Vec::new();
    for r in rows {
        let wanted = match r.only {
            Only::Both => true,
            Only::Symbolic => shot.symbol.is_some(),
            Only::Control => shot.symbol.is_none(),
        };
        if !wanted {
            continue;
        }
        let shapes: Vec<Value> = r
            .shapes
            .iter()
            .map(|s| {
                Value::Array(
                    s.iter()
                        .map(|&e| entry(e, shot.width, shot.symbol))
                        .collect(),
                )
            })
            .collect();
        for _ in 0..r.count {
            ops.push(json!({"name": r.name, "shapes": shapes.clone()}));
        }
    }
    let sym = shot.symbol.unwrap_or("");
    let alias = shot.alias.unwrap_or("");
    let guards: Vec<String> = if shot.symbol.is_some() {
        shot.guards
            .iter()
            .map(|g| g.replace("{s}", sym).replace("{a}", alias))
            .collect()
    } else {
        Vec::new()
    };
    let mut replacements = serde_json::Map::new();
    if let (Some(s), Some(a)) = (shot.symbol, shot.alias) {
        replacements.insert(a.to_string(), json!(s));
    }
    let mut host = Vec::new();
    if shot.symbol.is_some() {
        for (line, n) in shot.host_lines {
            for _ in 0..*n {
                host.push(json!({
                    "frames": ["atom/model_engine/model_runner.py:3254 in run_model", line],
                    "value": shot.width,
                }));
            }
        }
    }
    json!({
        "format": "opguard.census/capture-v1",
        "label": shot.label,
        "step_axis": shot.symbol,
        "step_hint": shot.width,
        "ops": ops,
        "guards": guards,
        "replacements": replacements,
        "host_resolutions": host,
    })
}

/// Parse a built value.
pub fn parse(v: &Value) -> opguard_census::Capture {
    opguard_census::Capture::from_slice(&serde_json::to_vec(v).unwrap()).unwrap()
}

/// Index of the first op named `name`.
pub fn first_op(v: &Value, name: &str) -> usize {
    v["ops"]
        .as_array()
        .unwrap()
        .iter()
        .position(|o| o["name"] == name)
        .unwrap()
}
