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
        .map(|c| c.code.to_owned())
        .chain(opguard_capi::library_codes().map(|(code, _)| code))
        .collect();
    assert_eq!(seen, library);
    for c in opguard_capi::CAPI_CODES {
        let (_, status) = rows.iter().find(|(code, _)| code == c.code).unwrap();
        let want = c.status.map_or("—".to_owned(), |s| s.to_string());
        assert_eq!(status, &want, "{}", c.code);
    }
    for (code, _) in opguard_capi::library_codes() {
        let (_, status) = rows.iter().find(|(row, _)| *row == code).unwrap();
        assert_eq!(status, "—", "{code}");
    }
}

#[test]
fn the_library_table_is_each_crates_published_list() {
    for lib in opguard_capi::LIBRARY_CODES {
        opguard_document::check_error_codes(lib.codes)
            .unwrap_or_else(|e| panic!("{}: {e}", lib.prefix));
        for code in lib.reported_as_capi {
            assert!(lib.codes.iter().any(|(c, _)| c == code), "{code}");
        }
    }
    let flat: Vec<(String, &str)> = opguard_capi::library_codes().collect();
    assert!(flat.contains(&(
        "document.limit_exceeded".to_owned(),
        opguard_document::ERROR_CODES
            .iter()
            .find(|(c, _)| *c == "limit_exceeded")
            .unwrap()
            .1
    )));
    assert!(!flat.iter().any(|(c, _)| c == "align.invalid_request"));
}

#[test]
fn one_meaning_has_one_code_across_crates() {
    // The codes that once had several spellings ("too large" had four).
    for lib in opguard_capi::LIBRARY_CODES {
        for (code, meaning) in lib.codes {
            let too_large = meaning.contains("larger than") || meaning.contains("limit");
            if too_large {
                assert_eq!(*code, "limit_exceeded", "{}.{code}: {meaning}", lib.prefix);
            }
            assert!(
                !code.contains('.'),
                "{}.{code} is prefixed twice",
                lib.prefix
            );
        }
    }
}

#[test]
fn codes_are_prefixed_and_unique() {
    let mut seen = BTreeSet::new();
    let all = opguard_capi::CAPI_CODES
        .iter()
        .map(|c| c.code.to_owned())
        .chain(opguard_capi::library_codes().map(|(code, _)| code));
    for code in all {
        assert!(seen.insert(code.clone()), "{code} twice");
        let (prefix, rest) = code.split_once('.').expect("prefix.code");
        assert!(
            [
                "capi", "document", "trace", "census", "align", "scaling", "select", "job",
                "compare"
            ]
            .contains(&prefix),
            "{code}"
        );
        assert!(
            rest.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "{code}"
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
