//! Rendering real models: hostile names, timeline geometry, bar geometry,
//! every real trace, and the size bound on the largest one.

use std::path::{Path, PathBuf};

use opguard_model::{ArtifactSpec, ModelOptions, TraceModel};
use opguard_report::{
    render, write_new, ArtifactReport, LaneKind, Report, ScalingView, MAX_JOB_FRAMES,
};
use opguard_testdata::kineto_writer::KinetoTrace;

/// The width of a Top-N bar at 100 % of the device time, in pixels, as the
/// page draws it.
const BAR_PLOT_WIDTH: f64 = 480.0;

fn model_of(t: &KinetoTrace, dir: &Path) -> TraceModel {
    let path = dir.join("trace.json.gz");
    std::fs::write(&path, t.to_gzip().unwrap()).unwrap();
    opguard_formats::read(
        &path,
        ArtifactSpec::new(),
        &opguard_formats::ReadOptions::new(ModelOptions::new()),
    )
    .unwrap()
}

/// Every `width` of a `<rect class="bar ...">`, in page order.
fn bar_widths(html: &str) -> Vec<f64> {
    html.match_indices("<rect class=\"bar ")
        .map(|(i, _)| {
            let tail = &html[i..];
            let w = tail.find("width=\"").unwrap() + 7;
            let end = tail[w..].find('"').unwrap();
            tail[w..w + end].parse().unwrap()
        })
        .collect()
}

#[test]
fn hostile_names_render_as_text_and_nothing_can_run() {
    let dir = tempfile::tempdir().unwrap();
    let evil = r#"<script>alert("k")</script><img src=x onerror=alert(1)>"#;
    let mut t = KinetoTrace::new();
    t.process_name(1, "<b>proc</b>");
    t.launch((1, 1), "cudaLaunchKernel", 0, 100, 1, Some(9))
        .kernel(0, 7, evil, 200, 500);
    t.cpu_op((1, 1), "aten::'quoted\"&op", 0, 1_000, Some(9));
    let model = model_of(&t, dir.path());
    let a = ArtifactReport::from_model("</title><script>x()</script>.json.gz", &model, 10);
    assert_eq!(a.profile.rows[0].name, evil, "the row carries the raw name");
    let html = render(&Report::new(vec![a]).note("<i>note</i>"));
    assert!(!html.contains("<script"), "a script element appeared");
    assert!(!html.contains("<img"), "an img element appeared");
    assert!(!html.contains("<i>note"));
    assert!(html.contains(
        "&lt;script&gt;alert(&quot;k&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"
    ));
    assert!(html.contains("&lt;/title&gt;&lt;script&gt;x()&lt;/script&gt;.json.gz"));
    // The policy forbids scripts even if a name ever slipped through.
    assert!(html.contains("default-src 'none'; style-src 'unsafe-inline'"));
}

#[test]
fn timeline_lanes_are_proportional_within_the_artifacts_own_span() {
    let dir = tempfile::tempdir().unwrap();
    // Region: 1_000_000 .. 1_007_200 ns (10 ns per column). The launch
    // covers the first 1_000 ns, the kernel the second half.
    let base = 1_000_000;
    let mut t = KinetoTrace::new();
    t.launch((1, 1), "cudaLaunchKernel", base, 1_000, 1, None)
        .kernel(0, 7, "k", base + 3_600, 3_600);
    let model = model_of(&t, dir.path());
    let a = ArtifactReport::from_model("t", &model, 10);
    let tl = &a.timeline;
    assert_eq!((tl.start_ns, tl.end_ns), (Some(base), Some(base + 7_200)));
    assert_eq!(tl.lanes.len(), 3);
    // The device first: busy where any of its streams is.
    let device = &tl.lanes[0];
    assert_eq!(device.kind, LaneKind::Device);
    assert_eq!(device.busy, vec![(360, tl.bins)]);
    let host = &tl.lanes[1];
    assert_eq!(host.kind, LaneKind::HostThread);
    assert_eq!(host.busy, vec![(0, 100)]);
    let stream = &tl.lanes[2];
    assert_eq!(stream.kind, LaneKind::Stream);
    assert_eq!(tl.bins, 720);
    assert_eq!(stream.busy, vec![(360, tl.bins)]);
    // The same events later in another clock land on the same columns.
    let mut later = KinetoTrace::new();
    later
        .launch((1, 1), "cudaLaunchKernel", 9 * base, 1_000, 1, None)
        .kernel(0, 7, "k", 9 * base + 3_600, 3_600);
    let dir2 = tempfile::tempdir().unwrap();
    let b = ArtifactReport::from_model("u", &model_of(&later, dir2.path()), 10);
    assert_eq!(b.timeline.lanes[1].busy, host.busy);
    assert_eq!(b.timeline.lanes[2].busy, stream.busy);
    // Drawn: one pixel per column, after the label column.
    let html = render(&Report::new(vec![a]));
    assert!(html.contains("<rect class=\"busy device\" x=\"600\" y=\"25\" width=\"360\""));
    assert!(html.contains("<rect class=\"busy stream\" x=\"600\" y=\"65\" width=\"360\""));
}

