//! The version function reports Cargo.toml's version; the ABI version is the header's.

use std::ffi::CStr;

use crate::suite::support::crate_dir;

fn manifest_version() -> String {
    let manifest = std::fs::read_to_string(crate_dir().join("Cargo.toml")).expect("Cargo.toml");
    let mut in_package = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_package = t == "[package]";
        } else if in_package {
            if let Some(v) = t.strip_prefix("version = ") {
                return v.trim_matches('"').to_owned();
            }
        }
    }
    panic!("Cargo.toml has no [package] version");
}

#[test]
fn version_is_cargo_tomls_version() {
    let p = opguard_capi::ffi::opguard_version();
    assert!(!p.is_null());
    // SAFETY: a static NUL-terminated string.
    let v = unsafe { CStr::from_ptr(p) }.to_str().expect("UTF-8");
    assert_eq!(v, manifest_version());
    // Static: the same pointer every time, never freed.
    assert_eq!(p, opguard_capi::ffi::opguard_version());
}

#[test]
fn abi_version_is_one() {
    assert_eq!(opguard_capi::ffi::opguard_abi_version(), 1);
}

#[test]
fn release_profile_keeps_unwinding_for_the_panic_boundary() {
    let root = std::fs::read_to_string(crate_dir().join("../Cargo.toml")).expect("root Cargo.toml");
    let release = root
        .split("[profile.release]")
        .nth(1)
        .expect("the root Cargo.toml has [profile.release]");
    let release = release.split("\n[").next().unwrap_or(release);
    assert!(
        release.lines().any(|l| l.trim().replace(' ', "") == "panic=\"unwind\""),
        "[profile.release] must keep panic = \"unwind\", or catch_unwind at the C boundary is useless"
    );
}
