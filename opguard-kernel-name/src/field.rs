//! The fields of a canonical form's JSON answer, and projections onto some of them.

use serde::ser::{SerializeMap, Serializer};

use crate::canonical::{Canonical, IDENTITY_SCHEME};

/// One field of a [`Canonical`]'s JSON answer (its [`Field::name`] is the key).
///
/// [`Field::ALL`] is the whole answer, in serialization order; [`Field::COMPACT`]
/// is what a caller naming kernels per event needs, without the parts that grow
/// with a symbol's length twice over (the echoed symbol, the demangled text and
/// the template argument list, which [`Field::Identity`] already carries).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// `symbol`: the symbol exactly as given.
    Symbol,
    /// `base`: [`Canonical::base`].
    Base,
    /// `qualification`: [`Canonical::qualification`] (raw text) or null.
    Qualification,
    /// `short_name`: [`Canonical::short_name`].
    ShortName,
    /// `template`: `{kind, args, partial}` ([`Canonical::template`]).
    Template,
    /// `annotation`: [`Canonical::annotation`] or null.
    Annotation,
    /// `truncated`: [`Canonical::is_truncated`].
    Truncated,
    /// `degenerate`: [`Canonical::is_degenerate`].
    Degenerate,
    /// `memory_op`: `{kind, direction}` or null.
    MemoryOp,
    /// `mangling`: [`Canonical::mangling`].
    Mangling,
    /// `demangled`: [`Canonical::demangled`] or null.
    Demangled,
    /// `identity`: [`Canonical::identity`].
    Identity,
    /// `identity_scheme`: [`IDENTITY_SCHEME`].
    IdentityScheme,
}

impl Field {
    /// Every field, in the order the full answer has them.
    pub const ALL: [Field; 13] = [
        Field::Symbol,
        Field::Base,
        Field::Qualification,
        Field::ShortName,
        Field::Template,
        Field::Annotation,
        Field::Truncated,
        Field::Degenerate,
        Field::MemoryOp,
        Field::Mangling,
        Field::Demangled,
        Field::Identity,
        Field::IdentityScheme,
    ];

    /// The compact answer: identity, display name, base and qualification,
    /// annotation, memory operation, mangling and the two flags.
    pub const COMPACT: [Field; 9] = [
        Field::Base,
        Field::Qualification,
        Field::ShortName,
        Field::Annotation,
        Field::Truncated,
        Field::Degenerate,
        Field::MemoryOp,
        Field::Mangling,
        Field::Identity,
    ];

    /// The fields a symbol case of the parity fixture
    /// (`fixtures/kernel-name/kernel_symbols.json`) expects, and a runner in
    /// any language compares: the whole answer but the echoed symbol, the
    /// demangled text and the identity scheme (the file states it once).
    pub const FIXTURE: [Field; 10] = [
        Field::Base,
        Field::Qualification,
        Field::Template,
        Field::Annotation,
        Field::MemoryOp,
        Field::Mangling,
        Field::Degenerate,
        Field::Truncated,
        Field::ShortName,
        Field::Identity,
    ];

    /// The JSON key.
    pub fn name(self) -> &'static str {
        match self {
            Field::Symbol => "symbol",
            Field::Base => "base",
            Field::Qualification => "qualification",
            Field::ShortName => "short_name",
            Field::Template => "template",
            Field::Annotation => "annotation",
            Field::Truncated => "truncated",
            Field::Degenerate => "degenerate",
            Field::MemoryOp => "memory_op",
            Field::Mangling => "mangling",
            Field::Demangled => "demangled",
            Field::Identity => "identity",
            Field::IdentityScheme => "identity_scheme",
        }
    }

    /// The field with JSON key `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Field> {
        Field::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The fields named, in the order given: each a known JSON key, none twice.
    pub fn list<'n>(
        names: impl IntoIterator<Item = &'n str>,
    ) -> Result<Vec<Field>, FieldListError> {
        let mut picked = Vec::new();
        for name in names {
            let field =
                Field::from_name(name).ok_or_else(|| FieldListError::Unknown(name.to_owned()))?;
            if picked.contains(&field) {
                return Err(FieldListError::Repeated(name.to_owned()));
            }
            picked.push(field);
        }
        Ok(picked)
    }
}

