//! Rows out of SQLite, one at a time: a cursor that decodes a row's values
//! in its spec's column order, and the `StringIds` lookup.

use std::collections::HashMap;
use std::path::Path;

use foldhash::fast::RandomState;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, Row, Statement};

use crate::error::{Error, ErrorKind, Position};
use crate::rows::{Kernel, NvtxEvent, StringId};
use crate::schema::{Spec, STRING_IDS};

fn found(value: ValueRef<'_>) -> &'static str {
    match value {
        ValueRef::Null => "NULL",
        ValueRef::Integer(_) => "an integer",
        ValueRef::Real(_) => "a real",
        ValueRef::Text(_) => "a text",
        ValueRef::Blob(_) => "a blob",
    }
}

fn bad_value(
    table: &'static str,
    rowid: Option<i64>,
    column: &'static str,
    expected: &'static str,
    value: ValueRef<'_>,
) -> Error {
    Error::new(ErrorKind::BadValue {
        expected,
        found: found(value),
    })
    .at(Position {
        table,
        rowid,
        column: Some(column),
    })
}

/// Column `index` of `row` as text or NULL (metadata rows, read before any
/// spec applies).
pub(crate) fn text_or_null<'r>(
    row: &'r Row<'_>,
    index: usize,
    table: &'static str,
    column: &'static str,
) -> Result<Option<&'r str>, Error> {
    let value = row
        .get_ref(index)
        .map_err(|e| Error::sqlite(e, Some(table)))?;
    match value {
        ValueRef::Null => Ok(None),
        ValueRef::Text(bytes) => std::str::from_utf8(bytes).map(Some).map_err(|_| {
            Error::new(ErrorKind::BadValue {
                expected: "UTF-8 text",
                found: "invalid UTF-8",
            })
            .at(Position {
                table,
                rowid: None,
                column: Some(column),
            })
        }),
        other => Err(bad_value(table, None, column, "a text", other)),
    }
}

/// One row of a spec's `SELECT`, decoded left to right: column 0 is the
/// `rowid`, then the spec's columns in order.
pub(crate) struct Cursor<'a, 'r> {
    row: &'a Row<'r>,
    spec: &'static Spec,
    rowid: i64,
    next: usize,
}

impl<'a, 'r> Cursor<'a, 'r> {
    pub fn new(row: &'a Row<'r>, spec: &'static Spec) -> Result<Self, Error> {
        let rowid = match row
            .get_ref(0)
            .map_err(|e| Error::sqlite(e, Some(spec.name)))?
        {
            ValueRef::Integer(i) => i,
            other => return Err(bad_value(spec.name, None, "rowid", "an integer", other)),
        };
        Ok(Cursor {
            row,
            spec,
            rowid,
            next: 0,
        })
    }

    pub fn rowid(&self) -> i64 {
        self.rowid
    }

    fn value(&mut self) -> Result<(ValueRef<'a>, &'static str), Error> {
        let column = self.spec.columns.get(self.next).map_or("?", |c| c.name);
        let value = self
            .row
            .get_ref(self.next + 1)
            .map_err(|e| Error::sqlite(e, Some(self.spec.name)))?;
        self.next += 1;
        Ok((value, column))
    }

    fn bad(&self, column: &'static str, expected: &'static str, value: ValueRef<'_>) -> Error {
        bad_value(self.spec.name, Some(self.rowid), column, expected, value)
    }

    /// The next value: an integer, never NULL.
    pub fn int(&mut self) -> Result<i64, Error> {
        match self.value()? {
            (ValueRef::Integer(i), _) => Ok(i),
            (other, column) => Err(self.bad(column, "an integer", other)),
        }
    }

    /// The next value: an integer or NULL.
    pub fn opt_int(&mut self) -> Result<Option<i64>, Error> {
        match self.value()? {
            (ValueRef::Integer(i), _) => Ok(Some(i)),
            (ValueRef::Null, _) => Ok(None),
            (other, column) => Err(self.bad(column, "an integer or NULL", other)),
        }
    }

    /// The next value: UTF-8 text or NULL.
    pub fn opt_text(&mut self) -> Result<Option<&'a str>, Error> {
        match self.value()? {
            (ValueRef::Text(bytes), column) => std::str::from_utf8(bytes).map(Some).map_err(|_| {
                Error::new(ErrorKind::BadValue {
                    expected: "UTF-8 text",
                    found: "invalid UTF-8",
                })
                .at(Position {
                    table: self.spec.name,
                    rowid: Some(self.rowid),
                    column: Some(column),
                })
            }),
            (ValueRef::Null, _) => Ok(None),
            (other, column) => Err(self.bad(column, "a text or NULL", other)),
        }
    }
}

/// Runs `select` and hands each row to `f` as a [`Cursor`]; returns the
/// rows read. Nothing of a row outlives its call.
pub(crate) fn each_row<E: From<Error>>(
    conn: &Connection,
    path: &Path,
    spec: &'static Spec,
    select: &str,
    mut f: impl FnMut(&mut Cursor<'_, '_>) -> Result<(), E>,
) -> Result<u64, E> {
    let table = Some(spec.name);
    let fail = |e| Error::sqlite(e, table).with_path(path);
    let mut statement = conn.prepare(select).map_err(fail)?;
    let mut rows = statement.query([]).map_err(fail)?;
    let mut count = 0u64;
    let mut last_rowid = None;
    loop {
        let row = match rows.next() {
            Ok(Some(row)) => row,
            Ok(None) => break,
            // A malformed page is found while stepping: say after which row.
            Err(e) => {
                return Err(Error::sqlite(e, None)
                    .with_path(path)
                    .at(Position {
                        table: spec.name,
                        rowid: last_rowid,
                        column: None,
                    })
                    .into())
            }
        };
        let mut cursor = Cursor::new(row, spec).map_err(|e| e.with_path(path))?;
        last_rowid = Some(cursor.rowid());
        f(&mut cursor)?;
        count += 1;
    }
    Ok(count)
}

