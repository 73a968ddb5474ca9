//! Embeds every built-in scenario (`static/scenarios/*.kzs`) in the app, so
//! that `?scenario=NAME` needs no fetch and a new file there becomes a
//! built-in at the next build. Writes `$OUT_DIR/scenarios.rs`:
//! `const FILES: &[(&str, &str)] = &[(name, text), ...]`, sorted by name.

use std::{env, fs, path::PathBuf};

fn main() {
    let dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("../static/scenarios");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<(String, PathBuf)> = fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "kzs"))
                .filter_map(|p| Some((p.file_stem()?.to_str()?.to_string(), p.canonicalize().ok()?)))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut out = String::from("const FILES: &[(&str, &str)] = &[\n");
    for (name, path) in files {
        println!("cargo:rerun-if-changed={}", path.display());
        out.push_str(&format!("    ({name:?}, include_str!({:?})),\n", path.display().to_string()));
    }
    out.push_str("];\n");
    fs::write(PathBuf::from(env::var("OUT_DIR").unwrap()).join("scenarios.rs"), out).unwrap();
}