/// A collective half hidden behind a compute kernel: its device's
/// communication lane shows the hidden half as overlapped and the rest as
/// exposed, on the columns the times give.
#[test]
fn a_communication_lane_splits_exposed_from_overlapped() {
    let dir = tempfile::tempdir().unwrap();
    let nccl = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)";
    let mut t = KinetoTrace::new();
    t.launch((1, 1), "cudaLaunchKernel", 0, 100, 1, None)
        .kernel(0, 7, nccl, 3_600, 3_600);
    t.launch((1, 1), "cudaLaunchKernel", 200, 100, 2, None)
        .kernel(0, 8, "gemm", 3_600, 1_800);
    let a = ArtifactReport::from_model("t", &model_of(&t, dir.path()), 10);
    let comm = a
        .timeline
        .lanes
        .iter()
        .find(|l| l.kind == LaneKind::Communication)
        .expect("a communication lane");
    assert_eq!(comm.overlapped, vec![(360, 540)]);
    assert_eq!(comm.busy, vec![(540, a.timeline.bins)], "exposed");
    let c = a.region.communication;
    assert_eq!(
        (c.busy_ns, c.overlapped_with_compute_ns, c.exposed_ns),
        (3_600, 1_800, 1_800)
    );
    let html = render(&Report::new(vec![a]));
    assert!(html.contains("class=\"overlapped comm\""));
    assert!(html.contains("class=\"busy comm\""));
}

/// A capture without launches or device activity is drawn as its host
/// threads' work, not "nothing to draw".
#[test]
fn a_host_only_capture_draws_its_threads() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = KinetoTrace::new();
    t.cpu_op((1, 1), "aten::mm", 0, 3_600, None);
    t.cpu_op((1, 2), "aten::add", 3_600, 3_600, None);
    let a = ArtifactReport::from_model("t", &model_of(&t, dir.path()), 10);
    let lanes: Vec<(LaneKind, Vec<(usize, usize)>)> = a
        .timeline
        .lanes
        .iter()
        .map(|l| (l.kind, l.busy.clone()))
        .collect();
    assert_eq!(
        lanes,
        [
            (LaneKind::HostActivity, vec![(0, 360)]),
            (LaneKind::HostActivity, vec![(360, a.timeline.bins)])
        ]
    );
    let html = render(&Report::new(vec![a]));
    assert!(!html.contains("nothing to draw"));
    assert!(html.contains("class=\"busy hostwork\""));
}

#[test]
fn each_bar_is_its_rows_share_of_the_device_time() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = KinetoTrace::new();
    for (i, (name, dur)) in [
        ("a_kernel", 6_000),
        ("b_kernel", 3_000),
        ("c_kernel", 1_000),
    ]
    .into_iter()
    .enumerate()
    {
        let i = i as i64;
        t.launch((1, 1), "cudaLaunchKernel", i * 100, 50, i + 1, None)
            .kernel(0, 7, name, 1_000 + i * 10_000, dur);
    }
    let a = ArtifactReport::from_model("t", &model_of(&t, dir.path()), 10);
    assert_eq!(a.profile.device_time_ns, 10_000);
    let widths = bar_widths(&render(&Report::new(vec![a])));
    let want = [0.6, 0.3, 0.1].map(|s| s * BAR_PLOT_WIDTH);
    assert_eq!(widths.len(), 3);
    for (w, want) in widths.iter().zip(want) {
        assert!((w - want).abs() < 0.001, "{w} vs {want}");
    }
}