/// The export's `StringIds`, looked up one id at a time (a prepared
/// statement on its primary key) and kept once looked up: memory follows
/// the distinct strings the rows read name, not the table.
pub struct Strings<'c> {
    statement: Statement<'c>,
    cache: HashMap<i64, Box<str>, RandomState>,
    /// Mangled symbols by id, demangled (`None`: not an Itanium symbol).
    demangled: HashMap<i64, Option<Box<str>>, RandomState>,
}

impl<'c> Strings<'c> {
    pub(crate) fn new(conn: &'c Connection) -> Result<Self, Error> {
        let statement = conn
            .prepare("SELECT value FROM StringIds WHERE id = ?1")
            .map_err(|e| Error::sqlite(e, Some(STRING_IDS.name)))?;
        Ok(Strings {
            statement,
            cache: HashMap::default(),
            demangled: HashMap::default(),
        })
    }

    /// The text of `id`.
    pub fn get(&mut self, id: StringId) -> Result<&str, Error> {
        if !self.cache.contains_key(&id.0) {
            let text = self.lookup(id)?;
            self.cache.insert(id.0, text);
        }
        Ok(self.cache.get(&id.0).map_or("", |t| t))
    }

    fn lookup(&mut self, id: StringId) -> Result<Box<str>, Error> {
        let table = Some(STRING_IDS.name);
        let mut rows = self
            .statement
            .query([id.0])
            .map_err(|e| Error::sqlite(e, table))?;
        let Some(row) = rows.next().map_err(|e| Error::sqlite(e, table))? else {
            return Err(
                Error::new(ErrorKind::StringMissing { id: id.0 }).at(Position {
                    table: STRING_IDS.name,
                    rowid: None,
                    column: Some("id"),
                }),
            );
        };
        match text_or_null(row, 0, STRING_IDS.name, "value")? {
            Some(text) => Ok(text.into()),
            None => Err(bad_value(
                STRING_IDS.name,
                None,
                "value",
                "a text",
                ValueRef::Null,
            )),
        }
    }

    /// A kernel's name, as the PyTorch profiler names the same kernel: the
    /// export's mangled symbol (`mangledName`, the name CUPTI gives every
    /// profiler) demangled by the Itanium demangler opguard-kernel-name
    /// uses, as Kineto demangles it; else Nsight's own `demangledName`;
    /// else the short name; whichever is first not empty.
    ///
    /// Nsight's `demangledName` is another demangler's text
    /// (`vectorized_elementwise_kernel<(int)4, ...>(int, T2, T3)`, where
    /// Kineto writes `<4, ...>(int, at::native::FillFunctor<float>, ...)`):
    /// on the real exports read for this reader, 35 of 235 kernels got the
    /// canonical identity Kineto's demangling of the same symbol gets from
    /// it, against 97 of 235 from the mangled symbol (the others differ in
    /// how the two Itanium demanglers spell literals, `4ul` against
    /// `(unsigned long)4`).
    pub fn kernel_name(&mut self, kernel: &Kernel) -> Result<&str, Error> {
        self.kernel_name_of(
            kernel.demangled_name,
            kernel.short_name,
            kernel.mangled_name,
        )
    }

    /// [`Strings::kernel_name`] from the three names' ids.
    pub(crate) fn kernel_name_of(
        &mut self,
        demangled_name: StringId,
        short_name: StringId,
        mangled_name: Option<StringId>,
    ) -> Result<&str, Error> {
        if let Some(mangled) = mangled_name {
            if self.demangle(mangled)? {
                return Ok(self
                    .demangled
                    .get(&mangled.0)
                    .and_then(|d| d.as_deref())
                    .unwrap_or(""));
            }
        }
        let candidates = [Some(demangled_name), Some(short_name)];
        let mut chosen = demangled_name;
        for id in candidates.into_iter().flatten() {
            if !self.get(id)?.trim().is_empty() {
                chosen = id;
                break;
            }
        }
        self.get(chosen)
    }

    /// Demangles the symbol `id` names once; whether it is an Itanium
    /// symbol that demangles.
    fn demangle(&mut self, id: StringId) -> Result<bool, Error> {
        if !self.demangled.contains_key(&id.0) {
            let symbol = self.get(id)?;
            let text = if symbol.starts_with("_Z") {
                opguard_kernel_name::canonicalize(symbol)
                    .demangled()
                    .filter(|d| !d.trim().is_empty())
                    .map(Box::from)
            } else {
                None
            };
            self.demangled.insert(id.0, text);
        }
        Ok(self.demangled.get(&id.0).is_some_and(Option::is_some))
    }

    /// An NVTX row's text: written inline, or the registered string its
    /// `textId` names; `None` when it has neither.
    pub fn nvtx_text<'e>(&'e mut self, event: &'e NvtxEvent<'_>) -> Result<Option<&'e str>, Error> {
        match (event.text, event.text_id) {
            (Some(text), _) => Ok(Some(text)),
            (None, Some(id)) => self.get(id).map(Some),
            (None, None) => Ok(None),
        }
    }

    /// Distinct strings looked up so far.
    pub fn cached(&self) -> usize {
        self.cache.len()
    }
}
