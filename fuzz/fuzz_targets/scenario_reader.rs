//! libFuzzer target: the scenario reader on any bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| slotwise_fuzz::scenario_reader(data));
