#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| opguard_fuzz::table_stream(data));
