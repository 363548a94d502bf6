//! Output discipline: the output must not exist, never through a link,
//! never half-written, never clobbered; the original is never modified;
//! the bytes are deterministic.

use std::path::Path;

use opguard_align::{apply, apply_with, export_records, ApplyOptions};

use crate::{export_fixture, listing, map_json, review, sha256sum};

/// An export and a small valid map (reject one candidate, map one pair).
fn setup(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf, String) {
    let (view, s) = export_fixture(dir);
    let sha = s.output_sha256;
    let map = dir.join("map.json");
    let reviews = serde_json::json!([
        review(&sha, 1, 9, "not_comparable", None),
        review(
            &sha,
            5,
            13,
            "comparable",
            Some((
                serde_json::json!(["outputs", 0]),
                serde_json::json!(["outputs", 0])
            ))
        ),
    ]);
    std::fs::write(&map, map_json(&sha, reviews)).unwrap();
    (view, map, sha)
}

#[test]
fn the_output_must_not_exist() {
    let dir = tempfile::tempdir().unwrap();
    let (view, map, sha) = setup(dir.path());
    let out = dir.path().join("out.json");
    std::fs::write(&out, b"precious").unwrap();
    let err = apply(&view, &map, &out).unwrap_err();
    assert_eq!(err.code(), "output_exists");
    assert_eq!(std::fs::read(&out).unwrap(), b"precious");
    // The original itself as output: refused, unchanged.
    let err = apply(&view, &map, &view).unwrap_err();
    assert_eq!(err.code(), "output_exists");
    assert_eq!(sha256sum(&view), sha);
    // Export too.
    let err = export_records(&crate::fixture("two_runs.records.jsonl"), &out).unwrap_err();
    assert_eq!(err.code(), "output_exists");
    assert_eq!(std::fs::read(&out).unwrap(), b"precious");
    assert_eq!(listing(dir.path()), ["map.json", "out.json", "view.json"]);
}

#[test]
fn an_output_path_that_is_a_symlink_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (view, map, _) = setup(dir.path());
    let target = dir.path().join("elsewhere.json");
    let link = dir.path().join("out.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let err = apply(&view, &map, &link).unwrap_err();
    assert_eq!(err.code(), "output_is_symlink");
    assert!(!target.exists(), "nothing written through the link");
    assert_eq!(listing(dir.path()), ["map.json", "out.json", "view.json"]);
}

#[test]
fn an_output_path_through_a_symlinked_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (view, map, _) = setup(dir.path());
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let linked = dir.path().join("linked");
    std::os::unix::fs::symlink(&real, &linked).unwrap();
    let err = apply(&view, &map, &linked.join("out.json")).unwrap_err();
    assert_eq!(err.code(), "output_path_symlink");
    assert!(listing(&real).is_empty());
    let err = export_records(
        &crate::fixture("two_runs.records.jsonl"),
        &linked.join("x.json"),
    )
    .unwrap_err();
    assert_eq!(err.code(), "output_path_symlink");
    assert!(listing(&real).is_empty());
}

/// A directory this process cannot create files in. Root ignores mode
/// bits, so as root use /sys (refuses file creation even to root).
fn unwritable_dir(dir: &Path) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let ro = dir.join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let probe = ro.join("probe");
    if std::fs::File::create(&probe).is_err() {
        return Some(ro);
    }
    std::fs::remove_file(&probe).unwrap();
    let sys = Path::new("/sys");
    let probe = sys.join("opguard-probe");
    if std::fs::File::create(&probe).is_err() && sys.is_dir() {
        return Some(sys.to_path_buf());
    }
    None
}

