//! The WIT contract described as JSON, so that JavaScript can convert values for the component without parsing WIT.

use crate::run::Workspace;
use anyhow::{bail, Context, Result};
use std::fmt::Write as _;
use std::path::PathBuf;
use wit_parser::{InterfaceId, PackageId, Resolve, Type, TypeDefKind, TypeId, TypeOwner};

/// The interface whose named types are described.
const TYPES_INTERFACE: &str = "types";

/// What the names of types from the plugin package start with, since some
/// (`classification`, `update-kind`, ...) are also names of the reconciler's.
const PLUGIN_PREFIX: &str = "plugin/";

/// Describes `wit/reconciler` into `target/slotwise/wit-types.json`.
///
/// The description holds every named type of the package's interfaces, in
/// WIT order, then those of the plugin package it uses, named `plugin/...`,
/// and the signature of every function of the package:
///
/// ```json
/// {
///   "package": "slotwise:reconciler@0.1.0",
///   "interface": "types",
///   "types": {
///     "timestamp": {"kind": "alias", "type": "s64"},
///     "job-type": {"kind": "enum", "cases": ["service", "batch"]},
///     "job": {"kind": "record", "fields": [{"name": "id", "type": "string"}]},
///     "shape": {"kind": "variant", "cases": [{"name": "dot", "type": null}]},
///     "perms": {"kind": "flags", "flags": ["read", "write"]}
///   },
///   "functions": [{"interface": "reconcile", "name": "reconcile",
///                  "params": [{"name": "input", "type": {"ref": "reconcile-input"}}],
///                  "result": {"result": {"ok": {"ref": "plan"}, "err": {"ref": "input-error"}}}}]
/// }
/// ```
///
/// A type is a primitive name (`"u32"`, `"s64"`, `"string"`, ...), `{"ref": name}`
/// for a named type, `{"option": T}`, `{"list": T}`, `{"tuple": [T, ...]}`,
/// `{"result": {"ok": T | null, "err": T | null}}`, or `{"handle": name}` for
/// a resource (whose definition is `{"kind": "resource"}`).
pub fn write(ws: &Workspace) -> Result<PathBuf> {
    let (resolve, package) = parse(ws)?;
    let json = describe(&resolve, package)?;
    let out = ws.root.join("target/slotwise/wit-types.json");
    std::fs::create_dir_all(ws.root.join("target/slotwise"))?;
    let mut text = String::new();
    json.write(&mut text, 0)?;
    text.push('\n');
    std::fs::write(&out, text).with_context(|| format!("writing {}", out.display()))?;
    println!("WIT types: {}", out.display());
    Ok(out)
}

/// The reconciler's WIT package, parsed with the packages it uses.
pub fn parse(ws: &Workspace) -> Result<(Resolve, PackageId)> {
    let wit = ws.root.join("wit/reconciler");
    let mut resolve = Resolve::default();
    let (package, _) = resolve
        .push_dir(&wit)
        .with_context(|| format!("parsing the WIT in {}", wit.display()))?;
    Ok((resolve, package))
}

/// Every named type of `package`'s interfaces in WIT order, then those of
/// the packages it uses; a `use` is left out, its original stands for it.
pub fn named_types(resolve: &Resolve, package: PackageId) -> Vec<TypeId> {
    let mut interfaces: Vec<InterfaceId> = resolve
        .interfaces
        .iter()
        .filter(|(_, i)| i.name.is_some())
        .map(|(id, _)| id)
        .collect();
    interfaces.sort_by_key(|id| resolve.interfaces[*id].package != Some(package));
    interfaces
        .into_iter()
        .flat_map(|iface| resolve.interfaces[iface].types.values().copied())
        .filter(|&id| see_through(resolve, id).is_none())
        .collect()
}

/// The original of `id` when `id` is a `use` of a type defined elsewhere.
pub fn see_through(resolve: &Resolve, id: TypeId) -> Option<TypeId> {
    let def = &resolve.types[id];
    match def.kind {
        TypeDefKind::Type(Type::Id(original)) if resolve.types[original].owner != def.owner => {
            Some(original)
        }
        _ => None,
    }
}

/// The name the description gives the named type `id`: its WIT name, with
/// `plugin/` before it when it belongs to another package than `package`.
pub fn name_of(resolve: &Resolve, package: PackageId, id: TypeId) -> Result<String> {
    let def = &resolve.types[id];
    let name = def
        .name
        .as_deref()
        .context("an anonymous type has no name")?;
    let TypeOwner::Interface(owner) = def.owner else {
        bail!("type `{name}` belongs to no interface");
    };
    Ok(if resolve.interfaces[owner].package == Some(package) {
        name.to_string()
    } else {
        format!("{PLUGIN_PREFIX}{name}")
    })
}

