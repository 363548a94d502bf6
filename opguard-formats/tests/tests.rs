//! Integration tests for opguard-formats: one binary, one module per concern.
mod detection;
mod device_time;
#[cfg(feature = "xplane")]
mod xplane;
#[cfg(feature = "nsys")]
mod nsys;