#[test]
fn a_read_only_output_directory_fails_clearly_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (view, map, _) = setup(dir.path());
    let Some(ro) = unwritable_dir(dir.path()) else {
        eprintln!("skipping: no unwritable directory available to this user");
        return;
    };
    let before = listing(&ro);
    let out = ro.join("opguard-out.json");
    let err = apply(&view, &map, &out).unwrap_err();
    assert_eq!(err.code(), "output_dir_not_writable", "{err}");
    assert!(!out.exists());
    assert_eq!(listing(&ro), before);
    let err = export_records(&crate::fixture("two_runs.records.jsonl"), &out).unwrap_err();
    assert_eq!(err.code(), "output_dir_not_writable");
}

#[test]
fn a_missing_output_directory_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let (view, map, _) = setup(dir.path());
    let err = apply(&view, &map, &dir.path().join("no/such/dir/out.json")).unwrap_err();
    assert_eq!(err.code(), "output_dir_missing");
    assert_eq!(listing(dir.path()), ["map.json", "view.json"]);
}

#[test]
fn a_writer_failing_after_n_bytes_leaves_no_file_behind() {
    let dir = tempfile::tempdir().unwrap();
    let (view, map, _) = setup(dir.path());
    // The size of the complete output, plain and gzip.
    let full = apply(&view, &map, &dir.path().join("full.json")).unwrap();
    let full_len = std::fs::metadata(dir.path().join("full.json"))
        .unwrap()
        .len();
    let full_gz = apply(&view, &map, &dir.path().join("full.json.gz")).unwrap();
    let gz_len = std::fs::metadata(dir.path().join("full.json.gz"))
        .unwrap()
        .len();
    let before = listing(dir.path());
    for (name, len) in [("out.json", full_len), ("out.json.gz", gz_len)] {
        let out = dir.path().join(name);
        for n in [0, 1, 17, 100, len / 2, len - 1] {
            let err = apply_with(&view, &map, &out, &ApplyOptions::new().max_output_bytes(n))
                .unwrap_err();
            assert_eq!(err.code(), "limit_exceeded", "{name} n={n}: {err}");
            assert!(!out.exists(), "{name} n={n}");
            assert_eq!(
                listing(dir.path()),
                before,
                "{name} n={n}: temporary file left behind"
            );
        }
    }
    // Exactly enough bytes succeeds (for gzip the limit also bounds the
    // decoded JSON, which is the larger of the two).
    let exact = apply_with(
        &view,
        &map,
        &dir.path().join("exact.json"),
        &ApplyOptions::new().max_output_bytes(full_len),
    )
    .unwrap();
    assert_eq!(exact.output_sha256, full.output_sha256);
    let exact_gz = apply_with(
        &view,
        &map,
        &dir.path().join("exact.json.gz"),
        &ApplyOptions::new().max_output_bytes(full_len),
    )
    .unwrap();
    assert_eq!(exact_gz.output_sha256, full_gz.output_sha256);
}

#[test]
fn an_export_failing_mid_write_leaves_no_file_behind() {
    let dir = tempfile::tempdir().unwrap();
    let records = crate::fixture("two_runs.records.jsonl");
    let request = |out: &str| opguard_align::ExportRequest {
        records: Some(records.clone()),
        from_profile: vec![],
        output: dir.path().join(out),
    };
    for n in [0u64, 1, 5000] {
        let err = opguard_align::export_with(
            &request("v.json.gz"),
            &opguard_align::ExportOptions::new().max_export_bytes(n),
        )
        .unwrap_err();
        assert_eq!(err.code(), "limit_exceeded");
        assert!(
            listing(dir.path()).is_empty(),
            "n={n}: {:?}",
            listing(dir.path())
        );
    }
}