/// The description of `package`.
fn describe(resolve: &Resolve, package: PackageId) -> Result<Json> {
    let pkg = &resolve.packages[package];
    let describer = Describer { resolve, package };
    let mut types = Vec::new();
    for id in named_types(resolve, package) {
        let name = name_of(resolve, package, id)?;
        let described = describer
            .definition(id)
            .with_context(|| format!("describing type `{name}`"))?;
        types.push((name, described));
    }

    let mut functions = Vec::new();
    for (iface_name, &iface) in &pkg.interfaces {
        for (name, func) in &resolve.interfaces[iface].functions {
            let context = || format!("describing function `{iface_name}.{name}`");
            let params = func
                .params
                .iter()
                .map(|p| {
                    Ok(Json::object([
                        ("name", Json::str(&p.name)),
                        ("type", describer.reference(&p.ty)?),
                    ]))
                })
                .collect::<Result<Vec<_>>>()
                .with_context(context)?;
            let result = match &func.result {
                Some(ty) => describer.reference(ty).with_context(context)?,
                None => Json::Null,
            };
            functions.push(Json::object([
                ("interface", Json::str(iface_name)),
                ("name", Json::str(name)),
                ("params", Json::Array(params)),
                ("result", result),
            ]));
        }
    }

    Ok(Json::object([
        ("package", Json::str(&pkg.name.to_string())),
        ("interface", Json::str(TYPES_INTERFACE)),
        ("types", Json::Object(types)),
        ("functions", Json::Array(functions)),
    ]))
}

/// Renders the types of one `Resolve`, naming them as the description does.
struct Describer<'a> {
    resolve: &'a Resolve,
    package: PackageId,
}

impl Describer<'_> {
    /// The name the description gives the named type `id`.
    fn name_of(&self, id: TypeId) -> Result<String> {
        name_of(self.resolve, self.package, id)
    }

    /// The definition of the named type `id` of the `types` interface.
    fn definition(&self, id: TypeId) -> Result<Json> {
        let def = &self.resolve.types[id];
        Ok(match &def.kind {
            TypeDefKind::Record(record) => {
                let fields = record
                    .fields
                    .iter()
                    .map(|f| {
                        Ok(Json::object([
                            ("name", Json::str(&f.name)),
                            ("type", self.reference(&f.ty)?),
                        ]))
                    })
                    .collect::<Result<Vec<_>>>()?;
                Json::object([
                    ("kind", Json::str("record")),
                    ("fields", Json::Array(fields)),
                ])
            }
            TypeDefKind::Enum(e) => Json::object([
                ("kind", Json::str("enum")),
                (
                    "cases",
                    Json::Array(e.cases.iter().map(|c| Json::str(&c.name)).collect()),
                ),
            ]),
            TypeDefKind::Variant(v) => {
                let cases = v
                    .cases
                    .iter()
                    .map(|c| {
                        Ok(Json::object([
                            ("name", Json::str(&c.name)),
                            ("type", self.optional(c.ty.as_ref())?),
                        ]))
                    })
                    .collect::<Result<Vec<_>>>()?;
                Json::object([
                    ("kind", Json::str("variant")),
                    ("cases", Json::Array(cases)),
                ])
            }
            TypeDefKind::Resource => Json::object([("kind", Json::str("resource"))]),
            TypeDefKind::Flags(f) => Json::object([
                ("kind", Json::str("flags")),
                (
                    "flags",
                    Json::Array(f.flags.iter().map(|f| Json::str(&f.name)).collect()),
                ),
            ]),
            // `type a = b`, and a name given to a structural type such as
            // `type pairs = list<tuple<string, string>>`.
            TypeDefKind::Type(_)
            | TypeDefKind::Option(_)
            | TypeDefKind::List(_)
            | TypeDefKind::Tuple(_)
            | TypeDefKind::Result(_) => {
                Json::object([("kind", Json::str("alias")), ("type", self.structure(id)?)])
            }
            other => bail!("{} types are not described", other.as_str()),
        })
    }

    /// A reference to `ty`: a primitive name, a named type, or a structure.
    fn reference(&self, ty: &Type) -> Result<Json> {
        Ok(match ty {
            Type::Bool => Json::str("bool"),
            Type::U8 => Json::str("u8"),
            Type::U16 => Json::str("u16"),
            Type::U32 => Json::str("u32"),
            Type::U64 => Json::str("u64"),
            Type::S8 => Json::str("s8"),
            Type::S16 => Json::str("s16"),
            Type::S32 => Json::str("s32"),
            Type::S64 => Json::str("s64"),
            Type::F32 => Json::str("f32"),
            Type::F64 => Json::str("f64"),
            Type::Char => Json::str("char"),
            Type::String => Json::str("string"),
            Type::ErrorContext => bail!("error-context values are not described"),
            Type::Id(id) => {
                let def = &self.resolve.types[*id];
                match (&def.name, see_through(self.resolve, *id)) {
                    (Some(_), Some(original)) => self.reference(&Type::Id(original))?,
                    (Some(_), None) => Json::object([("ref", Json::Str(self.name_of(*id)?))]),
                    (None, _) => self.structure(*id)?,
                }
            }
        })
    }

    /// The structure of the type `id`, whether it has a name or not.
    fn structure(&self, id: TypeId) -> Result<Json> {
        let def = &self.resolve.types[id];
        Ok(match &def.kind {
            TypeDefKind::Type(inner) => self.reference(inner)?,
            TypeDefKind::Option(inner) => Json::object([("option", self.reference(inner)?)]),
            TypeDefKind::List(inner) => Json::object([("list", self.reference(inner)?)]),
            TypeDefKind::Tuple(tuple) => Json::object([(
                "tuple",
                Json::Array(
                    tuple
                        .types
                        .iter()
                        .map(|t| self.reference(t))
                        .collect::<Result<_>>()?,
                ),
            )]),
            TypeDefKind::Handle(wit_parser::Handle::Own(r) | wit_parser::Handle::Borrow(r)) => {
                Json::object([("handle", Json::Str(self.name_of(*r)?))])
            }
            TypeDefKind::Result(result) => Json::object([(
                "result",
                Json::object([
                    ("ok", self.optional(result.ok.as_ref())?),
                    ("err", self.optional(result.err.as_ref())?),
                ]),
            )]),
            other => bail!("anonymous {} types are not described", other.as_str()),
        })
    }

    /// A reference to `ty`, or `null` when there is none.
    fn optional(&self, ty: Option<&Type>) -> Result<Json> {
        ty.map_or(Ok(Json::Null), |t| self.reference(t))
    }
}

