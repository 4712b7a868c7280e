//! libFuzzer target: the reader of outcome buffers, on any bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| slotwise_fuzz::encoded_outcome(data));
