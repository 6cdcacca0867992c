//! Figures and the HTML report, end to end through the binary on the mock backend: no two texts of any
//! figure overlap (a check that finds the old layout's overlaps), and every figure and page shows the
//! records of the JSON output of the same run — read back from the drawing through its tick labels and
//! from the table's cells.

mod common;
#[path = "common/svg.rs"]
mod svg;

use common::mock;
use predicates::prelude::*;
use serde_json::Value;
use warpscope::record::Source;
use warpscope::report::figures::source_color;
use warpscope::report::plot::si;

const EIGHTEEN: &str =
    "32x32,32x16,16x32,16x16,64x2,64x4,128x1,128x2,256x1,256x2,512x1,512x2,1024x1,8x8,8x16,16x8,4x64,2x128";

fn run_ok(args: &[&str]) {
    let out = mock(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every SVG of a file (an SVG or an HTML page) without overlapping texts.
fn assert_no_overlap(path: &std::path::Path) {
    let text = read(path);
    let all = svg::svg_texts(&text);
    assert!(!all.is_empty(), "{}: no SVG", path.display());
    for (i, texts) in all.iter().enumerate() {
        assert!(texts.len() > 3, "{} #{i}: {} texts", path.display(), texts.len());
        let bad = svg::overlapping(texts);
        assert!(bad.is_empty(), "{} #{i}: overlapping texts {bad:?}", path.display());
    }
}

#[test]
fn the_check_finds_the_old_layouts_overlaps() {
    let old = read(std::path::Path::new("tests/fixtures/old-layout-sweep18.svg"));
    let bad = svg::overlapping(&svg::svg_texts(&old)[0]);
    // The x axis title, centred on its point and turned, ran into the next panel's title, in every panel.
    assert!(bad.iter().any(|(a, b)| a == "block (configuration)" || b == "block (configuration)"), "{bad:?}");
    assert!(bad.len() >= 3, "{bad:?}");
}

#[test]
fn no_figure_has_overlapping_text() {
    let dir = tempfile::tempdir().unwrap();
    let f = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let small = ["--nx", "512", "--ny", "256", "--iters", "2", "--seed", "3"];
    let mut cases: Vec<(Vec<String>, Vec<&str>)> = Vec::new();
    let strs = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<String>>();
    // The old layout's sweep, the issue's estimate (25 shapes, 13 panels, two heatmaps), a long sweep.
    cases.push((
        strs(&[&["sweep", "sum-matrix", "--block", EIGHTEEN, "--model"][..], &small].concat()),
        vec!["svg", "html"],
    ));
    cases.push((
        strs(&[
            "estimate",
            "sum-matrix",
            "--gpu",
            "M2070",
            "--bx",
            "16,32,64,128,256",
            "--by",
            "1,2,4,8,16",
            "--heatmap",
            "time,achieved_occupancy",
            "--plot-order",
            "time",
        ]),
        vec!["svg", "html"],
    ));
    cases.push((
        strs(&["estimate", "sum-matrix", "--arch", "sm_90", "--bx", "32..1024:32", "--by", "1"]),
        vec!["svg", "html"],
    ));
    cases.push((strs(&["estimate", "sum-matrix", "--arch", "sm_90", "--bx", "1..64", "--by", "1..16"]), vec!["svg"]));
    cases.push((
        strs(&[&["sweep", "mad", "--n", "12", "--bx", "64,128,256,512,1024"][..], &small].concat()),
        vec!["svg"],
    ));
    cases.push((
        strs(&[
            "occupancy",
            "--arch",
            "sm_20",
            "--block-size",
            "192",
            "--regs",
            "20",
            "--smem",
            "4096",
            "--format",
            "csv",
        ]),
        vec!["svg"],
    ));
    cases.push((
        strs(&["occupancy", "--arch", "sm_90", "--block-size", "32..1024:32", "--regs", "40", "--format", "csv"]),
        vec!["svg"],
    ));
    cases.push((strs(&["peak", "--nx", "256", "--ny", "128", "--iters", "2"]), vec!["svg"]));
    cases.push((strs(&["transpose", "--bench", "--sizes", "64,128,256", "--iters", "2"]), vec!["svg"]));
    cases.push((strs(&["blur", "--bench", "--width", "128", "--height", "64", "--iters", "2"]), vec!["svg"]));
    for (i, (args, outs)) in cases.iter().enumerate() {
        let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
        let files: Vec<(String, String)> = outs.iter().map(|e| (e.to_string(), f(&format!("{i}.{e}")))).collect();
        for (ext, path) in &files {
            a.extend([if ext == "svg" { "--plot" } else { "--html" }, path.as_str()]);
        }
        if !a.contains(&"occupancy") {
            a.push("-q");
        }
        run_ok(&a);
        for (_, path) in &files {
            assert_no_overlap(std::path::Path::new(path));
        }
    }
    // compare's figure and page.
    let (svg, html) = (f("cmp.svg"), f("cmp.html"));
    mock(&[
        "compare",
        "tests/fixtures/ws-h200-seed.json",
        "tests/fixtures/ncu-h200-seed-default.csv",
        "--fail-above",
        "3",
        "--plot",
        &svg,
        "--html",
        &html,
    ])
    .assert()
    .code(predicate::in_iter([0, 1]));
    assert_no_overlap(std::path::Path::new(&svg));
    assert_no_overlap(std::path::Path::new(&html));
}

/// `(sweep records, HTML)`: a cartesian mock sweep with the model and counters, as JSON and as a page.
fn sweep_with_everything(dir: &std::path::Path) -> (Value, String, String) {
    let (json, html, svg) = (dir.join("r.json"), dir.join("r.html"), dir.join("r.svg"));
    let args = format!(
        "sweep sum-matrix --nx 1024 --ny 512 --bx 16,32,64 --by 2,8,64 --iters 6 --seed 9 --model \
         --metrics achieved_occupancy,gld_efficiency --heatmap time,achieved_occupancy --format json -o {} --html {} \
         --plot {} -q",
        json.display(),
        html.display(),
        svg.display()
    );
    run_ok(&args.split_whitespace().collect::<Vec<_>>());
    (serde_json::from_str(&read(&json)).unwrap(), read(&html), read(&svg))
}

fn ok_records(v: &Value) -> Vec<&Value> {
    v["records"].as_array().unwrap().iter().filter(|r| r["status"] == "ok").collect()
}

fn metric(r: &Value, name: &str, source: &str) -> Option<f64> {
    r["metrics"].as_array()?.iter().find(|m| m["name"] == name && m["source"] == source)?["value"].as_f64()
}

fn close(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} against {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= tol, "{what}: drawn {g}, JSON {w} (tolerance {tol}): {got:?} against {want:?}");
    }
}

