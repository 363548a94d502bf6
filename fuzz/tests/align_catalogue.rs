//! The `align-*` rows of `fixtures/bad-input/README.md`, the output-path
//! scenarios, the 8 MiB map limit at N and N + 1, and a map with 100,000
//! history entries. Every refusal is checked for its exact code, for the
//! output not having been created (or an existing one not changed), and for
//! the export being byte-for-byte unchanged.
//!
//! This lives in the fuzz package because opguard-align is owned by another
//! helper; its owner may move it into `opguard-align/tests/`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use opguard_align::{apply, apply_with, validate_export, ApplyOptions, MAX_MAP_BYTES};
use opguard_fuzz::{align_view, resolve_map_placeholders};

fn catalogue(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/bad-input")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A fresh scratch directory for one test, removed when the test ends
/// (pass or fail): the history test alone writes ~120 MB.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let d = std::env::temp_dir().join(format!(
        "opguard-align-catalogue-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    Scratch(d)
}

/// Applies `map_text` (placeholders resolved) writing to `out`; returns the
/// error code, asserting the export is unchanged either way.
fn apply_text(dir: &Path, map_text: &str, out: &Path) -> Result<opguard_align::Response, String> {
    let v = align_view();
    let map = dir.join("map.json");
    std::fs::write(&map, resolve_map_placeholders(map_text, v)).expect("write map");
    let result = apply(&v.view, &map, out).map_err(|e| e.code().to_owned());
    assert_eq!(
        std::fs::read(&v.view).expect("view"),
        v.bytes,
        "the export changed"
    );
    result
}

const EMPTY_MAP: &str = r#"{"version": 1, "artifact_sha256": "$ARTIFACT", "reviews": []}"#;

#[test]
fn catalogue_maps_fail_with_their_code_and_write_nothing() {
    let dir = scratch("maps");
    for (file, code) in [
        ("align-stale-hash.map.json", "stale_artifact_hash"),
        ("align-non-operation-ref.map.json", "ref_not_operation"),
    ] {
        let out = dir.join("out.json");
        let err = apply_text(&dir, &catalogue(file), &out).expect_err(file);
        assert_eq!(err, code, "{file}");
        assert!(!out.exists(), "{file}: output written");
    }
    // The empty map is the control: the same path is written when valid.
    let out = dir.join("out.json");
    let ok = apply_text(&dir, EMPTY_MAP, &out).expect("the empty map applies");
    assert_eq!(ok.verdict, "not_evaluated");
    assert!(validate_export(&out).expect("reads").is_valid());
}

#[test]
fn an_output_path_that_exists_is_left_alone() {
    let dir = scratch("exists");
    let out = dir.join("out.json");
    std::fs::write(&out, b"precious").unwrap();
    let err = apply_text(&dir, EMPTY_MAP, &out).expect_err("exists");
    assert_eq!(err, "output_exists");
    assert_eq!(std::fs::read(&out).unwrap(), b"precious");
}

#[test]
fn an_output_path_through_a_symlink_is_refused() {
    let dir = scratch("symlink");
    let real = dir.join("real");
    std::fs::create_dir(&real).unwrap();
    // A directory on the path is a symlink.
    std::os::unix::fs::symlink(&real, dir.join("link")).unwrap();
    let err = apply_text(&dir, EMPTY_MAP, &dir.join("link/out.json")).expect_err("dir link");
    assert_eq!(err, "output_path_symlink");
    // The output itself is a (dangling) symlink.
    let target = real.join("target.json");
    std::os::unix::fs::symlink(&target, dir.join("out.json")).unwrap();
    let err = apply_text(&dir, EMPTY_MAP, &dir.join("out.json")).expect_err("file link");
    assert_eq!(err, "output_is_symlink");
    assert!(!target.exists(), "written through the symlink");
    assert_eq!(std::fs::read_dir(&real).unwrap().count(), 0);
}