/// Just enough JSON to write the description, keeping the order of keys.
enum Json {
    Null,
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn str(s: &str) -> Self {
        Json::Str(s.to_string())
    }

    fn object<const N: usize>(entries: [(&str, Json); N]) -> Self {
        Json::Object(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }

    /// Writes the value at nesting `depth`: short arrays and objects of
    /// scalars on one line, the rest one entry a line.
    fn write(&self, out: &mut String, depth: usize) -> Result<()> {
        let inline = self.is_flat();
        let (newline, indent, close_indent) = if inline {
            (" ".to_string(), String::new(), String::new())
        } else {
            ("\n".to_string(), "  ".repeat(depth + 1), "  ".repeat(depth))
        };
        match self {
            Json::Null => out.push_str("null"),
            Json::Str(s) => write_string(out, s)?,
            Json::Array(items) if items.is_empty() => out.push_str("[]"),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    out.push_str(if i == 0 { "" } else { "," });
                    out.push_str(if inline && i == 0 { "" } else { &newline });
                    out.push_str(&indent);
                    item.write(out, depth + 1)?;
                }
                out.push_str(if inline { "" } else { &newline });
                out.push_str(&close_indent);
                out.push(']');
            }
            Json::Object(entries) if entries.is_empty() => out.push_str("{}"),
            Json::Object(entries) => {
                out.push('{');
                for (i, (key, value)) in entries.iter().enumerate() {
                    out.push_str(if i == 0 { "" } else { "," });
                    out.push_str(if inline && i == 0 { "" } else { &newline });
                    out.push_str(&indent);
                    write_string(out, key)?;
                    out.push_str(": ");
                    value.write(out, depth + 1)?;
                }
                out.push_str(if inline { "" } else { &newline });
                out.push_str(&close_indent);
                out.push('}');
            }
        }
        Ok(())
    }

    /// Whether the value is small enough to write on one line: a type
    /// reference such as `{"option": {"ref": "job"}}`, or a short list of names.
    fn is_flat(&self) -> bool {
        match self {
            Json::Null | Json::Str(_) => true,
            Json::Array(items) => {
                let scalars = items.iter().all(|i| matches!(i, Json::Null | Json::Str(_)));
                let width: usize = items
                    .iter()
                    .map(|i| match i {
                        Json::Str(s) => s.len() + 4,
                        _ => 6,
                    })
                    .sum();
                scalars && width <= 72
            }
            Json::Object(entries) => entries.len() <= 2 && entries.iter().all(|(_, v)| v.is_flat()),
        }
    }
}

/// Writes `s` as a JSON string.
fn write_string(out: &mut String, s: &str) -> Result<()> {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => write!(out, "\\u{:04x}", u32::from(c))?,
            c => out.push(c),
        }
    }
    out.push('"');
    Ok(())
}
