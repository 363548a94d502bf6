//! Writer stage: the column builders the tables share — dictionaries that
//! grow over a whole table, ids as integers, and batches frozen as they
//! fill.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::{Int32Builder, Int64Builder, StringBuilder};
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, DictionaryArray, Int32Array, StringArray};
use opguard_model::{IdValue, Interner};

/// A dictionary of one column over a whole table: every batch's keys index
/// the one values array built at the end, so Arrow IPC, Parquet and a
/// consumer of the C stream see one dictionary, not one per batch.
#[derive(Debug, Default)]
pub(crate) struct Dictionary {
    keys: HashMap<Arc<str>, i32>,
    values: Vec<Arc<str>>,
}

impl Dictionary {
    /// The key of `s`, added when new.
    pub(crate) fn key(&mut self, s: &str) -> i32 {
        if let Some(&k) = self.keys.get(s) {
            return k;
        }
        let k = self.values.len() as i32;
        let s: Arc<str> = s.into();
        self.values.push(s.clone());
        self.keys.insert(s, k);
        k
    }

    /// The string of key `k`.
    pub(crate) fn get(&self, k: i32) -> &str {
        self.values.get(k as usize).map_or("", |s| s)
    }

    /// The values, once, for every batch.
    pub(crate) fn values(&self) -> ArrayRef {
        Arc::new(StringArray::from_iter_values(
            self.values.iter().map(|s| &**s),
        ))
    }
}

/// The keys of a dictionary column, one batch at a time.
#[derive(Debug, Default)]
pub(crate) struct DictKeys(Int32Builder);

impl DictKeys {
    pub(crate) fn push(&mut self, key: Option<i32>) {
        self.0.append_option(key);
    }
    pub(crate) fn freeze(&mut self) -> Int32Array {
        self.0.finish()
    }
}

/// A frozen batch's keys with the table's final values.
pub(crate) fn dictionary_column(keys: &Int32Array, values: &ArrayRef) -> ArrayRef {
    Arc::new(DictionaryArray::<Int32Type>::new(
        keys.clone(),
        values.clone(),
    ))
}

/// Ids as `Int64`: an id written as text or beyond `i64` is null here and
/// kept, as written, in the table's `text_ids` column.
#[derive(Debug, Default)]
pub(crate) struct IdColumn(Int64Builder);

impl IdColumn {
    /// Appends `id`; returns its text when it is not an integer within
    /// `i64`.
    pub(crate) fn push<'n>(&mut self, id: Option<IdValue>, names: &'n Interner) -> Option<&'n str> {
        match id {
            Some(IdValue::Int(i)) => {
                self.0.append_value(i);
                None
            }
            Some(IdValue::Text(n)) | Some(IdValue::BigNumber(n)) => {
                self.0.append_null();
                Some(names.get(n))
            }
            None => {
                self.0.append_null();
                None
            }
        }
    }
    pub(crate) fn freeze(&mut self) -> ArrayRef {
        Arc::new(self.0.finish())
    }
}

/// The `text_ids` column: for a row whose ids are not all integers, a JSON
/// object of the others as written (`{"pid":"Spans"}`), else null.
#[derive(Debug, Default)]
pub(crate) struct TextIds {
    column: StringBuilder,
    row: Vec<(&'static str, String)>,
}

impl TextIds {
    /// Notes `column`'s id, written as text, for the row being built.
    pub(crate) fn note(&mut self, column: &'static str, text: Option<&str>) {
        if let Some(text) = text {
            self.row.push((column, text.to_owned()));
        }
    }
    /// Ends the row.
    pub(crate) fn end_row(&mut self) {
        if self.row.is_empty() {
            self.column.append_null();
            return;
        }
        let object: serde_json::Map<String, serde_json::Value> = self
            .row
            .drain(..)
            .map(|(k, v)| (k.to_owned(), serde_json::Value::String(v)))
            .collect();
        self.column
            .append_value(serde_json::Value::Object(object).to_string());
    }
    pub(crate) fn freeze(&mut self) -> ArrayRef {
        Arc::new(self.column.finish())
    }
}