#[test]
fn a_read_only_output_directory_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("readonly");
    let ro = dir.join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let out = ro.join("out.json");
    // Root ignores directory permissions: then the check cannot be made.
    let privileged = std::fs::write(ro.join("probe"), b"x").is_ok();
    let _ = std::fs::remove_file(ro.join("probe"));
    let result = apply_text(&dir, EMPTY_MAP, &out);
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    if privileged {
        println!("running with privileges that bypass 0o555: checked only that apply is whole");
        match result {
            Ok(_) => assert!(validate_export(&out).unwrap().is_valid()),
            Err(code) => assert!(!out.exists(), "{code}: partial output"),
        }
    } else {
        assert_eq!(result.expect_err("read-only"), "output_dir_not_writable");
        assert_eq!(
            std::fs::read_dir(&ro).unwrap().count(),
            0,
            "something was written"
        );
    }
}

#[test]
fn the_map_limit_holds_at_8_mib_and_8_mib_plus_one() {
    let dir = scratch("limit");
    let v = align_view();
    let base = resolve_map_placeholders(EMPTY_MAP, v);
    let padded = |total: u64| {
        let mut t = base.clone();
        t.push_str(&" ".repeat(total as usize - base.len()));
        t
    };
    assert_eq!(MAX_MAP_BYTES, 8 << 20);
    let out = dir.join("at.json");
    let at = padded(MAX_MAP_BYTES);
    assert_eq!(at.len() as u64, MAX_MAP_BYTES);
    apply_text(&dir, &at, &out).expect("a map of exactly 8 MiB applies");
    let out = dir.join("over.json");
    let err = apply_text(&dir, &padded(MAX_MAP_BYTES + 1), &out).expect_err("8 MiB + 1");
    assert_eq!(err, "limit_exceeded");
    assert!(!out.exists());
}

#[test]
fn a_map_with_100000_history_entries_applies_and_the_last_entry_wins() {
    let dir = scratch("history");
    let n = 100_000;
    let entry = |i: usize| {
        let decision = match i % 3 {
            0 => "comparable",
            1 => "undetermined",
            _ => "not_comparable",
        };
        format!(
            r#"{{"left_ref":"@original/0/1","right_ref":"@candidate/0/1","decision":"{decision}","reason":"review {i}","evidence":[{{"basis":"observed","reference":"pass {i}"}}],"id":"r-{i}"}}"#
        )
    };
    // The last entry (index n - 1, n - 1 = 99_999 ≡ 0 mod 3) is `comparable`;
    // make it `not_comparable` so the answer differs from the automatic one.
    let mut reviews: Vec<String> = (0..n - 1).map(entry).collect();
    reviews.push(entry(2).replace("review 2", "the last review"));
    let text = format!(
        r#"{{"version":1,"artifact_sha256":"$ARTIFACT","reviews":[{}]}}"#,
        reviews.join(",\n")
    );
    // Every entry carries two 67-character refs, so 100,000 of them cannot
    // fit the 8 MiB default: the limit is raised for this test, and the
    // default refuses the same map without writing anything.
    println!("map of {n} history entries: {} bytes", text.len());
    assert!(text.len() as u64 > MAX_MAP_BYTES);
    let out = dir.join("out.json");
    assert_eq!(
        apply_text(&dir, &text, &out).expect_err("over 8 MiB"),
        "limit_exceeded"
    );
    assert!(!out.exists());
    let v = align_view();
    let map = dir.join("history.json");
    std::fs::write(&map, resolve_map_placeholders(&text, v)).unwrap();
    let t = Instant::now();
    let r = apply_with(
        &v.view,
        &map,
        &out,
        &ApplyOptions::new().max_map_bytes(32 << 20),
    )
    .expect("applies");
    let took = t.elapsed();
    let size = std::fs::metadata(&out).unwrap().len();
    println!("applied in {took:?}; output {size} bytes");
    assert_eq!((r.reviews, r.active_reviews), (n as u64, 1));
    assert_eq!(r.decisions.not_comparable, 1);
    assert_eq!(r.statuses.not_comparable, 2);
    assert!(validate_export(&out).unwrap().is_valid());
}