#[test]
fn figures_draw_the_records_of_the_json() {
    let dir = tempfile::tempdir().unwrap();
    let (v, html, plot) = sweep_with_everything(dir.path());
    let ok = ok_records(&v);
    assert_eq!(ok.len(), 7, "32x64 and 64x64 are invalid");
    let blocks: Vec<String> = ok.iter().map(|r| format!("{}x{}", r["block"][0], r["block"][1])).collect();
    let charts = svg::charts(&html);
    let find = |title: &str| charts.iter().find(|c| c.title() == title).unwrap_or_else(|| panic!("no chart {title}"));
    let mock_c = svg::hex(source_color(Source::Mock));

    // Kernel time: the medians as bars, the predictions as diamonds, over the blocks in sweep order.
    let time = find("kernel time");
    let names: Vec<String> = time.x_labels().into_iter().map(|l| l.1).collect();
    assert_eq!(names, blocks);
    let (_, px) = time.y_scale("ms");
    let medians: Vec<f64> = ok.iter().map(|r| r["time_ms"]["median"].as_f64().unwrap()).collect();
    close(&time.bars(&mock_c, "ms"), &medians, 1.5 * px, "median");
    let predicted: Vec<f64> = ok.iter().map(|r| metric(r, "predicted_time", "mock").unwrap()).collect();
    close(&time.diamonds(&mock_c, "ms"), &predicted, 1.5 * px, "predicted_time");
    for name in ["achieved_occupancy", "gld_efficiency", "eff_bandwidth"] {
        let chart = find(name);
        let unit = if name == "eff_bandwidth" { "GB/s" } else { "%" };
        let scale = if name == "achieved_occupancy" { 100.0 } else { 1.0 };
        let (_, px) = chart.y_scale(unit);
        let want: Vec<f64> = ok.iter().map(|r| scale * metric(r, name, "mock").unwrap()).collect();
        close(&chart.bars(&mock_c, unit), &want, 1.5 * px, name);
    }

    // Heatmaps: every cell's label is its record's value; the invalid one says so.
    let heat = find("kernel time over block.x x block.y");
    let cells = heat.cells();
    assert_eq!(cells.len(), 9, "{cells:?}");
    for r in v["records"].as_array().unwrap() {
        let (x, y) = (r["block"][0].to_string(), r["block"][1].to_string());
        let cell = cells.iter().find(|c| c.0 == y && c.1 == x).unwrap_or_else(|| panic!("no cell {x}x{y}: {cells:?}"));
        let want = match r["time_ms"]["median"].as_f64() {
            Some(t) if r["status"] == "ok" => si::format(t, "ms"),
            _ => "invalid".to_string(),
        };
        assert_eq!(cell.2, want, "{x}x{y}");
    }
    let heat = find("achieved_occupancy over block.x x block.y");
    for (y, x, label) in heat.cells() {
        let (bx, by) = (x.parse::<u64>().ok(), y.parse::<u64>().ok());
        let r = ok.iter().find(|r| r["block"][0].as_u64() == bx && r["block"][1].as_u64() == by);
        let want = r.map_or("invalid".to_string(), |r| {
            si::format(100.0 * metric(r, "achieved_occupancy", "mock").unwrap(), "%")
        });
        assert_eq!(label, want, "{x}x{y}");
    }

    // A real GPU's run (an H200 with CUPTI counters): measured and estimated of a metric in one panel,
    // the counters' duration beside the events' median.
    let real = std::path::Path::new("tests/fixtures/ws-h200-cupti-metrics.json");
    let v: Value = serde_json::from_str(&read(real)).unwrap();
    let page = dir.path().join("h200.html");
    run_ok(&["report", real.to_str().unwrap(), "-o", page.to_str().unwrap()]);
    let charts = svg::charts(&read(&page));
    let find = |title: &str| charts.iter().find(|c| c.title() == title).unwrap_or_else(|| panic!("no chart {title}"));
    let ok = ok_records(&v);
    let (measured, estimated) = (svg::hex(source_color(Source::Measured)), svg::hex(source_color(Source::Estimated)));
    let time = find("kernel time");
    let (_, px) = time.y_scale("ms");
    let medians: Vec<f64> = ok.iter().map(|r| r["time_ms"]["median"].as_f64().unwrap()).collect();
    close(&time.bars(&measured, "ms"), &medians, 1.5 * px, "H200 median");
    for name in ["achieved_occupancy", "gld_efficiency", "gld_throughput"] {
        let chart = find(name);
        let unit = if name == "gld_throughput" { "GB/s" } else { "%" };
        let scale = if name == "achieved_occupancy" { 100.0 } else { 1.0 };
        let (_, px) = chart.y_scale(unit);
        let of = |src: &str| ok.iter().map(|r| scale * metric(r, name, src).unwrap()).collect::<Vec<f64>>();
        close(&chart.bars(&measured, unit), &of("measured"), 1.5 * px, &format!("{name} measured"));
        close(&chart.diamonds(&estimated, unit), &of("estimated"), 1.5 * px, &format!("{name} estimated"));
        assert!(chart.texts.iter().any(|t| t.text == "measured") && chart.texts.iter().any(|t| t.text == "estimated"));
    }

    // The --plot file is the same drawing in a grid: its categories are the same blocks, first to last.
    let plot_charts = svg::charts(&plot);
    assert_eq!(plot_charts.len(), 1);
    let grid = &plot_charts[0];
    let title = grid.texts.iter().find(|t| t.text == "kernel time").expect("the time panel");
    // The first panel's category labels: tick labels left of the second column, not on the y axis, on
    // the topmost line of such labels.
    let tick = svg::hex(warpscope::report::plot::TICK_COLOR);
    let x_ticks: Vec<&svg::TextBox> = grid
        .texts
        .iter()
        .filter(|t| t.fill == tick && t.x < 2.0 * title.x && !(t.anchor == "end" && t.rotate == 0.0))
        .collect();
    let line = x_ticks.iter().map(|t| t.y).fold(f64::MAX, f64::min);
    let mut first: Vec<&&svg::TextBox> = x_ticks.iter().filter(|t| t.y == line).collect();
    first.sort_by(|a, b| a.x.total_cmp(&b.x));
    let labels: Vec<String> = first.iter().map(|t| t.text.clone()).collect();
    assert_eq!(labels, blocks, "the time panel's categories");
}

