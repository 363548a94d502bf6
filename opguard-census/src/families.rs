//! Operator families: `opguard.census/families-v1` tables and whole-name matching.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use crate::error::{Error, ErrorKind};
use crate::json::{self, Ctx, Document, JPath, J};

/// The one family-table format this crate reads.
pub const FAMILIES_FORMAT: &str = "opguard.census/families-v1";

/// The family name the census reserves for operators no family names.
pub const UNCLASSIFIED: &str = "unclassified";

/// The default table, shipped with the crate as `families.default.json`.
pub const DEFAULT_FAMILIES_JSON: &str = include_str!("../families.default.json");

/// An operator's name with the overload dropped, which is what families match.
///
/// torch prints an operator as `namespace.operator.overload`; the overload says how
/// it was called, not what it does, so a three-part name loses its last part
/// (`aten.add.Tensor` → `aten.add`, `profiler._record_function_exit._RecordFunction` →
/// `profiler._record_function_exit`). Any other name is matched whole. Nothing is
/// matched by prefix: `aten.addmm.default` is `aten.addmm`, which is not `aten.add`.
pub fn operator_base_name(name: &str) -> &str {
    let mut dots = name.match_indices('.').map(|(i, _)| i);
    match (dots.next(), dots.next(), dots.next()) {
        (Some(_), Some(second), None) => &name[..second],
        _ => name,
    }
}

/// A table of operator families.
///
/// JSON form (`opguard.census/families-v1`):
///
/// ```json
/// {"format": "opguard.census/families-v1",
///  "description": "optional",
///  "families": [
///    {"family": "gemm", "description": "optional", "operators": ["aten.mm", "aiter.gemm_a16w16"]},
///    {"family": "elementwise", "operators": ["aten.add", "aten.mul"]}
///  ]}
/// ```
///
/// Each operator entry is a whole name without its overload (`aten.add`, never
/// `aten.add.Tensor`, never a prefix such as `_c10d_functional.`). An operator may
/// belong to one family only; a family may be defined once; `unclassified` is
/// reserved. Families are reported in table order.
#[derive(Clone, Debug)]
pub struct FamilyTable {
    families: Vec<Family>,
    by_operator: HashMap<String, usize>,
}

#[derive(Clone, Debug)]
struct Family {
    name: String,
    operators: Vec<String>,
}

impl Default for FamilyTable {
    fn default() -> Self {
        Self::default_table()
    }
}

impl FamilyTable {
    /// The table shipped with the crate ([`DEFAULT_FAMILIES_JSON`]): common `aten`,
    /// `c10d`/`_c10d_functional`, `aiter` and `profiler` operators.
    pub fn default_table() -> FamilyTable {
        #[allow(clippy::expect_used)]
        <FamilyTable as Document>::parse_as(
            DEFAULT_FAMILIES_JSON.as_bytes(),
            "default family table",
        )
        .expect("the bundled families.default.json is valid (tested by default_table_parses)")
    }

    /// Parse a table from JSON bytes.
    pub fn from_slice(bytes: &[u8]) -> Result<FamilyTable, Error> {
        <FamilyTable as Document>::parse_as(bytes, Self::KIND)
    }

    /// Parse a table from a reader, reading at most `limit` bytes.
    pub fn from_reader<R: Read>(reader: R, limit: u64) -> Result<FamilyTable, Error> {
        json::load_reader(reader, limit)
    }

    /// Read and parse a table file (at most [`crate::DEFAULT_MAX_BYTES`]).
    pub fn from_path(path: impl AsRef<Path>) -> Result<FamilyTable, Error> {
        json::load_path(path.as_ref())
    }

    /// Build a table in code: `(family, operators)` pairs, validated as a file is.
    pub fn from_families<F, O, S>(families: F) -> Result<FamilyTable, Error>
    where
        F: IntoIterator<Item = (S, O)>,
        O: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut table = FamilyTable {
            families: Vec::new(),
            by_operator: HashMap::new(),
        };
        let ctx = Ctx {
            what: "family table",
        };
        for (i, (name, ops)) in families.into_iter().enumerate() {
            let root = JPath::Root;
            let fams = root.key("families");
            let p = fams.index(i);
            let name = name.into();
            table.add_family(&ctx, &p, name)?;
            let ops_path = p.key("operators");
            for (j, op) in ops.into_iter().enumerate() {
                table.add_operator(&ctx, &ops_path.index(j), op.into())?;
            }
        }
        Ok(table)
    }
}

impl Document for FamilyTable {
    const KIND: &'static str = "family table";

