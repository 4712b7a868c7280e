//! The WIT packages resolve, and every item in them is documented.

use std::path::Path;
use wit_parser::{Docs, Resolve, TypeDefKind};

fn resolve(dir: &str) -> Resolve {
    let mut resolve = Resolve::default();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    if let Err(e) = resolve.push_dir(&path) {
        panic!("{dir} does not resolve: {e:#}");
    }
    resolve
}

/// Every undocumented item of `resolve`, by name.
fn undocumented(resolve: &Resolve) -> Vec<String> {
    let mut missing = Vec::new();
    let mut need = |docs: &Docs, what: String| {
        if docs.contents.as_deref().is_none_or(|d| d.trim().is_empty()) {
            missing.push(what);
        }
    };
    for (_, world) in &resolve.worlds {
        need(&world.docs, format!("world {}", world.name));
    }
    for (_, iface) in &resolve.interfaces {
        let name = iface.name.clone().unwrap_or_default();
        need(&iface.docs, format!("interface {name}"));
        for (fname, f) in &iface.functions {
            need(&f.docs, format!("{name}.{fname}"));
        }
        for (tname, &id) in &iface.types {
            let ty = &resolve.types[id];
            // A `use` brings a type in as an alias of its documented original.
            if let TypeDefKind::Type(wit_parser::Type::Id(original)) = ty.kind {
                if resolve.types[original].owner != ty.owner {
                    continue;
                }
            }
            need(&ty.docs, format!("{name}.{tname}"));
            match &ty.kind {
                TypeDefKind::Record(r) => r
                    .fields
                    .iter()
                    .for_each(|f| need(&f.docs, format!("{name}.{tname}.{}", f.name))),
                TypeDefKind::Enum(e) => e
                    .cases
                    .iter()
                    .for_each(|c| need(&c.docs, format!("{name}.{tname}.{}", c.name))),
                TypeDefKind::Variant(v) => v
                    .cases
                    .iter()
                    .for_each(|c| need(&c.docs, format!("{name}.{tname}.{}", c.name))),
                TypeDefKind::Flags(f) => f
                    .flags
                    .iter()
                    .for_each(|c| need(&c.docs, format!("{name}.{tname}.{}", c.name))),
                _ => {}
            }
        }
    }
    missing
}

#[test]
fn every_item_of_the_reconciler_package_is_documented() {
    assert_eq!(
        undocumented(&resolve("wit/reconciler")),
        Vec::<String>::new()
    );
}

#[test]
fn every_item_of_the_plugin_package_is_documented() {
    assert_eq!(undocumented(&resolve("wit/plugin")), Vec::<String>::new());
}

#[test]
fn the_reconciler_world_imports_nothing() {
    let resolve = resolve("wit/reconciler");
    let (_, world) = resolve
        .worlds
        .iter()
        .find(|(_, w)| w.name == "reconciler")
        .expect("the reconciler world exists");
    let imports: Vec<String> = world
        .imports
        .keys()
        .map(|k| resolve.name_world_key(k))
        .collect();
    assert_eq!(imports, Vec::<String>::new());
}