fn parse_page(html: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse_with_options(html, roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() })
        .expect("the page is well-formed XML")
}

/// A page's first table: its header cells and the cells of each row.
type Rows<'a, 'i> = Vec<Vec<roxmltree::Node<'a, 'i>>>;
fn first_table<'a, 'i>(doc: &'a roxmltree::Document<'i>) -> (roxmltree::Node<'a, 'i>, Vec<String>, Rows<'a, 'i>) {
    let table = doc.descendants().find(|n| n.has_tag_name("table")).expect("a records table");
    let heads: Vec<String> = table
        .descendants()
        .filter(|n| n.has_tag_name("th"))
        .map(|th| th.first_child().and_then(|c| c.text()).unwrap_or("").trim().to_string())
        .collect();
    let rows = table
        .descendants()
        .filter(|n| n.has_tag_name("tbody"))
        .flat_map(|b| b.children().filter(|n| n.has_tag_name("tr")))
        .map(|tr| tr.children().filter(|n| n.has_tag_name("td")).collect())
        .collect();
    (table, heads, rows)
}

/// What a cell shows, leaving out what opens on demand.
fn cell_text(n: &roxmltree::Node<'_, '_>) -> String {
    n.descendants()
        .filter(|d| d.is_text() && !d.ancestors().any(|a| a.has_tag_name("details")))
        .filter_map(|d| d.text())
        .collect()
}

/// The exact number a cell stands for.
fn cell_value(n: &roxmltree::Node<'_, '_>) -> Option<f64> {
    n.attribute("data-value").map(|v| v.parse::<f64>().unwrap())
}

