//! Integration tests for opguard-formats: one binary, one module per concern.
mod detection;
mod device_time;
#[cfg(feature = "nsys")]
mod nsys;
#[cfg(feature = "xplane")]
mod xplane;
