//! A skip names the test that skipped, where, and why, in the log
//! `scripts/test` lists at the end; a test asking twice is listed once.

#[test]
fn a_skip_names_its_test_and_place_once() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("skipped.tsv");
    // The only test of this binary: nothing else reads the environment.
    std::env::set_var("OPGUARD_SKIP_LOG", &log);
    let line = line!() + 1;
    opguard_testdata::skipped("needs a reason");
    opguard_testdata::skipped("needs it again");
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        text,
        format!(
            "a_skip_names_its_test_and_place_once\ttestdata/tests/skip.rs:{line}\tneeds a reason\n"
        )
    );
}