#[test]
fn concurrent_runs_cannot_clobber_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let (view, map, _) = setup(dir.path());
    // A second map with a different result, racing for the same output.
    let sha = sha256sum(&view);
    let other_map = dir.path().join("other.json");
    std::fs::write(
        &other_map,
        map_json(
            &sha,
            serde_json::json!([review(&sha, 0, 8, "not_comparable", None)]),
        ),
    )
    .unwrap();
    let out = dir.path().join("race.json");
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let (view, out) = (&view, &out);
                let m = if i % 2 == 0 { &map } else { &other_map };
                s.spawn(move || apply(view, m, out))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let winners: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    assert_eq!(winners.len(), 1, "exactly one run creates the output");
    for r in &results {
        if let Err(e) = r {
            assert_eq!(e.code(), "output_exists");
        }
    }
    assert_eq!(
        sha256sum(&out),
        winners[0].output_sha256,
        "the file is the winner's, whole"
    );
    assert_eq!(
        listing(dir.path()),
        ["map.json", "other.json", "race.json", "view.json"]
    );
}

#[test]
fn the_original_is_never_modified_and_reviewed_bytes_are_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let (view, map, sha) = setup(dir.path());
    let mtime = std::fs::metadata(&view).unwrap().modified().unwrap();
    let a = apply(&view, &map, &dir.path().join("a.json")).unwrap();
    let b = apply(&view, &map, &dir.path().join("b.json")).unwrap();
    let c = apply(&view, &map, &dir.path().join("c.json.gz")).unwrap();
    let d = apply(&view, &map, &dir.path().join("d.json.gz")).unwrap();
    assert_eq!(a.output_sha256, b.output_sha256);
    assert_eq!(c.output_sha256, d.output_sha256);
    assert_eq!(sha256sum(&view), sha);
    assert_eq!(std::fs::metadata(&view).unwrap().modified().unwrap(), mtime);
    assert_eq!(a.artifact_sha256, sha);
}

#[test]
fn operations_io_and_stacks_stay_present_in_the_reviewed_view() {
    let dir = tempfile::tempdir().unwrap();
    let (view, map, _) = setup(dir.path());
    let out = dir.path().join("r.json");
    apply(&view, &map, &out).unwrap();
    let before = crate::ops_by_id(&crate::read_view(&view));
    let after = crate::ops_by_id(&crate::read_view(&out));
    assert_eq!(before.len(), after.len());
    for (id, (i, e)) in &before {
        let (j, f) = &after[id];
        assert_eq!(i, j, "{id}: operation index");
        assert_eq!(e["args"]["op"], f["args"]["op"], "{id}: op and stack");
        assert_eq!(e["args"]["io"], f["args"]["io"], "{id}: io");
        assert_eq!(
            (&e["ts"], &e["dur"], &e["pid"], &e["name"]),
            (&f["ts"], &f["dur"], &f["pid"], &f["name"])
        );
    }
}

#[test]
fn a_new_view_has_new_references_so_the_old_map_is_stale_there() {
    let dir = tempfile::tempdir().unwrap();
    let (view, map, sha) = setup(dir.path());
    let out = dir.path().join("r.json");
    let r = apply(&view, &map, &out).unwrap();
    assert_ne!(r.output_sha256, sha);
    let err = apply(&out, &map, &dir.path().join("rr.json")).unwrap_err();
    assert_eq!(err.code(), "stale_artifact_hash");
    // A separate history for the new revision works.
    let sha2 = r.output_sha256.clone();
    let map2 = dir.path().join("map2.json");
    std::fs::write(
        &map2,
        map_json(
            &sha2,
            serde_json::json!([review(&sha2, 0, 8, "not_comparable", None)]),
        ),
    )
    .unwrap();
    let r2 = apply(&out, &map2, &dir.path().join("rr.json")).unwrap();
    assert_eq!(r2.statuses.not_comparable, 4);
    let v2 = crate::read_view(&dir.path().join("rr.json"));
    let sources = v2["opguard"]["sources"].as_array().unwrap();
    assert_eq!(
        sources.iter().filter(|s| s["kind"] == "review").count(),
        2,
        "history of reviews is kept"
    );
    assert!(opguard_align::validate_export(&dir.path().join("rr.json"))
        .unwrap()
        .is_valid());
}
