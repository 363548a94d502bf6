#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| opguard_fuzz::sqlite_capture(data));