#[test]
fn scaling_scatters_plot_each_trials_cost_against_its_input() {
    let trials =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/scaling/seed003/trials.json");
    let view = ScalingView::from_trials_file(&trials, None).unwrap();
    let rho_one = view
        .report
        .hotspots
        .iter()
        .position(|h| h.spearman_rho == 1.0)
        .unwrap();
    assert_eq!(view.report.hotspots[rho_one].series.name, "reverse_scan");
    let points = &view.points[rho_one];
    assert_eq!(points.len(), 3);
    // rho 1: the cost rises with the input.
    let mut sorted = points.clone();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert!(sorted.windows(2).all(|w| w[0].1 < w[1].1), "{sorted:?}");
    let drawn: usize = view.points.iter().map(Vec::len).sum();
    let html = render(&Report::new(Vec::new()).scaling(view));
    assert!(html.contains("<svg class=\"chart scatter\""));
    assert!(html.contains("reverse_scan · rho 1.000"));
    assert_eq!(html.matches("<circle class=\"point\"").count(), drawn);
}

#[test]
fn every_real_trace_renders_and_large_ones_are_summarised() {
    let Some(mut traces) = opguard_testdata::hta_traces() else {
        return;
    };
    // The PyTorch 2.15 CPU captures: no device rows at all.
    for torch in [
        "torch/traces/proc_a.json.gz",
        "torch/traces/threads.json.gz",
    ] {
        traces.extend(opguard_testdata::shared_file(torch));
    }
    let mut largest: Option<(u64, usize)> = None;
    for path in &traces {
        let model = opguard_formats::read(
            path,
            ArtifactSpec::new(),
            &opguard_formats::ReadOptions::new(ModelOptions::new()),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let decoded = model.summary().decoded_bytes;
        let html = render(&Report::new(vec![ArtifactReport::from_model(
            path.display().to_string(),
            &model,
            10,
        )]));
        assert!(
            html.contains("<svg class=\"chart coverage\""),
            "{}",
            path.display()
        );
        assert!(
            html.len() < 5 << 20,
            "{}: {} bytes",
            path.display(),
            html.len()
        );
        if largest.is_none_or(|(d, _)| decoded > d) {
            largest = Some((decoded, html.len()));
        }
    }
    if let Some((decoded, html)) = largest {
        // The 87 MB (decoded) MTIA trace: the page is a summary, a
        // thousandth of the input or less.
        assert!(decoded > 80 << 20, "the largest trace is {decoded} bytes");
        assert!(html as u64 * 1000 < decoded, "{html} bytes for {decoded}");
    }
}

#[test]
fn the_file_is_created_exclusively() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.html");
    std::fs::write(&out, "mine").unwrap();
    let e = write_new(&out, "<html>").unwrap_err();
    assert_eq!(e.code(), "output_exists");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "mine");
    let missing = dir.path().join("no/such/dir/r.html");
    assert_eq!(
        write_new(&missing, "x").unwrap_err().code(),
        "output_dir_missing"
    );
    #[cfg(unix)]
    {
        let link = dir.path().join("dangling.html");
        std::os::unix::fs::symlink(dir.path().join("target.html"), &link).unwrap();
        assert_eq!(write_new(&link, "x").unwrap_err().code(), "output_exists");
        assert!(!dir.path().join("target.html").exists());
    }
}

/// A capture without device activity (real torch CPU, JAX, viztracer) shows
/// its host operations: one bar per host row, each its share of the host
/// self time, with the row names and the plain note.
#[test]
fn a_capture_without_device_rows_shows_its_host_operations() {
    for name in [
        "torch_cpu.json.gz",
        "jax_perfetto_trace.json.gz",
        "viztracer.json.gz",
    ] {
        let path = opguard_testdata::producer_trace(name);
        let model = opguard_formats::read(
            &path,
            ArtifactSpec::new(),
            &opguard_formats::ReadOptions::new(ModelOptions::new()),
        )
        .unwrap();
        let a = ArtifactReport::from_model(name, &model, 10);
        assert!(a.profile.rows.is_empty(), "{name}: no device rows");
        let host = a.profile.host.clone().expect("a host profile");
        assert!(!host.rows.is_empty(), "{name}: host rows");
        let html = render(&Report::new(vec![a]));
        // Written out here rather than calling the crate's own escaping.
        let text = |s: &str| {
            s.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
                .replace('\'', "&#39;")
        };
        assert!(
            html.contains(&text(&host.note)),
            "{name}: the note is shown"
        );
        let widths = bar_widths(&html);
        assert_eq!(
            widths.len(),
            host.rows.len(),
            "{name}: one bar per host row"
        );
        for (w, row) in widths.iter().zip(&host.rows) {
            let want = row.self_ns.max(0) as f64 / host.self_time_ns as f64 * BAR_PLOT_WIDTH;
            assert!(
                (w - want).abs() < 0.001,
                "{name}: {} {w} vs {want}",
                row.name
            );
            assert!(
                html.contains(&text(&row.name)),
                "{name}: {} is on the page",
                row.name
            );
        }
    }
}