    fn parse_as(bytes: &[u8], what: &str) -> Result<FamilyTable, Error> {
        let tree = json::parse(bytes, u64::MAX, what)?;
        let ctx = Ctx { what };
        let root = JPath::Root;
        let f = ctx.fields(
            &root,
            &tree,
            &["format", "description", "families"],
            "a family table object",
        )?;
        match f.get("format") {
            Some(J::Str(s)) if &**s == FAMILIES_FORMAT => {}
            found => {
                return Err(ErrorKind::WrongFormat {
                    what: what.to_string(),
                    found: match found {
                        Some(J::Str(s)) => format!("{s:?}"),
                        Some(other) => other.type_name().to_string(),
                        None => "absent (no format field)".into(),
                    },
                    expected: FAMILIES_FORMAT,
                }
                .into())
            }
        }
        if let Some(d) = f.get("description") {
            ctx.string(&root.key("description"), d, "a string")?;
        }
        let fams_path = root.key("families");
        let fams = ctx.array(
            &fams_path,
            f.require(&ctx, &root, "families")?,
            "an array of families",
        )?;
        let mut table = FamilyTable {
            families: Vec::with_capacity(fams.len()),
            by_operator: HashMap::new(),
        };
        for (i, fam) in fams.iter().enumerate() {
            let p = fams_path.index(i);
            let ff = ctx.fields(
                &p,
                fam,
                &["family", "description", "operators"],
                "a family object",
            )?;
            let name_path = p.key("family");
            let name = ctx.non_empty_string(
                &name_path,
                ff.require(&ctx, &p, "family")?,
                "the family's name",
            )?;
            if let Some(d) = ff.get("description") {
                ctx.string(&p.key("description"), d, "a string")?;
            }
            table.add_family(&ctx, &p, name.to_string())?;
            let ops_path = p.key("operators");
            let ops = ctx.array(
                &ops_path,
                ff.require(&ctx, &p, "operators")?,
                "an array of operator names",
            )?;
            for (j, op) in ops.iter().enumerate() {
                let op_path = ops_path.index(j);
                let op = ctx.string(&op_path, op, "an operator name")?;
                table.add_operator(&ctx, &op_path, op.to_string())?;
            }
        }
        Ok(table)
    }
}

impl FamilyTable {
    fn add_family(&mut self, ctx: &Ctx, path: &JPath, name: String) -> Result<(), Error> {
        let name_path = path.key("family");
        if name.trim().is_empty() {
            return Err(ctx.invalid(&name_path, "the name is empty".into(), "a family name"));
        }
        if name == UNCLASSIFIED {
            return Err(ctx.invalid(
                &name_path,
                format!("{UNCLASSIFIED:?} is reserved for operators no family names"),
                "another family name",
            ));
        }
        if self.families.iter().any(|f| f.name == name) {
            return Err(ErrorKind::DuplicateFamily {
                what: ctx.what.to_string(),
                family: name,
                path: name_path.to_string(),
            }
            .into());
        }
        self.families.push(Family {
            name,
            operators: Vec::new(),
        });
        Ok(())
    }

    fn add_operator(&mut self, ctx: &Ctx, path: &JPath, op: String) -> Result<(), Error> {
        let expected = "a whole operator name without its overload, such as \"aten.add\"";
        let parts: Vec<&str> = op.split('.').collect();
        if op.is_empty()
            || parts.iter().any(|p| p.is_empty())
            || op
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || c == '*')
        {
            return Err(ctx.invalid(
                path,
                format!(
                    "{op:?} is not a whole operator name (prefixes and wildcards are not matched)"
                ),
                expected,
            ));
        }
        if parts.len() == 3 {
            return Err(ctx.invalid(
                path,
                format!(
                    "{op:?} names an overload; operators are matched with the overload dropped, so \
                     this entry could never match"
                ),
                expected,
            ));
        }
        let family = self.families.len() - 1;
        if let Some(&prev) = self.by_operator.get(&op) {
            return Err(ErrorKind::DuplicateOperator {
                what: ctx.what.to_string(),
                operator: op,
                first_family: self.families[prev].name.clone(),
                second_family: self.families[family].name.clone(),
                path: path.to_string(),
            }
            .into());
        }
        self.families[family].operators.push(op.clone());
        self.by_operator.insert(op, family);
        Ok(())
    }

    /// The family of an operator call, by its whole name with the overload dropped;
    /// `None` when it is unclassified.
    pub fn family_of(&self, operator: &str) -> Option<&str> {
        self.family_index(operator)
            .map(|i| self.families[i].name.as_str())
    }

    pub(crate) fn family_index(&self, operator: &str) -> Option<usize> {
        self.by_operator.get(operator_base_name(operator)).copied()
    }

    /// The families in table order, each with its operator names.
    pub fn families(&self) -> impl ExactSizeIterator<Item = (&str, &[String])> {
        self.families
            .iter()
            .map(|f| (f.name.as_str(), f.operators.as_slice()))
    }

    /// Number of families.
    pub fn len(&self) -> usize {
        self.families.len()
    }

    /// Whether the table has no families.
    pub fn is_empty(&self) -> bool {
        self.families.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_table_parses() {
        let t = FamilyTable::from_slice(DEFAULT_FAMILIES_JSON.as_bytes()).unwrap();
        assert!(t.len() > 10);
        assert_eq!(t.family_of("aten.mm.default"), Some("gemm"));
    }

    #[test]
    fn base_names_drop_only_an_overload() {
        assert_eq!(operator_base_name("aten.add.Tensor"), "aten.add");
        assert_eq!(operator_base_name("aten.addmm.default"), "aten.addmm");
        assert_eq!(operator_base_name("aten.add"), "aten.add");
        assert_eq!(operator_base_name("cond"), "cond");
        assert_eq!(operator_base_name("a.b.c.d"), "a.b.c.d");
    }
}
