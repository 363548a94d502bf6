//! The README's error-code table is the library's table.

use std::collections::BTreeSet;

use crate::suite::support::crate_dir;

/// `(code, status)` rows of the README's table (backquoted code in the first column).
fn readme_rows() -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(crate_dir().join("README.md")).expect("README.md");
    let table = readme
        .split("## Error codes")
        .nth(1)
        .expect("README has an `## Error codes` section");
    let table = table.split("\n## ").next().unwrap_or(table);
    table
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[1].trim_matches('`').to_owned(), cells[2].to_owned())
        })
        .collect()
}

#[test]
fn readme_error_table_lists_every_code_once() {
    let rows = readme_rows();
    let mut seen = BTreeSet::new();
    for (code, _) in &rows {
        assert!(seen.insert(code.clone()), "{code} listed twice");
    }
    let library: BTreeSet<String> = opguard_capi::CAPI_CODES
        .iter()
        .chain(opguard_capi::LIBRARY_CODES)
        .map(|c| c.code.to_owned())
        .collect();
    assert_eq!(seen, library);
    for c in opguard_capi::CAPI_CODES
        .iter()
        .chain(opguard_capi::LIBRARY_CODES)
    {
        let (_, status) = rows.iter().find(|(code, _)| code == c.code).unwrap();
        let want = c.status.map_or("—".to_owned(), |s| s.to_string());
        assert_eq!(status, &want, "{}", c.code);
    }
}

#[test]
fn codes_are_prefixed_and_unique() {
    let mut seen = BTreeSet::new();
    for c in opguard_capi::CAPI_CODES
        .iter()
        .chain(opguard_capi::LIBRARY_CODES)
    {
        assert!(seen.insert(c.code), "{} twice", c.code);
        let (prefix, rest) = c.code.split_once('.').expect("prefix.code");
        assert!(
            ["capi", "trace", "census", "align", "scaling", "select", "job"].contains(&prefix),
            "{}",
            c.code
        );
        assert!(
            rest.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "{}",
            c.code
        );
    }
    let statuses: Vec<i32> = opguard_capi::CAPI_CODES
        .iter()
        .filter_map(|c| c.status)
        .collect();
    let unique: BTreeSet<i32> = statuses.iter().copied().collect();
    assert_eq!(statuses.len(), unique.len());
    assert!(statuses.iter().all(|s| *s < 0));
}
