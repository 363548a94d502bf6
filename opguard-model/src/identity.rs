//! Model stage: identities of artifacts and events.
//!
//! An artifact is named by the SHA-256 of its encoded bytes (computed while
//! reading, never by a second pass), and a record by that digest plus its
//! zero-based occurrence index (a Chrome trace's `traceEvents` index; each
//! native format documents its own order): `EventRef = "<64 hex>:<index>"`.

use std::fmt;
use std::str::FromStr;

/// A string that should be a digest or an event reference does not parse.
/// Its code is `invalid_reference`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceError(String);

impl ReferenceError {
    /// The stable code: `invalid_reference`.
    pub fn code(&self) -> &'static str {
        "invalid_reference"
    }
}

impl fmt::Display for ReferenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ReferenceError {}

/// A SHA-256 digest, shown as 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sha256Digest(pub [u8; 32]);

impl Sha256Digest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        use sha2::Digest;
        Sha256Digest(sha2::Sha256::digest(bytes).into())
    }

    /// The 64-character lowercase hex form.
    pub fn to_hex(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sha256Digest({self})")
    }
}

impl FromStr for Sha256Digest {
    type Err = ReferenceError;
    fn from_str(s: &str) -> Result<Self, ReferenceError> {
        let bad = || {
            ReferenceError(format!(
                "{s:?} is not a SHA-256 digest (64 lowercase hex digits)"
            ))
        };
        let b = s.as_bytes();
        if b.len() != 64 {
            return Err(bad());
        }
        let mut out = [0u8; 32];
        for (i, pair) in b.chunks_exact(2).enumerate() {
            let hex = |c: u8| match c {
                b'0'..=b'9' => Some(c - b'0'),
                b'a'..=b'f' => Some(c - b'a' + 10),
                _ => None,
            };
            out[i] = hex(pair[0]).ok_or_else(bad)? << 4 | hex(pair[1]).ok_or_else(bad)?;
        }
        Ok(Sha256Digest(out))
    }
}

impl serde::Serialize for Sha256Digest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Sha256Digest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// One record of one artifact: `<sha256 hex>:<occurrence index>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventRef {
    /// The artifact's digest.
    pub artifact: Sha256Digest,
    /// Zero-based occurrence index (a Chrome trace's `traceEvents` index).
    pub index: u64,
}

impl fmt::Display for EventRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.artifact, self.index)
    }
}

impl FromStr for EventRef {
    type Err = ReferenceError;
    fn from_str(s: &str) -> Result<Self, ReferenceError> {
        let bad = |why: &str| {
            ReferenceError(format!(
                "{s:?} is not an event reference <64 hex>:<index>: {why}"
            ))
        };
        let (hex, index) = s.split_once(':').ok_or_else(|| bad("no ':'"))?;
        let artifact = hex.parse().map_err(|_| bad("bad digest"))?;
        if index.is_empty() || !index.bytes().all(|c| c.is_ascii_digit()) {
            return Err(bad("index is not a non-negative integer"));
        }
        if index.len() > 1 && index.starts_with('0') {
            return Err(bad("index has leading zeros"));
        }
        let index = index.parse().map_err(|_| bad("index out of range"))?;
        Ok(EventRef { artifact, index })
    }
}

impl serde::Serialize for EventRef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for EventRef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_refs_round_trip_and_reject_near_misses() {
        let d = Sha256Digest::of(b"abc");
        assert_eq!(
            d.to_hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let r = EventRef {
            artifact: d,
            index: 42,
        };
        let text = r.to_string();
        assert_eq!(text.parse::<EventRef>().unwrap(), r);
        for bad in [
            "ba7816bf:1",
            &text.to_uppercase(),
            &format!("{d}:-1"),
            &format!("{d}:01"),
            &format!("{d}:"),
            &format!("{d}"),
            &format!("{d}:1:2"),
        ] {
            assert!(bad.parse::<EventRef>().is_err(), "{bad}");
        }
    }
}