/// Every `cx` of a `<circle class="rank...">` in one strip row, with
/// whether it is the slowest rank's, and the row's median tick.
fn strip_rows(html: &str) -> Vec<(Vec<(f64, bool)>, f64)> {
    let attr = |tail: &str, name: &str| -> f64 {
        let at = tail.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        let end = tail[at..].find('"').unwrap();
        tail[at..at + end].parse().unwrap()
    };
    html.split("<g class=\"strip-row\">")
        .skip(1)
        .map(|row| {
            let row = &row[..row.find("</g>").unwrap()];
            let median = attr(&row[row.find("class=\"median\"").unwrap()..], "x1");
            let dots = row
                .match_indices("<circle class=\"rank")
                .map(|(i, _)| {
                    (
                        attr(&row[i..], "cx"),
                        row[i..].starts_with("<circle class=\"rank slowest\""),
                    )
                })
                .collect();
            (dots, median)
        })
        .collect()
}

/// A real torch.distributed job (three gloo ranks, the last fed four times
/// the batch) drawn as strips: per frame a dot per rank at its cost's share
/// of the slowest rank's, the slowest marked once, the median ticked; one
/// unreadable rank is listed with its error and counted missing; names are
/// text, never markup.
#[test]
fn a_job_is_drawn_as_one_strip_per_frame_with_a_dot_per_rank() {
    let dir = tempfile::tempdir().unwrap();
    let mut paths: Vec<PathBuf> = (0..3)
        .map(|r| opguard_testdata::producer_trace(&format!("torch_ddp_rank{r}.json.gz")))
        .collect();
    let cut = dir.path().join("rank3-cut.json.gz");
    opguard_testdata::write_cut_copy(&paths[0], &cut);
    paths.push(cut);
    let mut job =
        opguard_job::run_job(&paths, 1, &opguard_job::SummaryOptions::new(), &|_, _| {}).unwrap();
    job.frames[1].name = "<script>alert(1)</script>".to_owned();
    let html = render(&Report::new(Vec::new()).job(job.clone()));

    assert!(html.contains("<section id=\"job\">\n<h2>Job: 4 ranks</h2>"));
    assert!(html.contains("Ranks that could not be read: 1 "));
    assert!(
        html.contains("error[trace.gzip_truncated]"),
        "the cut rank's error"
    );
    assert!(!html.contains("<script>") && html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    let rows = strip_rows(&html);
    assert_eq!(rows.len(), MAX_JOB_FRAMES.min(job.frames.len()));
    for ((dots, median), f) in rows.iter().zip(&job.frames) {
        assert_eq!(dots.len(), f.per_rank.len(), "{}", f.name);
        let x = |ns: i64| 300.0 + ns as f64 / f.max_ns as f64 * 360.0;
        for ((cx, slowest), c) in dots.iter().zip(&f.per_rank) {
            assert!(
                (cx - x(c.cost_ns)).abs() < 0.001,
                "{}: {cx} vs {}",
                f.name,
                x(c.cost_ns)
            );
            assert_eq!(*slowest, c.rank == f.slowest_rank, "{}", f.name);
        }
        assert!((median - x(f.median_ns)).abs() < 0.001, "{}", f.name);
        assert!(f
            .missing
            .iter()
            .any(|m| m.file.ends_with("rank3-cut.json.gz")));
    }
    let mm = job
        .frames
        .iter()
        .position(|f| f.name == "aten::mm")
        .unwrap();
    assert!(mm < MAX_JOB_FRAMES);
    assert_eq!(job.frames[mm].slowest_rank, Some(2));
}

/// Ranks without a number (traces of other producers) are named in a strip
/// by their file's name, clipped to fit the chart; the table keeps the path.
#[test]
fn a_strip_names_an_unnumbered_rank_by_its_file_name() {
    let paths: Vec<PathBuf> = ["torch_cpu.json.gz", "torch_cpu_noshapes.json.gz"]
        .iter()
        .map(|n| opguard_testdata::producer_trace(n))
        .collect();
    let job =
        opguard_job::run_job(&paths, 1, &opguard_job::SummaryOptions::new(), &|_, _| {}).unwrap();
    let html = render(&Report::new(Vec::new()).job(job.clone()));
    let values: Vec<&str> = html
        .split("<text class=\"value\"")
        .skip(1)
        .map(|t| &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()])
        .collect();
    assert_eq!(values.len(), MAX_JOB_FRAMES.min(job.frames.len()));
    for v in &values {
        assert!(
            v.contains(" on torch_cpu_nos… ") || v.contains(" on torch_cpu.jso… "),
            "{v}"
        );
        assert!(!v.contains('/'), "{v}");
    }
    // The table keeps the path, in a file cell that wraps only between
    // folders (after a slash), never inside a name.
    let cell = format!(
        "<td class=\"file\">{}</td>",
        paths[0].display().to_string().replace('/', "/<wbr>")
    );
    assert!(html.contains(&cell), "{cell}");
    assert!(html.contains("td.file{overflow-wrap:break-word;"));
}

