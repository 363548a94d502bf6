//! The version gate: the export's own metadata (product and schema
//! versions), and the schemas this reader was checked against.

use std::fmt;

use rusqlite::Connection;

use crate::error::{Error, ErrorKind};

/// An export schema version (`EXPORT_SCHEMA_VERSION`, e.g. `3.24.14`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SchemaVersion {
    /// Major: a change NVIDIA documents as breaking.
    pub major: u32,
    /// Minor: may rename or retype columns.
    pub minor: u32,
    /// Micro.
    pub micro: u32,
}

impl SchemaVersion {
    /// `major.minor.micro`, each a decimal number.
    pub fn parse(text: &str) -> Option<SchemaVersion> {
        let mut parts = text.trim().split('.');
        let mut next = || -> Option<u32> {
            let part = parts.next()?;
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            part.parse().ok()
        };
        let version = SchemaVersion {
            major: next()?,
            minor: next()?,
            micro: next()?,
        };
        parts.next().is_none().then_some(version)
    }
}

impl fmt::Display for SchemaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.micro)
    }
}

impl serde::Serialize for SchemaVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// One real export the reader was checked against: the product version that
/// wrote it and its schema.
#[derive(Debug, Clone, Copy)]
pub struct VerifiedExport {
    /// `EXPORT_PRODUCT_VERSION`.
    pub product: &'static str,
    /// `EXPORT_SCHEMA_VERSION`.
    pub schema: SchemaVersion,
    /// Its metadata table.
    pub metadata_table: &'static str,
}

const fn v(major: u32, minor: u32, micro: u32) -> SchemaVersion {
    SchemaVersion {
        major,
        minor,
        micro,
    }
}

/// The real exports whose tables and columns the reader was checked against,
/// oldest first. Every schema from the first to the last is read (minors in
/// between keep the columns the reader uses, which it checks anyway); any
/// other needs [`crate::ReadOptions::unverified_schema`].
pub const VERIFIED_SCHEMAS: &[VerifiedExport] = &[
    VerifiedExport {
        product: "2022.2.1.31",
        schema: v(2, 9, 1),
        metadata_table: EXPORT_META_DATA,
    },
    VerifiedExport {
        product: "2023.1.2.43",
        schema: v(3, 1, 2),
        metadata_table: EXPORT_META_DATA,
    },
    VerifiedExport {
        product: "2023.2.3.0",
        schema: v(3, 1, 7),
        metadata_table: EXPORT_META_DATA,
    },
    VerifiedExport {
        product: "2023.3.1.92",
        schema: v(3, 4, 0),
        metadata_table: META_DATA_EXPORT,
    },
    VerifiedExport {
        product: "2023.4.4.54",
        schema: v(3, 7, 2),
        metadata_table: META_DATA_EXPORT,
    },
    VerifiedExport {
        product: "2024.5.1.113",
        schema: v(3, 13, 2),
        metadata_table: META_DATA_EXPORT,
    },
    VerifiedExport {
        product: "2024.6.2.25",
        schema: v(3, 16, 1),
        metadata_table: META_DATA_EXPORT,
    },
    VerifiedExport {
        product: "2026.1.1.204",
        schema: v(3, 24, 14),
        metadata_table: META_DATA_EXPORT,
    },
    VerifiedExport {
        product: "2026.2.1.210",
        schema: v(3, 25, 0),
        metadata_table: META_DATA_EXPORT,
    },
];

/// Whether `schema` lies within the verified schemas: from the oldest one's
/// major.minor to the newest one's major.minor, any micro.
pub fn is_verified(schema: SchemaVersion) -> bool {
    let key = |s: SchemaVersion| (s.major, s.minor);
    let (Some(first), Some(last)) = (VERIFIED_SCHEMAS.first(), VERIFIED_SCHEMAS.last()) else {
        return false;
    };
    key(first.schema) <= key(schema) && key(schema) <= key(last.schema)
}

/// The verified range as text (`2.9 to 3.25`).
pub(crate) fn verified_text() -> String {
    match (VERIFIED_SCHEMAS.first(), VERIFIED_SCHEMAS.last()) {
        (Some(first), Some(last)) => format!(
            "{}.{} to {}.{}",
            first.schema.major, first.schema.minor, last.schema.major, last.schema.minor
        ),
        _ => "none".into(),
    }
}

/// The metadata table of schema 3.4 and later.
pub const META_DATA_EXPORT: &str = "META_DATA_EXPORT";
/// The metadata table of older exports (seen up to schema 3.1).
pub const EXPORT_META_DATA: &str = "EXPORT_META_DATA";