/// The column of a header, its metric's source in the header's second line (`ms, measured`), if given.
fn column(table: roxmltree::Node<'_, '_>, name: &str, source: Option<&str>) -> usize {
    table
        .descendants()
        .filter(|n| n.has_tag_name("th"))
        .position(|th| {
            th.first_child().and_then(|c| c.text()).map(str::trim) == Some(name)
                && source.is_none_or(|s| {
                    th.descendants().any(|d| d.has_tag_name("small") && d.text().is_some_and(|t| t.ends_with(s)))
                })
        })
        .unwrap_or_else(|| panic!("no column for {name} ({source:?})"))
}

#[test]
fn the_page_shows_the_records_of_the_json() {
    let dir = tempfile::tempdir().unwrap();
    let (v, html, _) = sweep_with_everything(dir.path());
    let doc = parse_page(&html);
    let (table, heads, rows) = first_table(&doc);
    let col =
        |name: &str| heads.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}: {heads:?}"));
    let records = v["records"].as_array().unwrap();
    assert_eq!(rows.len(), records.len());
    let (text, value) = (cell_text, cell_value);
    for (row, r) in rows.iter().zip(records) {
        let block = format!("{}x{}", r["block"][0], r["block"][1]);
        assert_eq!(text(&row[col("block")]), block);
        assert_eq!(text(&row[col("kernel")]), r["kernel"].as_str().unwrap());
        assert_eq!(text(&row[col("status")]), r["status"].as_str().unwrap(), "{block}");
        match r["time_ms"]["median"].as_f64() {
            Some(m) => {
                assert_eq!(value(&row[col("median time")]), Some(m), "{block}: exactly the JSON's median");
                assert_eq!(value(&row[col("min time")]), r["time_ms"]["min"].as_f64());
                // The raw samples, on demand, are the JSON's.
                let details =
                    row[col("details")].descendants().find(|n| n.has_tag_name("pre")).unwrap().text().unwrap();
                let samples: Vec<f64> = details
                    .lines()
                    .next()
                    .unwrap()
                    .trim_start_matches("samples (ms): ")
                    .split(' ')
                    .map(|s| s.parse().unwrap())
                    .collect();
                let want: Vec<f64> =
                    r["time_ms"]["samples"].as_array().unwrap().iter().map(|s| s.as_f64().unwrap()).collect();
                assert_eq!(samples, want, "{block}");
            }
            None => {
                assert_eq!(text(&row[col("median time")]), "-");
                // An invalid configuration shows its reason.
                assert_eq!(text(&row[col("reason")]), r["reason"].as_str().unwrap());
            }
        }
        // Every metric, in the column of its name and source (the header's second line), exactly.
        for m in r["metrics"].as_array().unwrap() {
            let (name, source) = (m["name"].as_str().unwrap(), m["source"].as_str().unwrap());
            let k = column(table, name, Some(source));
            assert_eq!(value(&row[k]), m["value"].as_f64(), "{block} {name} {source}");
            assert!(row[k].attribute("class").unwrap().contains(&format!("src-{source}")));
        }
        // Provenance lists the sources of the row's values.
        let tags: Vec<String> = row[col("provenance")].children().filter_map(|c| c.text().map(String::from)).collect();
        for m in r["metrics"].as_array().unwrap() {
            assert!(tags.contains(&m["source"].as_str().unwrap().to_string()), "{block}: {tags:?}");
        }
    }
    // The invalid configuration is listed with its reason.
    let listed: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("li") && n.attribute("class") == Some("invalid"))
        .map(|li| li.descendants().filter(|d| d.is_text()).filter_map(|d| d.text()).collect())
        .collect();
    let want: Vec<String> = records
        .iter()
        .filter(|r| r["status"] == "invalid")
        .map(|r| {
            format!(
                "sumMatrixOnGPU2D {}x{} 1024x512 invalid: {}",
                r["block"][0],
                r["block"][1],
                r["reason"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(listed, want);
    assert_eq!(want.len(), 2, "32x64 and 64x64");
    // Device and settings.
    assert!(html.contains(v["device"]["name"].as_str().unwrap()));
    assert!(html.contains("2 warm-up + 6 timed launches per configuration"));
}

#[test]
fn estimates_and_comparisons_draw_their_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let (json, html) = (dir.path().join("e.json"), dir.path().join("e.html"));
    run_ok(&[
        "estimate",
        "sum-matrix",
        "--gpu",
        "M2070",
        "--block",
        "32x32,32x16,16x32,16x16,64x2,128x1",
        "--format",
        "json",
        "-o",
        json.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    let v: Value = serde_json::from_str(&read(&json)).unwrap();
    let charts = svg::charts(&read(&html));
    let time = charts.iter().find(|c| c.title() == "kernel time").unwrap();
    let (_, px) = time.y_scale("ms");
    let want: Vec<f64> = ok_records(&v).iter().map(|r| metric(r, "predicted_time", "estimated").unwrap()).collect();
    close(&time.bars(&svg::hex(source_color(Source::Estimated)), "ms"), &want, 1.5 * px, "estimated time");

    // compare: a panel per metric, a bar per configuration: the delta of the JSON comparison.
    let cmp_args = ["compare", "tests/fixtures/ws-h200-seed.json", "tests/fixtures/ncu-h200-seed-default.csv"];
    let out = mock(&[&cmp_args[..], &["--format", "json"]].concat()).output().unwrap();
    let cmp: Value = serde_json::from_slice(&out.stdout).unwrap();
    let svg_path = dir.path().join("c.svg");
    mock(&[&cmp_args[..], &["--fail-above", "3", "--plot", svg_path.to_str().unwrap()]].concat())
        .assert()
        .code(predicate::in_iter([0, 1]));
    let html_path = dir.path().join("c.html");
    mock(&[&cmp_args[..], &["--fail-above", "3", "--html", html_path.to_str().unwrap()]].concat())
        .assert()
        .code(predicate::in_iter([0, 1]));
    let charts = svg::charts(&read(&html_path));
    let rows = cmp["rows"].as_array().unwrap();
    let mut metrics_seen: Vec<&str> = Vec::new();
    for r in rows {
        let m = r["metric"].as_str().unwrap();
        if !metrics_seen.contains(&m) {
            metrics_seen.push(m);
        }
    }
    assert!(metrics_seen.len() >= 2);
    for m in metrics_seen {
        let chart =
            charts.iter().find(|c| c.title().starts_with(&format!("{m}:"))).unwrap_or_else(|| panic!("no chart {m}"));
        let (_, px) = chart.y_scale("%");
        let want: Vec<f64> = rows.iter().filter(|r| r["metric"] == m).map(|r| r["delta"].as_f64().unwrap()).collect();
        // Bars beyond the threshold are drawn in the alert colour: read both, left to right.
        let colors = [svg::hex(warpscope::report::plot::PALETTE[0]), svg::hex(warpscope::report::plot::ALERT)];
        close(&chart.bars_of(&colors, "%"), &want, 1.5 * px, m);
        assert!(chart.texts.iter().any(|t| t.text == "threshold ±3 %"), "{m}: the threshold is in the legend");
    }
    assert!(svg::charts(&read(&svg_path)).len() == 1);
}

#[test]
fn report_reads_any_results_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let jsonl = f("r.jsonl");
    run_ok(&[
        "sweep",
        "sum-matrix",
        "--nx",
        "256",
        "--ny",
        "256",
        "--block",
        "32x8,16x16",
        "--iters",
        "2",
        "--format",
        "jsonl",
        "-o",
        &jsonl,
    ]);
    for input in [
        jsonl.as_str(),
        "tests/fixtures/ws-h200-seed.json",
        "tests/fixtures/ncu-h200-seed-default.csv",
        "tests/fixtures/nvprof-m2070-32x32-metrics.csv",
    ] {
        let out = f("page.html");
        mock(&["report", input, "-o", &out])
            .assert()
            .success()
            .stderr(predicate::str::contains(format!("wrote {out}")));
        let page = read(std::path::Path::new(&out));
        assert!(page.contains("<table") && page.contains("data-provenance"), "{input}");
        assert_no_overlap(std::path::Path::new(&out));
    }
    // Imported values say so.
    let page = common::stdout(&mut mock(&["report", "tests/fixtures/ncu-h200-seed-default.csv"]));
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<span class=\"tag imported\">imported</span>"));
    // A folder: each results file a section.
    let folder = dir.path().join("results");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy("tests/fixtures/ws-h200-seed.json", folder.join("seed.json")).unwrap();
    std::fs::copy(&jsonl, folder.join("small.jsonl")).unwrap();
    let page = common::stdout(&mut mock(&["report", folder.to_str().unwrap()]));
    assert!(page.contains("<h2>seed</h2>") && page.contains("<h2>small</h2>"), "a section per file");
    // Mistakes: one line, exit 2.
    mock(&["report", "/no/such.json"]).assert().code(2).stderr(predicate::str::starts_with("error: "));
    mock(&["report", folder.to_str().unwrap(), "--plot", &f("x.svg")])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("give a file, not a folder"));
    mock(&["report", &jsonl, "-o", &jsonl]).assert().code(2);
    mock(&["sweep", "sum-matrix", "--block", "32x8", "--html", "/no/such/dir/r.html"]).assert().code(2);
    let missing = common::stdout(&mut mock(&["report", &jsonl, "--heatmap", "nope", "-o", &f("h.html")]));
    assert!(missing.is_empty());
    mock(&["report", &jsonl, "--heatmap", "nope", "-o", &f("h.html")])
        .assert()
        .success()
        .stderr(predicate::str::contains("warning: no heatmap of nope"));
}

