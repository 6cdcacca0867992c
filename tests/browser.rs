//! The HTML report in a real browser: headless Chromium driven through chromedriver's WebDriver API.
//! The page opens from a file with nothing fetched, every row shows without JavaScript, the table sorts
//! and filters as a user clicks and types, a row's samples open on demand, and no two texts of its
//! figures overlap as the browser renders them. Skipped, saying so, where Chromium or chromedriver is
//! not installed (CI installs Debian's `chromium` and `chromium-driver`).

mod common;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A program on the PATH (or at an absolute path).
fn find(name: &str) -> Option<PathBuf> {
    let env = std::env::var(format!("WARPSCOPE_TEST_{}", name.to_uppercase())).ok().map(PathBuf::from);
    env.into_iter()
        .chain(std::env::var_os("PATH").iter().flat_map(std::env::split_paths).map(|d| d.join(name)))
        .find(|p| p.is_file())
}

/// chromedriver on a free port, ended when dropped.
struct Driver {
    child: Child,
    base: String,
    agent: ureq::Agent,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

impl Driver {
    fn start(chromedriver: &Path) -> Driver {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let d = Driver { child, base: format!("http://127.0.0.1:{port}"), agent };
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(20) {
            if d.agent.get(format!("{}/status", d.base)).call().is_ok() {
                return d;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("chromedriver did not answer on port {port}");
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.base);
        let mut resp = match (method, body) {
            ("GET", _) => self.agent.get(&url).call(),
            ("DELETE", _) => self.agent.delete(&url).call(),
            (_, b) => self.agent.post(&url).send_json(b.unwrap_or(json!({}))),
        }
        .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let v: Value = resp.body_mut().read_json().unwrap_or(Value::Null);
        assert!(resp.status().is_success(), "{method} {path}: {} {v}", resp.status());
        v["value"].clone()
    }

    /// A browser session on a fresh profile; `scripts` false disables JavaScript.
    fn session(&self, chromium: &Path, profile: &Path, scripts: bool) -> Session<'_> {
        let mut args = vec![
            "--headless".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-quic".into(),
            "--no-first-run".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--window-size=1400,1000".into(),
            format!("--user-data-dir={}", profile.display()),
        ];
        if !scripts {
            args.push("--blink-settings=scriptEnabled=false".into());
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium, "args": args}
        }}});
        let v = self.call("POST", "/session", Some(caps));
        Session { driver: self, id: v["sessionId"].as_str().expect("a session").to_string() }
    }
}

struct Session<'a> {
    driver: &'a Driver,
    id: String,
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        let _ = self.driver.agent.delete(format!("{}/session/{}", self.driver.base, self.id)).call();
    }
}

impl Session<'_> {
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.driver.call(method, &format!("/session/{}{path}", self.id), body)
    }

    fn open(&self, file: &Path) {
        self.call("POST", "/url", Some(json!({"url": format!("file://{}", file.display())})));
    }

    fn js(&self, script: &str) -> Value {
        self.call("POST", "/execute/sync", Some(json!({"script": script, "args": []})))
    }

    fn element(&self, css: &str) -> String {
        let v = self.call("POST", "/element", Some(json!({"using": "css selector", "value": css})));
        v[ELEMENT].as_str().unwrap_or_else(|| panic!("no element {css}")).to_string()
    }

    fn click(&self, css: &str) {
        let e = self.element(css);
        self.call("POST", &format!("/element/{e}/click"), None);
    }

    fn type_into(&self, css: &str, text: &str) {
        let e = self.element(css);
        self.call("POST", &format!("/element/{e}/clear"), None);
        self.call("POST", &format!("/element/{e}/value"), Some(json!({"text": text})));
    }

    fn text(&self, css: &str) -> String {
        let e = self.element(css);
        self.call("GET", &format!("/element/{e}/text"), None).as_str().unwrap_or("").to_string()
    }

    /// The visible rows of the first records table: each row's cells' text.
    fn rows(&self) -> Vec<Vec<String>> {
        let v = self.js("return Array.from(document.querySelector('table.records').tBodies[0].rows)\
             .filter(r => r.offsetParent !== null)\
             .map(r => Array.from(r.cells).map(c => c.innerText.trim()));");
        serde_json::from_value(v).unwrap()
    }

    /// Index of the column whose header starts with `name`.
    fn column(&self, name: &str) -> usize {
        let heads: Vec<String> = serde_json::from_value(self.js(
            "return Array.from(document.querySelector('table.records').tHead.rows[0].cells).map(c => c.innerText.trim());",
        ))
        .unwrap();
        heads.iter().position(|h| h.starts_with(name)).unwrap_or_else(|| panic!("no column {name}: {heads:?}"))
    }
}

/// The boxes of every rendered SVG text, per figure, as the browser laid them out.
const TEXT_BOXES: &str = "return Array.from(document.querySelectorAll('svg')).map(svg => \
    Array.from(svg.querySelectorAll('text')).filter(t => t.textContent.trim() !== '').map(t => { \
    const b = t.getBoundingClientRect(); return [t.textContent.trim(), b.left, b.top, b.right, b.bottom]; }));";

