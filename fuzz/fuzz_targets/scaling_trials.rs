#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| opguard_fuzz::scaling_trials(data));
