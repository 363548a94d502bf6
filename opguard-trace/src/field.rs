//! The event fields the reader types: their keys and what each may hold.
//! Shared by the scanner (which reports a field's wrong type or duplicate)
//! and the event (which reads them), so neither depends on the other for it.

/// The event fields the reader types. Any other key is validated and kept in
/// [`Event::raw`](crate::Event::raw).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Field {
    /// `ph`: the phase (`X`, `B`, `E`, `i`, `s`, `f`, `M`, ...).
    Ph,
    /// `name`.
    Name,
    /// `cat`: the category (`kernel`, `cuda_runtime`, `cpu_op`, ...).
    Cat,
    /// `pid`: a number or a string.
    Pid,
    /// `tid`: a number or a string.
    Tid,
    /// `ts`: microseconds.
    Ts,
    /// `dur`: microseconds.
    Dur,
    /// `id`: flow or async id, a number or a string.
    Id,
    /// `bind_id`.
    BindId,
    /// `bp`: flow binding point.
    Bp,
    /// `s`: instant scope.
    S,
    /// `args`: an object.
    Args,
}

pub(crate) const FIELD_COUNT: usize = 12;

impl Field {
    /// The JSON key.
    pub fn key(self) -> &'static str {
        match self {
            Field::Ph => "ph",
            Field::Name => "name",
            Field::Cat => "cat",
            Field::Pid => "pid",
            Field::Tid => "tid",
            Field::Ts => "ts",
            Field::Dur => "dur",
            Field::Id => "id",
            Field::BindId => "bind_id",
            Field::Bp => "bp",
            Field::S => "s",
            Field::Args => "args",
        }
    }

    pub(crate) fn from_key(key: &[u8]) -> Option<Field> {
        Some(match key {
            b"ph" => Field::Ph,
            b"name" => Field::Name,
            b"cat" => Field::Cat,
            b"pid" => Field::Pid,
            b"tid" => Field::Tid,
            b"ts" => Field::Ts,
            b"dur" => Field::Dur,
            b"id" => Field::Id,
            b"bind_id" => Field::BindId,
            b"bp" => Field::Bp,
            b"s" => Field::S,
            b"args" => Field::Args,
            _ => return None,
        })
    }

    /// A human description of what the field may hold.
    pub fn expected(self) -> &'static str {
        match self {
            Field::Ph | Field::Name | Field::Cat | Field::Bp | Field::S => "a string",
            Field::Pid | Field::Tid | Field::Id | Field::BindId => "a number or a string",
            Field::Ts | Field::Dur => "a number (microseconds)",
            Field::Args => "an object",
        }
    }
}