#[test]
fn run_spec_and_baseline_pages() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("e.toml");
    std::fs::write(
        &spec,
        "name = \"small\"\nabout = \"A small experiment.\"\n\n[[step]]\nname = \"sweep\"\nabout = \"Four shapes.\"\n\
         command = \"sweep\"\nkernel = \"sum-matrix\"\nnx = 512\nny = 256\nbx = \"32,64\"\nby = \"1,2\"\niters = 3\n\n\
         [[step]]\nname = \"occ\"\ncommand = \"occupancy\"\narch = \"sm_90\"\nblock_size = \"128,256\"\n",
    )
    .unwrap();
    let (out, html) = (dir.path().join("results"), dir.path().join("all.html"));
    mock(&["run-spec", spec.to_str().unwrap(), "-o", out.to_str().unwrap(), "--html", html.to_str().unwrap()])
        .assert()
        .success()
        .stderr(predicate::str::contains(format!("wrote {}", html.display())));
    let page = read(&html);
    // A section per step: the sweep's figures and records, the occupancy step's printed table.
    assert!(page.contains("<h2>sweep</h2>") && page.contains("<p>Four shapes.</p>") && page.contains("<h2>occ</h2>"));
    assert!(page.contains("<h3>Records</h3>") && page.contains("limiter"), "the occupancy table is kept");
    let titles: Vec<String> = svg::charts(&page).iter().map(|c| c.title().to_string()).collect();
    assert!(titles.contains(&"kernel time".to_string()) && titles.len() >= 5, "{titles:?}");
    assert_no_overlap(&html);
    mock(&["run-spec", spec.to_str().unwrap(), "-o", out.to_str().unwrap(), "--html", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("give a file name"));

    // compare --baseline: each configuration's change, as drawn and as tabled.
    let (old, new) = (dir.path().join("old.json"), dir.path().join("new.json"));
    for (file, seed) in [(&old, "1"), (&new, "2")] {
        let args = format!(
            "sweep sum-matrix --nx 512 --ny 256 --block 32x8,16x16,64x4 --iters 5 --seed {seed} --format json -o {} -q",
            file.display()
        );
        run_ok(&args.split_whitespace().collect::<Vec<_>>());
    }
    let (plot, page) = (dir.path().join("b.svg"), dir.path().join("b.html"));
    let base = ["compare", "--baseline", old.to_str().unwrap(), new.to_str().unwrap()];
    let changes: Value =
        serde_json::from_slice(&mock(&[&base[..], &["--format", "json"]].concat()).output().unwrap().stdout).unwrap();
    mock(&[&base[..], &["--plot", plot.to_str().unwrap(), "--html", page.to_str().unwrap()]].concat())
        .assert()
        .success();
    let chart = &svg::charts(&read(&plot))[0];
    let (_, px) = chart.y_scale("%");
    let want: Vec<f64> = changes.as_array().unwrap().iter().map(|c| c["change_pct"].as_f64().unwrap()).collect();
    let blue = svg::hex(warpscope::report::plot::PALETTE[0]);
    close(&chart.bars(&blue, "%"), &want, 1.5 * px, "change_pct");
    assert_no_overlap(&plot);
    assert_no_overlap(&page);
    assert!(read(&page).contains("<h2>Changes</h2>"));
}

