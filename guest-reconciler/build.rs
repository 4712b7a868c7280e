//! Sizes the component's initial memory: 512 KiB, so that a small reconcile's heap fits without growing the memory, and the host's reset has little to scan (see `src/small_blocks.rs`).

fn main() {
    // Only the component: the library linked natively, and other wasm
    // crates that use it, keep their linker's defaults.
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-cdylib=--initial-memory=524288");
    }
}
