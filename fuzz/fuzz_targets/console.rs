//! The app's console: any line a learner types, at any point of a running
//! scenario, is either accepted or refused with an error — never a panic.
#![no_main]

use kzsim::sandbox::Sandbox;
use libfuzzer_sys::fuzz_target;

const BASE: &str = "broker-config zookeeper.session.timeout.ms=6000\ncluster brokers=3\nstart all\nzk-session a\ntopic create t partitions=2 replication-factor=2\nrun 10s\n";

fuzz_target!(|data: &[u8]| {
    let Ok(mut sb) = Sandbox::load(BASE) else { return };
    let text = String::from_utf8_lossy(data);
    for (i, line) in text.split('\n').take(8).enumerate() {
        sb.run_for(40 + 10 * i as u64);
        let _ = sb.act(line);
    }
    sb.run_for(400);
    let _ = sb.view();
});
