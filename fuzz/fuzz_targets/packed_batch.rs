//! libFuzzer target: the reader of packed slot batches, on any bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| slotwise_fuzz::packed_batch(data));
