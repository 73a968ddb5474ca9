//! `kzsim` compiled to wasm32 with a minimal C ABI, so that a Node script
//! (`tests/wasm_agree/agree.mjs`) can run a scenario inside WebAssembly and
//! compare its `--trace` byte for byte with the native `kzsim run`.

use kzsim::runner::{run_text, Limits};

/// The trace of a scenario, one JSON object a line, or `error: ...`.
pub fn trace_of(text: &str) -> String {
    match run_text(text, Limits::default()) {
        Ok((_, trace)) => trace.entries().iter().map(|e| e.to_json_line() + "\n").collect(),
        Err(e) => format!("error: {e}\n"),
    }
}

/// Allocates `len` bytes the host fills with the scenario text.
#[no_mangle]
pub extern "C" fn kzsim_alloc(len: usize) -> *mut u8 {
    let mut v = Vec::<u8>::with_capacity(len);
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}

/// Runs the scenario at (ptr, len); returns (trace ptr << 32) | trace len.
/// The host reads the trace from memory; the buffers are leaked (one run
/// per instance).
///
/// # Safety
/// `ptr` must come from `kzsim_alloc(len)` and hold `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn kzsim_trace(ptr: *mut u8, len: usize) -> u64 {
    // SAFETY: the host wrote `len` bytes at `ptr`, allocated by kzsim_alloc.
    let bytes = unsafe { Vec::from_raw_parts(ptr, len, len) };
    let text = String::from_utf8_lossy(&bytes);
    let out = trace_of(&text).into_bytes();
    let (p, l) = (out.as_ptr() as u64, out.len() as u64);
    std::mem::forget(out);
    (p << 32) | l
}