#[test]
fn the_report_sorts_filters_and_reads_in_a_browser() {
    let (Some(chromium), Some(chromedriver)) = (find("chromium"), find("chromedriver")) else {
        eprintln!(
            "skipped: the browser test needs chromium and chromedriver on the PATH \
             (Debian: apt-get install chromium chromium-driver)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (html, json) = (dir.path().join("r.html"), dir.path().join("r.json"));
    let args = format!(
        "sweep sum-matrix --nx 512 --ny 512 --bx 16,32,64 --by 1,4,32 --iters 5 --seed 4 --model --format json -o {} \
         --html {} -q",
        json.display(),
        html.display()
    );
    let out = common::mock(&args.split_whitespace().collect::<Vec<_>>()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let records = report["records"].as_array().unwrap();
    let driver = Driver::start(&chromedriver);

    // Without JavaScript: every record is there, the controls stay hidden.
    {
        let s = driver.session(&chromium, &dir.path().join("profile-nojs"), false);
        s.open(&html);
        assert_eq!(s.rows().len(), records.len(), "every row without JavaScript");
        assert_eq!(s.js("return document.querySelector('.controls').offsetParent === null;"), json!(true));
        assert!(s.js("return document.querySelectorAll('figure svg').length;").as_u64().unwrap() >= 4);
    }

    let s = driver.session(&chromium, &dir.path().join("profile"), true);
    s.open(&html);
    // Nothing fetched: the page's only resource is itself.
    let fetched: Vec<String> =
        serde_json::from_value(s.js("return performance.getEntriesByType('resource').map(e => e.name);")).unwrap();
    assert!(fetched.is_empty(), "fetched {fetched:?}");
    assert_eq!(s.text(".controls .count"), format!("{} of {} rows shown", records.len(), records.len()));

    // Sort by median time: ascending, then descending; rows without a time stay last.
    let median = s.column("median time");
    let block = s.column("block");
    let header = format!("table.records thead th:nth-child({}) button", median + 1);
    s.click(&header);
    let times = |rows: &[Vec<String>]| -> Vec<Option<f64>> { rows.iter().map(|r| r[median].parse().ok()).collect() };
    let up = times(&s.rows());
    let timed: Vec<f64> = up.iter().flatten().copied().collect();
    assert!(timed.windows(2).all(|w| w[0] <= w[1]), "ascending: {up:?}");
    assert!(up.iter().skip_while(|t| t.is_some()).all(|t| t.is_none()), "untimed last: {up:?}");
    let mut want: Vec<f64> = records.iter().filter_map(|r| r["time_ms"]["median"].as_f64()).collect();
    want.sort_by(f64::total_cmp);
    assert_eq!(timed.len(), want.len());
    for (shown, exact) in timed.iter().zip(&want) {
        assert!((shown - exact).abs() < 6e-5, "{shown} shows {exact}");
    }
    assert_eq!(
        s.js(&format!(
            "return document.querySelector('table.records thead th:nth-child({})').getAttribute('aria-sort');",
            median + 1
        )),
        json!("ascending")
    );
    s.click(&header);
    let down: Vec<f64> = times(&s.rows()).into_iter().flatten().collect();
    assert!(down.windows(2).all(|w| w[0] >= w[1]), "descending: {down:?}");

    // Filter: words typed narrow the rows; the status and provenance lists too.
    s.type_into(".controls input.filter", "16x");
    let rows = s.rows();
    let want = records.iter().filter(|r| r["block"][0] == 16).count();
    assert_eq!(rows.len(), want, "{rows:?}");
    assert!(rows.iter().all(|r| r[block].starts_with("16x")));
    assert_eq!(s.text(".controls .count"), format!("{want} of {} rows shown", records.len()));
    s.type_into(".controls input.filter", "");
    s.click(".controls select.status option[value='invalid']");
    let rows = s.rows();
    let invalid: Vec<String> = records
        .iter()
        .filter(|r| r["status"] == "invalid")
        .map(|r| format!("{}x{}", r["block"][0], r["block"][1]))
        .collect();
    assert_eq!(rows.iter().map(|r| r[block].clone()).collect::<Vec<_>>().len(), invalid.len());
    assert!(rows.iter().all(|r| invalid.contains(&r[block])), "{rows:?}");
    s.click(".controls select.status option[value='']");
    s.click(".controls select.provenance option[value='mock']");
    assert_eq!(s.rows().len(), records.iter().filter(|r| r["status"] == "ok").count(), "the ok rows have mock values");
    s.click(".controls select.provenance option[value='']");
    assert_eq!(s.rows().len(), records.len());

    // A row's samples on demand.
    s.click("table.records tbody tr:not(.invalid) details summary");
    let opened = s.js("return document.querySelector('table.records tbody tr:not(.invalid) details').open;");
    assert_eq!(opened, json!(true));
    let shown = s.js("return document.querySelector('table.records tbody tr:not(.invalid) details pre').innerText;");
    assert!(shown.as_str().unwrap().starts_with("samples (ms): "), "{shown}");

    // No two texts of a figure overlap as rendered; the same check finds the old layout's overlaps.
    let figures: Vec<Vec<Rendered>> = serde_json::from_value(s.js(TEXT_BOXES)).unwrap();
    assert!(figures.len() >= 4);
    for texts in &figures {
        let bad = overlapping(texts);
        assert!(bad.is_empty(), "overlapping texts as rendered: {bad:?}");
    }
    s.open(&std::fs::canonicalize("tests/fixtures/old-layout-sweep18.svg").unwrap());
    let old: Vec<Vec<Rendered>> = serde_json::from_value(s.js(TEXT_BOXES)).unwrap();
    let bad = overlapping(&old[0]);
    assert!(bad.iter().any(|(a, b)| a == "block (configuration)" || b == "block (configuration)"), "{bad:?}");
}

/// A text as rendered: its text and box (left, top, right, bottom).
type Rendered = (String, f64, f64, f64, f64);

/// Pairs of rendered texts overlapping by more than half a pixel both ways.
fn overlapping(texts: &[Rendered]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, a) in texts.iter().enumerate() {
        for b in &texts[i + 1..] {
            let w = a.3.min(b.3) - a.1.max(b.1);
            let h = a.4.min(b.4) - a.2.max(b.2);
            if w > 0.5 && h > 0.5 {
                out.push((a.0.clone(), b.0.clone()));
            }
        }
    }
    out
}