#[test]
fn the_readme_figure_commands_run() {
    let readme = read(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"));
    let section = &readme[readme.find("## Figures and the HTML report").unwrap()..];
    let block = &section[section.find("```\n").unwrap() + 4..];
    let block = &block[..block.find("```").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    let mut commands = 0;
    for line in block.replace("\\\n", " ").lines() {
        let line = line.split(" # ").next().unwrap().trim();
        let Some(args) = line.strip_prefix("cargo run --release -- ") else { continue };
        let mut a: Vec<String> = args
            .split_whitespace()
            .map(|w| match w {
                "results.json" => "tests/fixtures/ws-h200-seed.json".to_string(),
                "ncu.csv" => "tests/fixtures/ncu-h200-seed-default.csv".to_string(),
                w if w.contains('.') && !w.contains('/') && !w.starts_with("--") => {
                    dir.path().join(w).display().to_string()
                }
                w => w.to_string(),
            })
            .collect();
        match a[0].as_str() {
            // The mock walks every thread: a smaller matrix than the default.
            "sweep" => a.extend(["--nx", "1024", "--ny", "1024", "-q"].map(String::from)),
            // The whole experiment is too long for a test: its command lines are checked.
            "run-spec" => a.push("--dry-run".into()),
            // The program: tests/nvprof.rs's stand-in, replaying an H100 run's messages.
            "nvprof" => {
                assert_eq!(a.pop().as_deref(), Some("./prog"));
                a.extend([fake_app(), fake_app().replace("fake-app.sh", "h100-seed-32x16-ws.jsonl")]);
            }
            _ => {}
        }
        let args: Vec<&str> = a.iter().map(String::as_str).collect();
        let out = mock(&args).env("WARPSCOPE_INJECTION", fake_app()).output().unwrap();
        let code = out.status.code();
        // compare --fail-above exits 1 when a delta is above it.
        assert!(
            code == Some(0) || (args[0] == "compare" && code == Some(1)),
            "{line}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for w in a.iter().filter(|w| w.starts_with(dir.path().to_str().unwrap())) {
            match std::path::Path::new(w).extension().and_then(|e| e.to_str()) {
                _ if args[0] == "run-spec" => {}
                Some("png") => assert!(image::open(w).is_ok(), "{w}"),
                _ => assert_no_overlap(std::path::Path::new(w)),
            }
        }
        commands += 1;
    }
    assert_eq!(commands, 8);
}

/// tests/nvprof.rs's stand-in for a CUDA program and its injection library.
fn fake_app() -> String {
    format!("{}/tests/fixtures/nvprof/fake-app.sh", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_recorded_gpu_result_reads_without_overlap() {
    // Real runs of every experiment (docs/results): many kernels, sizes and sources in one file.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/results");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&root)
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|run| std::fs::read_dir(run.path()).into_iter().flatten().flatten())
        .flat_map(|exp| std::fs::read_dir(exp.path()).into_iter().flatten().flatten())
        .map(|f| f.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        // model-check's folders also keep the calibration and the verdicts, which are not result files.
        .filter(|p| !p.file_name().is_some_and(|n| n == "calibration.json" || n == "model-check.json"))
        .collect();
    files.sort();
    let dir = tempfile::tempdir().unwrap();
    for f in &files {
        let (html, svg) = (dir.path().join(format!("{}.html", files.len())), dir.path().join("r.svg"));
        let _ = std::fs::remove_file(&svg);
        run_ok(&["report", f.to_str().unwrap(), "-o", html.to_str().unwrap(), "--plot", svg.to_str().unwrap()]);
        let v: Value = serde_json::from_str(&read(f)).unwrap();
        if ok_records(&v).is_empty() {
            // Nothing ran (a modelled card's grid limits): the page says so, and no figure is drawn.
            assert!(read(&html).contains("No figure: no configuration has a value to draw"), "{}", f.display());
            assert!(!svg.exists());
            continue;
        }
        assert_no_overlap(&html);
        assert_no_overlap(&svg);
    }
    eprintln!("{} recorded results drawn", files.len());
}

/// The charts of a figure's grid file, each cut out of the one SVG.
fn grid_charts(path: &std::path::Path, n: usize, titled: bool) -> Vec<svg::Chart> {
    let all = svg::charts(&read(path)).remove(0);
    let (cols, (w, h)) = warpscope::report::plot::grid(n);
    let top = if titled { warpscope::report::plot::FIGURE_TITLE } else { 0 } as f64;
    (0..n)
        .map(|i| {
            let (x, y) = ((i % cols) as f64 * w as f64, top + (i / cols) as f64 * h as f64);
            all.region((x, y, x + w as f64, y + h as f64))
        })
        .collect()
}

#[test]
fn curves_draw_the_numbers_of_the_json() {
    let dir = tempfile::tempdir().unwrap();
    // The occupancy calculator's block-size view: its curve is `occupancy --format json` over every size.
    let svg_path = dir.path().join("occ.svg");
    let args = ["occupancy", "--arch", "sm_80", "--regs", "48", "--smem", "12000", "--block-size"];
    run_ok(&[&args[..], &["256", "--format", "csv", "--plot", svg_path.to_str().unwrap()]].concat());
    let json = common::stdout(&mut mock(&[&args[..], &["32..1024:32", "--format", "json"]].concat()));
    let rows: Value = serde_json::from_str(&json).unwrap();
    let views = grid_charts(&svg_path, 3, true);
    let blue = svg::hex(warpscope::report::plot::PALETTE[0]);
    let curve = views[0].curve(&blue, "", "%");
    let want: Vec<(f64, f64)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["block_size"].as_f64().unwrap(), r["occupancy_pct"].as_f64().unwrap()))
        .collect();
    assert_eq!(curve.len(), want.len());
    let (_, px) = views[0].y_scale("%");
    for (got, want) in curve.iter().zip(&want) {
        assert!((got.0 - want.0).abs() < 2.0 && (got.1 - want.1).abs() <= 1.5 * px, "{got:?} against {want:?}");
    }
    // The current point, in the legend, is the JSON's.
    let current = &rows[7];
    let legend = format!(
        "current: 256 threads ({} of {} warps, {})",
        current["active_warps_per_sm"],
        current["max_warps_per_sm"],
        si::format(current["occupancy_pct"].as_f64().unwrap(), "%")
    );
    assert!(views[0].texts.iter().any(|t| t.text == legend), "{legend}");

    // peak's MAD curve: GFLOP/s against N, as in its JSON.
    let (svg_path, json_path) = (dir.path().join("peak.svg"), dir.path().join("peak.json"));
    run_ok(&[
        "peak",
        "--nx",
        "256",
        "--ny",
        "128",
        "--iters",
        "2",
        "--format",
        "json",
        "-o",
        json_path.to_str().unwrap(),
        "--plot",
        svg_path.to_str().unwrap(),
        "-q",
    ]);
    let v: Value = serde_json::from_str(&read(&json_path)).unwrap();
    let flops = &grid_charts(&svg_path, 2, false)[1];
    let curve = flops.curve(&blue, "", "GFLOP/s");
    let want: Vec<(f64, f64)> = v["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| {
            let n: f64 = r["kernel"].as_str()?.strip_prefix("mad")?.parse().ok()?;
            Some((n, metric(r, "flop_rate", "measured").or_else(|| metric(r, "flop_rate", "mock"))?))
        })
        .collect();
    assert_eq!(curve.len(), want.len(), "{curve:?}");
    let (_, px) = flops.y_scale("GFLOP/s");
    for (got, want) in curve.iter().zip(&want) {
        assert!((got.0 - want.0).abs() < 0.5 && (got.1 - want.1).abs() <= 1.5 * px, "{got:?} against {want:?}");
    }
}

/// `warpscope nvprof --html` with the stand-in program of tests/nvprof.rs replaying an H100 run's
/// messages: the page's table holds the records of the run's `-o` export, exactly.
#[test]
fn the_nvprof_page_shows_the_records_of_its_export() {
    let dir = tempfile::tempdir().unwrap();
    let fake = std::path::Path::new(&fake_app()).parent().unwrap().to_path_buf();
    for (messages, extra) in [
        ("h100-sumMatrix-32x16-summary.jsonl", &[][..]),
        ("h100-seed-32x16-ws.jsonl", &["--metrics", "achieved_occupancy,gld_throughput,gld_efficiency"][..]),
    ] {
        let (json, html) = (dir.path().join(format!("{messages}.json")), dir.path().join(format!("{messages}.html")));
        let out = assert_cmd::Command::cargo_bin("warpscope")
            .unwrap()
            .env_remove("WARPSCOPE_BACKEND")
            .env("WARPSCOPE_INJECTION", fake.join("fake-app.sh"))
            .args(["nvprof", "-o", json.to_str().unwrap(), "--html", html.to_str().unwrap()])
            .args(extra)
            .args([fake.join("fake-app.sh"), fake.join(messages)])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{messages}: {err}");
        assert!(err.contains("Generated HTML report: "), "{err}");
        let v: Value = serde_json::from_str(&read(&json)).unwrap();
        let page = read(&html);
        let doc = parse_page(&page);
        let (table, _, rows) = first_table(&doc);
        let records = v["records"].as_array().unwrap();
        assert!(!records.is_empty(), "{messages}: no records");
        assert_eq!(rows.len(), records.len(), "{messages}");
        let (kernel, block) = (column(table, "kernel", None), column(table, "block", None));
        for (row, r) in rows.iter().zip(records) {
            assert_eq!(cell_text(&row[kernel]), r["kernel"].as_str().unwrap());
            let b = &r["block"];
            let want = if b.is_null() { "-".to_string() } else { format!("{}x{}x{}", b[0], b[1], b[2]) };
            let shown = cell_text(&row[block]);
            assert!(want == shown || want == format!("{shown}x1"), "{messages}: block {shown}, JSON {want}");
            if let Some(m) = r["time_ms"]["median"].as_f64() {
                assert_eq!(cell_value(&row[column(table, "median time", None)]), Some(m), "{messages} {want}");
            }
            for m in r["metrics"].as_array().unwrap() {
                let k = column(table, m["name"].as_str().unwrap(), m["source"].as_str());
                assert_eq!(cell_value(&row[k]), m["value"].as_f64(), "{messages} {want} {}", m["name"]);
            }
        }
        assert!(page.contains(v["device"]["name"].as_str().unwrap()), "{messages}: the device");
        assert_no_overlap(&html);
    }
}

/// Every real profiler file the importers read (tests/fixtures/profilers) makes a page whose table holds
/// the records `import` reads from it, in order, and whose figures' texts do not overlap.
#[test]
fn report_reads_every_profiler_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<_> = std::fs::read_dir("tests/fixtures/profilers")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e != "md"))
        .collect();
    files.sort();
    let mut pages = 0;
    for f in &files {
        let file = f.to_str().unwrap();
        let imported = mock(&["import", file, "--format", "json", "-q"]).output().unwrap();
        if !imported.status.success() {
            // What import refuses (a file of error lines only, a run that profiled nothing), report refuses alike.
            let why = String::from_utf8_lossy(&imported.stderr).into_owned();
            mock(&["report", file]).assert().code(2).stderr(predicate::str::diff(why));
            continue;
        }
        let v: Value = serde_json::from_slice(&imported.stdout).unwrap();
        let html = dir.path().join("p.html");
        run_ok(&["report", file, "-o", html.to_str().unwrap()]);
        let page = read(&html);
        let doc = parse_page(&page);
        let (table, _, rows) = first_table(&doc);
        let records = v["records"].as_array().unwrap();
        assert_eq!(rows.len(), records.len(), "{file}");
        let kernel = column(table, "kernel", None);
        for (row, r) in rows.iter().zip(records) {
            assert_eq!(cell_text(&row[kernel]), r["kernel"].as_str().unwrap(), "{file}");
        }
        if page.contains("<svg") {
            assert_no_overlap(&html);
        }
        pages += 1;
    }
    assert!(pages >= 15, "{pages} of {} files made pages", files.len());
}
