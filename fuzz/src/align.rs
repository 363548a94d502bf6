//! Alignment maps applied to a fixed export.

/// The export every `align_map` input is applied to, made once per process
/// from `fixtures/align/two_runs.records.jsonl`: (directory, view path,
/// view SHA-256, view bytes).
pub fn align_view() -> &'static AlignView {
    use std::sync::OnceLock;
    static VIEW: OnceLock<AlignView> = OnceLock::new();
    VIEW.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let dir = std::env::temp_dir().join(format!("opguard-fuzz-align-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let view = dir.join("view.json");
        let summary = opguard_align::export_records(
            &root.join("fixtures/align/two_runs.records.jsonl"),
            &view,
        )
        .expect("the fixture exports");
        let bytes = std::fs::read(&view).expect("view readable");
        let doc: serde_json::Value = serde_json::from_slice(&bytes).expect("view is JSON");
        let mut ops: Vec<(String, usize)> = doc["traceEvents"]
            .as_array()
            .expect("events")
            .iter()
            .enumerate()
            .filter_map(|(i, e)| Some((e["args"]["op"]["record_id"].as_str()?.to_owned(), i)))
            .collect();
        // Longest ids first, so `@a/0/10` is never replaced as `@a/0/1`.
        ops.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.cmp(b)));
        AlignView {
            dir,
            view,
            sha: summary.output_sha256.to_string(),
            bytes,
            ops,
        }
    })
}

/// The export the `align_map` target applies maps to.
#[derive(Debug)]
pub struct AlignView {
    /// Scratch directory for maps and outputs.
    pub dir: std::path::PathBuf,
    /// The export.
    pub view: std::path::PathBuf,
    /// Its SHA-256.
    pub sha: String,
    /// Its bytes (to prove apply never changes it).
    pub bytes: Vec<u8>,
    /// Operation record ids and their event indices.
    pub ops: Vec<(String, usize)>,
}

/// Resolves the placeholders of `fixtures/align/map_cases.json`:
/// `$ARTIFACT` (the export digest), `"@<record id>"` (that operation's
/// event reference) and `"#<index>"` (a reference to any event index).
pub fn resolve_map_placeholders(text: &str, v: &AlignView) -> String {
    let mut out = text.replace("$ARTIFACT", &v.sha);
    for (id, index) in &v.ops {
        out = out.replace(&format!("\"@{id}\""), &format!("\"{}:{index}\"", v.sha));
    }
    let mut resolved = String::with_capacity(out.len());
    let mut rest = out.as_str();
    while let Some(p) = rest.find("\"#") {
        resolved.push_str(&rest[..p]);
        let tail = &rest[p + 2..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && tail.as_bytes().get(digits) == Some(&b'"') {
            resolved.push_str(&format!("\"{}:{}\"", v.sha, &tail[..digits]));
            rest = &tail[digits + 1..];
        } else {
            resolved.push_str("\"#");
            rest = tail;
        }
    }
    resolved.push_str(rest);
    resolved
}

/// An alignment map (arbitrary bytes, with `$ARTIFACT` replaced by the
/// export's digest so reviews can get past the stale-hash check) applied to
/// a fixed export. Whatever happens: the export is unchanged; on error the
/// output does not exist; on success it validates and says
/// `verdict: not_evaluated`.
pub fn align_map(data: &[u8]) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let v = align_view();
    let (dir, view, original) = (&v.dir, &v.view, &v.bytes);
    let text = resolve_map_placeholders(&String::from_utf8_lossy(data), v);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let map = dir.join(format!("map-{n}.json"));
    let out = dir.join(format!("out-{n}.json"));
    std::fs::write(&map, text.as_bytes()).expect("write map");
    let result = opguard_align::apply(view, &map, &out);
    match &result {
        Ok(response) => {
            assert_eq!(response.verdict, "not_evaluated");
            let report = opguard_align::validate_export(&out).expect("the output reads back");
            assert!(report.is_valid(), "apply wrote an invalid view: {report:?}");
        }
        Err(e) => {
            let _ = e.code();
            assert!(
                !out.exists(),
                "{}: output written though apply failed",
                e.code()
            );
        }
    }
    assert_eq!(
        &std::fs::read(view).expect("view"),
        original,
        "apply changed the original export"
    );
    let _ = std::fs::remove_file(&map);
    let _ = std::fs::remove_file(&out);
}
