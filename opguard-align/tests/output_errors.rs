//! Why an output could not be created: a directory that refuses new files
//! is reported as not writable; any other failure to create the file is an
//! I/O error. Either way nothing is left behind.

use crate::{export_fixture, fixture, listing};

use opguard_align::export_records;

/// sysfs has no way to create files, so the kernel refuses with EACCES
/// even for root: a directory this process cannot write, whoever runs it.
#[cfg(target_os = "linux")]
#[test]
fn a_directory_that_refuses_new_files_is_not_writable() {
    let sys = std::path::Path::new("/sys");
    if !sys.join("kernel").is_dir() {
        eprintln!("skipped: /sys is not a mounted sysfs here");
        return;
    }
    let out = sys.join(format!("opguard-align-test-{}.json", std::process::id()));
    let err = export_records(&fixture("two_runs.records.jsonl"), &out).unwrap_err();
    assert_eq!(err.code(), "output_dir_not_writable", "{err}");
    assert_eq!(err.path(), Some(out.as_path()));
    assert!(!out.exists());
}

/// The temporary sibling is `.{name}.opguard-tmp-{pid}-{n}`: a name that
/// fits the file system by itself but not with that decoration cannot be
/// created, and that is an I/O error, not an unwritable directory.
#[test]
fn a_failure_to_create_the_temporary_file_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _) = export_fixture(dir.path());
    let before = listing(dir.path());
    let out = dir.path().join(format!("{}.json", "v".repeat(240)));
    let err = export_records(&fixture("two_runs.records.jsonl"), &out).unwrap_err();
    assert_eq!(err.code(), "io", "{err}");
    assert_eq!(err.path(), Some(out.as_path()));
    assert_eq!(listing(dir.path()), before);
}