/// The `cx` of every `circle` of `class` (exactly) in `html`, in order.
fn circles(html: &str, class: &str) -> Vec<f64> {
    let marker = format!("<circle class=\"{class}\" cx=\"");
    html.split(&marker)
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn a_comparison_draws_both_sides_samples_regressions_first() {
    use opguard_compare::{compare, CompareOptions, Cost, EntityKey, EntityKind, RunSamples};
    let run = |file: &str, slow: i64| {
        let mut run = RunSamples::new(file);
        for step in 0..8_i64 {
            let noise = [0, 30, -20, 10, -40, 20, -10, 40][step as usize];
            run.push_step(
                format!("ProfilerStep#{step}"),
                [
                    (
                        EntityKey::new(EntityKind::Kernel, "relu_kernel<float>"),
                        "relu_kernel".to_owned(),
                        Cost {
                            ns: 2_000 + noise,
                            calls: 1,
                        },
                    ),
                    (
                        EntityKey::new(EntityKind::Kernel, "<b>gemm</b><float>"),
                        "<b>gemm</b>".to_owned(),
                        Cost {
                            ns: slow + noise,
                            calls: 1,
                        },
                    ),
                ],
            );
        }
        run
    };
    let c = compare(
        &[run("a", 1_000)],
        &[run("b", 1_500)],
        &CompareOptions::new(),
    )
    .unwrap();
    let html = render(&Report::new(Vec::new()).compare(c.clone()));
    assert!(html.contains("<a href=\"#compare\">Comparison</a>"));
    assert!(html.contains("<span class=\"verdict refused\">gate failed</span>"));
    // One run a side: the caveat is on the page.
    assert!(html.contains("<p class=\"caveat\"><strong>single_run</strong>: each side is one run"));
    // Regressed first: GEMM's row (its name escaped), then RELU's.
    let gemm = html
        .find("<title>&lt;b&gt;gemm&lt;/b&gt;</title>")
        .expect("GEMM drawn");
    let relu = html.find("<title>relu_kernel</title>").expect("RELU drawn");
    assert!(gemm < relu);
    assert!(!html.contains("<b>gemm"));
    // Eight dots a side per entity; GEMM's candidate dots are red, each at
    // its sample's share of the row's largest (1540 ns) over 360 px.
    assert_eq!(circles(&html, "base").len(), 16);
    let red = circles(&html, "cand regressed");
    assert_eq!(red.len(), 8);
    let gemm_candidate = &c.entities[0].candidate.samples_ns;
    for (x, ns) in red.iter().zip(gemm_candidate) {
        let want = 300.0 + 360.0 * *ns as f64 / 1_540.0;
        assert!((x - want).abs() < 1e-3, "{x} != {want}");
    }
    assert_eq!(circles(&html, "cand").len(), 8, "RELU's, unchanged");
}
