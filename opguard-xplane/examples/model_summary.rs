//! Prints what the model makes of an XSpace: launch region and counts.
use opguard_model::analysis::launch_region;
use opguard_model::{ArtifactSpec, ModelOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: model_summary FILE")?;
    let model = opguard_xplane::read_model(
        &path,
        ArtifactSpec::new(),
        &ModelOptions::new(),
        &opguard_xplane::ReadOptions::default(),
    )?;
    println!("{:?}", model.artifact());
    println!(
        "slices {} warnings {:?}",
        model.slices().len(),
        model.summary().warnings
    );
    println!(
        "{}",
        serde_json::to_string_pretty(&launch_region(&model, 5))?
    );
    Ok(())
}
