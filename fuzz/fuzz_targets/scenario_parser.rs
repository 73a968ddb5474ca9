//! The scenario parser and validator never panic: any bytes give a script or
//! an error located at a real line and column. Scripts that parse are played
//! under a small budget, which must not panic either.
#![no_main]

use kzsim::runner::{run_text, validate, Limits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines = text.split('\n').count();
    match kzsim::scenario::parse(&text) {
        Ok(script) => {
            let _ = validate(&script);
            if let Err(e) = run_text(&text, Limits { max_steps: 500, max_events: 5_000 }) {
                assert!(e.line() <= lines);
            }
        }
        Err(e) => assert!(e.line >= 1 && e.line <= lines && e.col >= 1),
    }
});
