//! Sizes the component's initial memory: 512 KiB, so that a small reconcile's heap fits without growing the memory, and the host's reset has little to scan (see `src/small_blocks.rs`).

fn main() {
    // Only the component, this library linked as a `cdylib` for wasm32 (the
    // manifest declares no `cdylib`: `cargo rustc --crate-type cdylib` makes
    // one, and cargo passes the argument to every target it links). Other
    // crates that use the library link with their linker's defaults.
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg=--initial-memory=524288");
    }
}
