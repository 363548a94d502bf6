mod c_abi;
mod codes;
mod entries;
mod header;
mod support;
mod threads;
mod version;
