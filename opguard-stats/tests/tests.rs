//! The integration tests: every statistic against scipy's values.

mod scipy;
