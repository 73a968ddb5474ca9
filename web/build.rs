//! Embeds every built-in scenario (`static/scenarios/*.kzs`) in the app, so
//! that `?scenario=NAME` needs no fetch and a new file there becomes a
//! built-in at the next build. The tours beside them (`NAME.tour.json`) are
//! only named: the page fetches one when its scenario is opened (they are
//! about 16 KB of the download gzipped, docs/performance.md), while native
//! builds (the tests, server-side rendering) still embed them. Writes
//! `$OUT_DIR/scenarios.rs`: `const FILES: &[(&str, &str)]` (name, scenario
//! text), `const TOUR_NAMES: &[&str]` and, natively only,
//! `const TOURS: &[(&str, &str)]` (name, tour JSON), sorted by name.

use std::path::{Path, PathBuf};
use std::{env, fs};

fn main() {
    let dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("../static/scenarios");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut out = table("FILES", &dir, ".kzs");
    let tours = files(&dir, ".tour.json");
    out.push_str("const TOUR_NAMES: &[&str] = &[");
    for (stem, _) in &tours {
        out.push_str(&format!("{stem:?}, "));
    }
    out.push_str("];\n#[cfg(not(target_arch = \"wasm32\"))]\n");
    out.push_str(&table("TOURS", &dir, ".tour.json"));
    fs::write(PathBuf::from(env::var("OUT_DIR").unwrap()).join("scenarios.rs"), out).unwrap();
}

/// `const NAME: &[(&str, &str)] = &[(stem, include_str!(path)), ...];` for
/// every file in `dir` whose name ends with `suffix`, sorted by stem.
fn table(name: &str, dir: &Path, suffix: &str) -> String {
    let mut out = format!("const {name}: &[(&str, &str)] = &[\n");
    for (stem, path) in files(dir, suffix) {
        println!("cargo:rerun-if-changed={}", path.display());
        out.push_str(&format!("    ({stem:?}, include_str!({:?})),\n", path.display().to_string()));
    }
    out.push_str("];\n");
    out
}

/// (stem, path) of every file in `dir` whose name ends with `suffix`, sorted
/// by stem.
fn files(dir: &Path, suffix: &str) -> Vec<(String, PathBuf)> {
    let mut files: Vec<(String, PathBuf)> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter_map(|p| Some((p.file_name()?.to_str()?.strip_suffix(suffix)?.to_string(), p.canonicalize().ok()?)))
                .filter(|(stem, _)| !stem.is_empty())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}
