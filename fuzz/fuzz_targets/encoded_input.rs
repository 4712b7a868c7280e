//! libFuzzer target: the encoded path of the reconciler on any buffer.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| slotwise_fuzz::encoded_input(data));
