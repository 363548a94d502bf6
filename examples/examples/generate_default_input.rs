//! Writes the default input of `opguard inspect` (see
//! `opguard_examples::default_input`) into a directory, replacing what is
//! there: `cargo run -p opguard-examples --example generate_default_input
//! [-- DIR]` (default `opguard-cli/data/default-input`), and the README
//! walkthrough's alignment map of it (`opguard-cli/data/attention.map.json`).
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../opguard-cli/data/default-input")
        });
    std::fs::create_dir_all(&dir)?;
    let mut total = 0;
    for file in opguard_examples::default_input::generate()? {
        std::fs::write(dir.join(file.name), &file.bytes)?;
        println!("{} {} bytes", file.name, file.bytes.len());
        total += file.bytes.len();
    }
    println!("total {total} bytes in {}", dir.display());
    let map = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(opguard_examples::default_input::REVIEW_MAP_PATH);
    std::fs::write(&map, opguard_examples::default_input::review_map()?)?;
    println!("{}", map.display());
    Ok(())
}
