//! Headless Chromium for the tests that lay out the judge's HTML mail:
//! find the browser, write a page with a measuring script, screenshot it,
//! and read back the line the script printed. Shared by tests/it/browser.rs,
//! tests/it/e2e_measured.rs and tests/it/e2e_syw.rs instead of a copy each.
//! Install the browser with scripts/install-chromium.sh.

use std::path::PathBuf;
use std::process::{Command, Output};

/// The headless browser, found on this machine.
pub struct Chromium {
    bin: PathBuf,
}

/// Chromium, or None (the test skips, with a message) when it is not
/// installed; under CI (`CI` set) a missing Chromium is a failure.
pub fn chromium() -> Option<Chromium> {
    let found = ["/usr/lib/chromium/chromium", "/usr/bin/chromium"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists());
    if found.is_none() {
        if std::env::var_os("CI").is_some() {
            panic!("chromium is not installed (scripts/install-chromium.sh)");
        }
        eprintln!("skipped: chromium is not installed (scripts/install-chromium.sh)");
    }
    found.map(|bin| Chromium { bin })
}

/// A page of the judge's HTML with a measuring script run after load; the
/// script prints `CHECK <what it measured> END` into the page.
pub struct Page {
    /// Holds the page (and the screenshot) until the test ends.
    pub dir: tempfile::TempDir,
    pub path: PathBuf,
}

impl Page {
    /// `html` saved as `name` with `script` inserted before `</body>`.
    pub fn new(name: &str, html: &str, script: &str) -> Page {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(name);
        std::fs::write(&path, html.replace("</body>", &format!("{script}</body>"))).expect("write");
        Page { dir, path }
    }

    pub fn url(&self) -> String {
        format!("file://{}", self.path.display())
    }
}

impl Chromium {
    /// One headless run with a fresh profile.
    fn run(&self, args: &[&str]) -> Output {
        let profile = tempfile::tempdir().expect("profile");
        Command::new(&self.bin)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--log-level=3",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(args)
            .output()
            .expect("chromium runs")
    }

    /// Screenshot `page` in a window of `size` ("width,height") and check a
    /// real picture came out. The file is beside the page, or at
    /// `ADJUTANT_SCREENSHOT` when that is set (to look at it).
    pub fn screenshot(&self, page: &Page, size: &str) -> PathBuf {
        let shot = std::env::var_os("ADJUTANT_SCREENSHOT")
            .map_or_else(|| page.path.with_extension("png"), PathBuf::from);
        let out = self.run(&[
            &format!("--screenshot={}", shot.display()),
            &format!("--window-size={size}"),
            &page.url(),
        ]);
        assert!(
            std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0) > 10_000,
            "no screenshot: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        shot
    }

    /// Lay `page` out and return what its script printed between `CHECK `
    /// and ` END`.
    pub fn measure(&self, page: &Page) -> String {
        let out = self.run(&["--dump-dom", "--virtual-time-budget=2000", &page.url()]);
        let dom = String::from_utf8_lossy(&out.stdout);
        dom.split("CHECK ")
            .nth(1)
            .and_then(|t| t.split(" END").next())
            .unwrap_or_else(|| {
                panic!(
                    "no measures in the page: {}",
                    String::from_utf8_lossy(&out.stderr)
                )
            })
            .to_string()
    }

    /// [`Chromium::measure`] of the page at `url` (the page's own, or
    /// with a fragment), with Chromium's network log kept: what the
    /// script printed, and every URL the browser's network stack was
    /// asked for (from `--log-net-log`).
    pub fn measure_logged(&self, url: &str) -> (String, Vec<String>) {
        let log = tempfile::NamedTempFile::new().expect("netlog");
        let out = self.run(&[
            &format!("--log-net-log={}", log.path().display()),
            "--net-log-capture-mode=Everything",
            "--dump-dom",
            "--virtual-time-budget=5000",
            url,
        ]);
        let dom = String::from_utf8_lossy(&out.stdout);
        let line = dom
            .split("CHECK ")
            .nth(1)
            .and_then(|t| t.split(" END").next())
            .unwrap_or_else(|| {
                panic!(
                    "no measures in the page: {}",
                    String::from_utf8_lossy(&out.stderr)
                )
            })
            .to_string();
        let net = std::fs::read_to_string(log.path()).unwrap_or_default();
        let urls = net
            .split("\"url\":\"")
            .skip(1)
            .filter_map(|t| t.split('"').next())
            .map(str::to_string)
            .collect();
        (line, urls)
    }
}
