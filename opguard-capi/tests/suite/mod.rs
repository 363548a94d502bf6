mod c_abi;
mod codes;
mod entries;
mod header;
mod no_threads;
mod support;
mod threads;
mod version;