/// What the export says about itself: the product that wrote it and the
/// schema. Host names, user names and paths in the same table are not kept.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ExportMeta {
    /// The table it was read from (`META_DATA_EXPORT` or `EXPORT_META_DATA`).
    pub metadata_table: &'static str,
    /// `EXPORT_PRODUCT_NAME` (`NVIDIA Nsight Systems`).
    pub product_name: String,
    /// `EXPORT_PRODUCT_VERSION` (`2024.5.1.113`).
    pub product_version: String,
    /// `EXPORT_SCHEMA_VERSION`.
    pub schema: SchemaVersion,
    /// Whether `schema` is within [`VERIFIED_SCHEMAS`].
    pub schema_verified: bool,
    /// `EXPORT_PLATFORM` (`linux-desktop`), when present.
    pub platform: Option<String>,
    /// `EXPORT_TIME_UTC`, when present.
    pub export_time_utc: Option<String>,
}

const PRODUCT_NAME: &str = "EXPORT_PRODUCT_NAME";
const PRODUCT_VERSION: &str = "EXPORT_PRODUCT_VERSION";
const SCHEMA_VERSION: &str = "EXPORT_SCHEMA_VERSION";
const PLATFORM: &str = "EXPORT_PLATFORM";
const TIME_UTC: &str = "EXPORT_TIME_UTC";

impl ExportMeta {
    /// Reads the metadata table `table` (whose `name, value` columns the
    /// schema probe has checked).
    pub(crate) fn read(conn: &Connection, table: &'static str) -> Result<ExportMeta, Error> {
        let sql = format!("SELECT name, value FROM {table} ORDER BY rowid");
        let mut statement = conn
            .prepare(&sql)
            .map_err(|e| Error::sqlite(e, Some(table)))?;
        let mut rows = statement
            .query([])
            .map_err(|e| Error::sqlite(e, Some(table)))?;
        let mut found: [Option<String>; 5] = Default::default();
        let keys = [
            PRODUCT_NAME,
            PRODUCT_VERSION,
            SCHEMA_VERSION,
            PLATFORM,
            TIME_UTC,
        ];
        while let Some(row) = rows.next().map_err(|e| Error::sqlite(e, Some(table)))? {
            let name = crate::read::text_or_null(row, 0, table, "name")?;
            let Some(slot) = name.and_then(|n| keys.iter().position(|k| *k == n)) else {
                continue;
            };
            // The first entry of a name wins; exports write each once.
            if found[slot].is_none() {
                found[slot] = crate::read::text_or_null(row, 1, table, "value")?.map(str::to_owned);
            }
        }
        let [name, version, schema, platform, time] = found;
        let missing = |key| Error::new(ErrorKind::MetadataMissing { table, key });
        let product_name = name.ok_or_else(|| missing(PRODUCT_NAME))?;
        if product_name != "NVIDIA Nsight Systems" {
            return Err(Error::new(ErrorKind::NotNsightSystems {
                product: product_name,
            }));
        }
        let schema_text = schema.ok_or_else(|| missing(SCHEMA_VERSION))?;
        let schema = SchemaVersion::parse(&schema_text).ok_or_else(|| {
            Error::new(ErrorKind::MetadataInvalid {
                key: SCHEMA_VERSION,
                value: schema_text.clone(),
            })
        })?;
        Ok(ExportMeta {
            metadata_table: table,
            product_name,
            product_version: version.ok_or_else(|| missing(PRODUCT_VERSION))?,
            schema,
            schema_verified: is_verified(schema),
            platform,
            export_time_utc: time,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_exactly() {
        assert_eq!(SchemaVersion::parse("3.24.14"), Some(v(3, 24, 14)));
        assert_eq!(SchemaVersion::parse(" 2.9.1 "), Some(v(2, 9, 1)));
        for bad in ["3.24", "3.24.14.1", "3.x.1", "", "3..1", "+3.1.1", "-3.1.1"] {
            assert_eq!(SchemaVersion::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_verified_range_spans_its_ends_and_nothing_past_them() {
        assert!(is_verified(v(2, 9, 0)));
        assert!(is_verified(v(3, 13, 2)));
        assert!(is_verified(v(3, 20, 0)));
        assert!(is_verified(v(3, 25, 9)));
        assert!(!is_verified(v(2, 8, 9)));
        assert!(!is_verified(v(3, 26, 0)));
        assert!(!is_verified(v(4, 0, 0)));
        assert!(!is_verified(v(1, 30, 0)));
        assert_eq!(verified_text(), "2.9 to 3.25");
        let mut sorted = VERIFIED_SCHEMAS.to_vec();
        sorted.sort_by_key(|e| e.schema);
        assert!(sorted
            .iter()
            .zip(VERIFIED_SCHEMAS)
            .all(|(a, b)| a.schema == b.schema));
    }
}
