//! libFuzzer target: buffers of allocations as records, read in place by the reconciler.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| slotwise_fuzz::records_input(data));
