//! Calling the exported functions the way C does.

use std::ffi::{c_char, CStr, CString};
use std::path::PathBuf;

use serde_json::Value;

/// A JSON entry point's C signature.
pub type Entry = unsafe extern "C" fn(*const c_char) -> *mut c_char;

/// Calls `entry` with a raw pointer, reads the envelope, frees it.
pub fn call_raw(entry: Entry, request: *const c_char) -> Value {
    // SAFETY: `request` is NULL or a NUL-terminated string owned by the caller.
    let p = unsafe { entry(request) };
    assert!(!p.is_null(), "a JSON entry point returned NULL");
    // SAFETY: `p` is a NUL-terminated envelope returned by the library.
    let text = unsafe { CStr::from_ptr(p) }
        .to_str()
        .expect("envelope is UTF-8")
        .to_owned();
    // SAFETY: released exactly once.
    unsafe { opguard_capi::ffi::opguard_string_free(p) };
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("envelope is not JSON ({e}): {text}"))
}

/// Calls `entry` with `request`.
pub fn call(entry: Entry, request: &str) -> Value {
    let c = CString::new(request).expect("no NUL in a test request");
    call_raw(entry, c.as_ptr())
}

/// Calls `entry` and returns `value`, failing the test on an error envelope.
pub fn ok(entry: Entry, request: &str) -> Value {
    let v = call(entry, request);
    assert_eq!(v["ok"], true, "expected ok:true for {request}: {v}");
    assert!(v.get("error").is_none());
    v["value"].clone()
}

/// Calls `entry` and returns `error`, failing the test on an ok envelope.
pub fn err(entry: Entry, request: &str) -> Value {
    let v = call(entry, request);
    assert_eq!(v["ok"], false, "expected an error for {request}: {v}");
    let e = v["error"].clone();
    assert!(e["code"].is_string() && e["message"].is_string(), "{v}");
    e
}

/// The crate directory.
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace's fixtures folder.
pub fn fixtures() -> PathBuf {
    crate_dir().join("../fixtures")
}

/// The kernel-name parity fixture, parsed.
pub fn kernel_fixture() -> Value {
    let path = fixtures().join("kernel-name/kernel_symbols.json");
    let text = std::fs::read_to_string(&path).expect("read the kernel-name fixture");
    serde_json::from_str(&text).expect("the fixture is JSON")
}

/// The directory holding the library artifacts this test binary was built
/// with (`target/<profile>`), with the shared and static libraries in it.
///
/// `cargo test` builds only the rlib of this crate, so the first caller
/// builds the cdylib and staticlib with the same cargo, profile and target
/// directory (a fresh checkout has neither).
pub fn artifact_dir() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().expect("test executable path");
            let dir = exe
                .parent()
                .and_then(|deps| deps.parent())
                .expect("target/<profile>/deps/<test>")
                .to_path_buf();
            let target = dir.parent().expect("target/<profile>");
            let mut cargo = std::process::Command::new(env!("CARGO"));
            cargo
                .args(["build", "-p", "opguard-capi", "--lib", "--target-dir"])
                .arg(target)
                .current_dir(crate_dir());
            if dir.file_name().is_some_and(|p| p == "release") {
                cargo.arg("--release");
            }
            let status = cargo.status().expect("run cargo build for the C libraries");
            assert!(status.success(), "cargo build -p opguard-capi failed");
            dir
        })
        .clone()
}

/// The shared library's file name on this platform.
pub fn shared_lib_name() -> &'static str {
    if cfg!(target_os = "macos") {
        "libopguard_capi.dylib"
    } else {
        "libopguard_capi.so"
    }
}

/// The system libraries a Rust static library needs (`rustc --print native-static-libs`).
pub fn native_static_libs() -> &'static [&'static str] {
    if cfg!(target_os = "macos") {
        &["-lSystem", "-lc", "-lm"]
    } else {
        &[
            "-lgcc_s",
            "-lutil",
            "-lrt",
            "-lpthread",
            "-lm",
            "-ldl",
            "-lc",
        ]
    }
}
