//! The `#kzs` address decoder: any fragment text gives a scenario or a
//! readable error — never a panic — and what decodes parses or is refused
//! with a located error. Plain and compressed (`~`) values both.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let value = String::from_utf8_lossy(data);
    if let Ok(text) = kzsim::share::scenario_from_kzs(&value) {
        assert_eq!(kzsim::share::scenario_from_kzs(&kzsim::share::encode_base64url(text.as_bytes())).as_deref(), Ok(text.as_str()));
        assert_eq!(kzsim::share::scenario_from_kzs(&kzsim::share::kzs_value(&text)).as_deref(), Ok(text.as_str()));
        let _ = kzsim::scenario::parse(&text);
    }
});
