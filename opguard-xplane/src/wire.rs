//! The protobuf wire format, one field at a time, with the byte offset of
//! everything: what the reader walks XSpace, XPlane and XLine with (their
//! leaves are decoded by prost).

use std::ops::Range;

/// One field's value as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1.
    Fixed64(u64),
    /// Wire type 2: the payload's range in the whole input.
    Len(Range<usize>),
    /// Wire type 5.
    Fixed32(u32),
}

/// One field: its number, where its key starts, its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Field {
    pub number: u32,
    pub key_at: usize,
    pub value: Value,
}

/// Why the bytes are not protobuf wire format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WireFault {
    /// A key, varint or payload runs past the end of its message.
    Truncated {
        /// Bytes the field needs from its key on.
        needed: u64,
        /// Bytes left in its message from its key on.
        available: u64,
    },
    /// A varint longer than ten bytes.
    VarintTooLong,
    /// Wire type 3 or 4 (groups, which XSpace never uses) or 6, 7.
    WireType(u8),
    /// Field number 0.
    FieldZero,
}

impl WireFault {
    pub(crate) fn describe(self) -> String {
        match self {
            WireFault::Truncated { needed, available } => {
                format!("a field needs {needed} bytes where its message has {available} left")
            }
            WireFault::VarintTooLong => "a varint runs longer than 10 bytes".into(),
            WireFault::WireType(t @ (3 | 4)) => {
                format!("wire type {t} (a group; XSpace has none)")
            }
            WireFault::WireType(t) => format!("wire type {t} does not exist"),
            WireFault::FieldZero => "field number 0 does not exist".into(),
        }
    }
}

/// Fields of one message: `input[range]`, offsets counted in `input`.
pub(crate) struct Fields<'a> {
    input: &'a [u8],
    pos: usize,
    end: usize,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(input: &'a [u8], range: Range<usize>) -> Self {
        Fields {
            input,
            pos: range.start,
            end: range.end.min(input.len()),
        }
    }

    /// The next field, `None` at the message's end; a fault with the
    /// offset where it is.
    pub(crate) fn next_field(&mut self) -> Result<Option<Field>, (WireFault, usize)> {
        if self.pos >= self.end {
            return Ok(None);
        }
        let key_at = self.pos;
        let key = self.varint(key_at)?;
        let number = key >> 3;
        if number == 0 {
            return Err((WireFault::FieldZero, key_at));
        }
        let number = u32::try_from(number).map_err(|_| (WireFault::FieldZero, key_at))?;
        let value = match (key & 7) as u8 {
            0 => Value::Varint(self.varint(key_at)?),
            1 => Value::Fixed64(u64::from_le_bytes(self.fixed::<8>(key_at)?)),
            2 => {
                let len = self.varint(key_at)?;
                let left = (self.end - self.pos) as u64;
                if len > left {
                    return Err((
                        WireFault::Truncated {
                            needed: (self.pos - key_at) as u64 + len,
                            available: (self.end - key_at) as u64,
                        },
                        key_at,
                    ));
                }
                let start = self.pos;
                self.pos += len as usize;
                Value::Len(start..self.pos)
            }
            5 => Value::Fixed32(u32::from_le_bytes(self.fixed::<4>(key_at)?)),
            other => return Err((WireFault::WireType(other), key_at)),
        };
        Ok(Some(Field {
            number,
            key_at,
            value,
        }))
    }

    fn varint(&mut self, key_at: usize) -> Result<u64, (WireFault, usize)> {
        let mut value: u64 = 0;
        for i in 0..10 {
            let Some(&b) = self.input[..self.end].get(self.pos) else {
                return Err((
                    WireFault::Truncated {
                        needed: (self.pos - key_at + 1) as u64,
                        available: (self.end - key_at) as u64,
                    },
                    key_at,
                ));
            };
            self.pos += 1;
            value |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                return Ok(value);
            }
        }
        Err((WireFault::VarintTooLong, self.pos - 10))
    }

    fn fixed<const N: usize>(&mut self, key_at: usize) -> Result<[u8; N], (WireFault, usize)> {
        let Some(bytes) = self.input[..self.end].get(self.pos..self.pos + N) else {
            return Err((
                WireFault::Truncated {
                    needed: (self.pos - key_at + N) as u64,
                    available: (self.end - key_at) as u64,
                },
                key_at,
            ));
        };
        self.pos += N;
        let mut out = [0; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8]) -> Result<Vec<Field>, (WireFault, usize)> {
        let mut f = Fields::new(input, 0..input.len());
        let mut out = Vec::new();
        while let Some(x) = f.next_field()? {
            out.push(x);
        }
        Ok(out)
    }

    #[test]
    fn reads_every_wire_type_with_offsets() {
        // 1: varint 300; 2: "hi"; 3: fixed64 1; 4: fixed32 2
        let input = [
            0x08, 0xac, 0x02, 0x12, 2, b'h', b'i', 0x19, 1, 0, 0, 0, 0, 0, 0, 0, 0x25, 2, 0, 0, 0,
        ];
        let f = all(&input).unwrap();
        assert_eq!(f[0].value, Value::Varint(300));
        assert_eq!(f[1].value, Value::Len(5..7));
        assert_eq!(f[1].key_at, 3);
        assert_eq!(f[2].value, Value::Fixed64(1));
        assert_eq!(f[3].value, Value::Fixed32(2));
    }

    #[test]
    fn faults_say_what_and_where() {
        assert_eq!(
            all(&[0x12, 5, b'a']),
            Err((
                WireFault::Truncated {
                    needed: 7,
                    available: 3
                },
                0
            ))
        );
        assert_eq!(
            all(&[0x08, 0x80]).unwrap_err().0,
            WireFault::Truncated {
                needed: 3,
                available: 2
            }
        );
        assert_eq!(all(&[0x0b]), Err((WireFault::WireType(3), 0)));
        assert_eq!(all(&[0x00]), Err((WireFault::FieldZero, 0)));
        assert_eq!(
            all(&[0x08; 1]
                .iter()
                .chain(&[0xff; 11])
                .copied()
                .collect::<Vec<_>>())
            .unwrap_err()
            .0,
            WireFault::VarintTooLong
        );
    }
}