/// Why [`Field::list`] refused a list of field names.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FieldListError {
    /// A name that is not a field's JSON key.
    #[error("{0:?} is not a field; expected some of {names}", names = all_names())]
    Unknown(String),
    /// A field named twice.
    #[error("{0:?} is named twice")]
    Repeated(String),
}

fn all_names() -> String {
    let names: Vec<&str> = Field::ALL.iter().map(|f| f.name()).collect();
    names.join(", ")
}

/// A canonical form shown with some of its fields, in the order given; see
/// [`Canonical::project`].
#[derive(Clone, Copy, Debug)]
pub struct Projection<'c, 'a> {
    canonical: &'c Canonical<'a>,
    fields: &'c [Field],
}

impl<'a> Canonical<'a> {
    /// This canonical form serialized with `fields` only, in that order
    /// (`project(&Field::ALL)` serializes as the canonical form itself).
    pub fn project<'c>(&'c self, fields: &'c [Field]) -> Projection<'c, 'a> {
        Projection {
            canonical: self,
            fields,
        }
    }
}

impl serde::Serialize for Projection<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let c = self.canonical;
        let mut map = serializer.serialize_map(Some(self.fields.len()))?;
        for &field in self.fields {
            let key = field.name();
            match field {
                Field::Symbol => map.serialize_entry(key, c.symbol())?,
                Field::Base => map.serialize_entry(key, c.base())?,
                Field::Qualification => map.serialize_entry(key, &c.qualification())?,
                Field::ShortName => map.serialize_entry(key, &*c.short_name())?,
                Field::Template => map.serialize_entry(key, c.template())?,
                Field::Annotation => map.serialize_entry(key, &c.annotation())?,
                Field::Truncated => map.serialize_entry(key, &c.is_truncated())?,
                Field::Degenerate => map.serialize_entry(key, &c.is_degenerate())?,
                Field::MemoryOp => map.serialize_entry(key, &c.memory_op())?,
                Field::Mangling => map.serialize_entry(key, c.mangling().as_str())?,
                Field::Demangled => map.serialize_entry(key, &c.demangled())?,
                Field::Identity => map.serialize_entry(key, &c.identity())?,
                Field::IdentityScheme => map.serialize_entry(key, IDENTITY_SCHEME)?,
            }
        }
        map.end()
    }
}

impl serde::Serialize for Canonical<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.project(&Field::ALL).serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonicalize;

    #[test]
    fn names_round_trip_and_lists_refuse_unknown_and_repeated_names() {
        for field in Field::ALL {
            assert_eq!(Field::from_name(field.name()), Some(field));
        }
        assert_eq!(
            Field::list(["identity", "base"]),
            Ok(vec![Field::Identity, Field::Base])
        );
        let unknown = Field::list(["identity", "colour"]).unwrap_err();
        assert_eq!(unknown, FieldListError::Unknown("colour".into()));
        assert!(unknown.to_string().contains("identity_scheme"), "{unknown}");
        assert_eq!(
            Field::list(["base", "base"]),
            Err(FieldListError::Repeated("base".into()))
        );
    }

    #[test]
    fn a_projection_shows_the_full_answers_values() {
        let c = canonicalize("void (anonymous namespace)::clamp_position_kernel<long>(long*, int)");
        let full = serde_json::to_value(&c).unwrap();
        assert_eq!(full.as_object().unwrap().len(), Field::ALL.len());
        let compact = serde_json::to_value(c.project(&Field::COMPACT)).unwrap();
        assert_eq!(compact.as_object().unwrap().len(), Field::COMPACT.len());
        for field in Field::COMPACT {
            assert_eq!(
                compact[field.name()],
                full[field.name()],
                "{}",
                field.name()
            );
        }
        assert_eq!(full["identity"], "clamp_position_kernel<long>");
    }
}
