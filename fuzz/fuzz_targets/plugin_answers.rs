//! libFuzzer target: the reconciler's checks on plugin answers, through a session.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| slotwise_fuzz::plugin_answers(data));
