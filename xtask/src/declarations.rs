//! The contract's types declared for the packages' users in slotwise's JSON rendering: TypeScript for npm, TypedDicts for Python, with the WIT's doc comments.

use crate::wit_types::{name_of, named_types, see_through};
use anyhow::{bail, Result};
use std::fmt::Write as _;
use wit_parser::{Docs, PackageId, Resolve, Type, TypeDefKind, TypeId};

/// The languages declarations are written in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Language {
    TypeScript,
    Python,
}

/// The named types of `package` and those it uses, declared in `language`.
pub fn declare(resolve: &Resolve, package: PackageId, language: Language) -> Result<String> {
    let writer = Writer {
        resolve,
        package,
        language,
    };
    let mut out = match language {
        Language::TypeScript => TYPESCRIPT_HEADER.to_string(),
        Language::Python => PYTHON_HEADER.to_string(),
    };
    for id in named_types(resolve, package) {
        writer.declaration(&mut out, id)?;
    }
    Ok(out)
}

const TYPESCRIPT_HEADER: &str = "\
// The contract's types in slotwise's JSON rendering (what `slotwise reconcile --json` prints),
// written by `cargo xtask packages` from the WIT. Do not edit.

/** A 64-bit integer: a number, or a BigInt beyond 2^53. */
export type Int = number | bigint;
";

const PYTHON_HEADER: &str = "\
\"\"\"The contract's types in slotwise's JSON rendering (what `slotwise reconcile --json` prints), written by `cargo xtask packages` from the WIT. Do not edit.\"\"\"

import sys
from typing import Any, Dict, List, Literal, Optional, Tuple, Union

if sys.version_info >= (3, 11):
    from typing import NotRequired, TypedDict
else:
    from typing_extensions import NotRequired, TypedDict
";

struct Writer<'a> {
    resolve: &'a Resolve,
    package: PackageId,
    language: Language,
}

impl Writer<'_> {
    /// The declaration of the named type `id`.
    fn declaration(&self, out: &mut String, id: TypeId) -> Result<()> {
        let def = &self.resolve.types[id];
        let name = self.name(id)?;
        out.push('\n');
        self.docs(out, &def.docs, "");
        match (&def.kind, self.language) {
            (TypeDefKind::Record(record), Language::TypeScript) => {
                writeln!(out, "export interface {name} {{")?;
                for field in &record.fields {
                    self.docs(out, &field.docs, "  ");
                    let optional = self.is_option(&field.ty);
                    let key = quoted(&field.name);
                    let ty = self.reference(&field.ty)?;
                    writeln!(out, "  {key}{}: {ty};", if optional { "?" } else { "" })?;
                }
                out.push_str("}\n");
            }
            (TypeDefKind::Record(record), Language::Python) => {
                writeln!(out, "{name} = TypedDict(\"{name}\", {{")?;
                for field in &record.fields {
                    self.docs(out, &field.docs, "    ");
                    let ty = self.reference(&field.ty)?;
                    let ty = if self.is_option(&field.ty) {
                        format!("NotRequired[{ty}]")
                    } else {
                        ty
                    };
                    writeln!(out, "    {}: {ty},", quoted(&field.name))?;
                }
                out.push_str("})\n");
            }
            (TypeDefKind::Enum(e), _) => {
                let cases: Vec<String> = e.cases.iter().map(|c| quoted(&c.name)).collect();
                self.alias(out, &name, &self.union_of_literals(&cases))?;
            }
            (TypeDefKind::Variant(v), _) => {
                let mut cases = Vec::new();
                let mut bare = Vec::new();
                for case in &v.cases {
                    match &case.ty {
                        None => bare.push(quoted(&case.name)),
                        Some(ty) => cases.push(self.single_key(out, &name, &case.name, ty)?),
                    }
                }
                if !bare.is_empty() {
                    cases.insert(0, self.union_of_literals(&bare));
                }
                self.alias(out, &name, &self.union(&cases))?;
            }
            (TypeDefKind::Resource, Language::TypeScript) => {
                writeln!(out, "export type {name} = unknown;")?;
            }
            (TypeDefKind::Resource, Language::Python) => writeln!(out, "{name} = Any")?,
            (
                TypeDefKind::Type(_)
                | TypeDefKind::Option(_)
                | TypeDefKind::List(_)
                | TypeDefKind::Tuple(_)
                | TypeDefKind::Result(_),
                _,
            ) => self.alias(out, &name, &self.structure(id)?)?,
            (other, _) => bail!("{} types are not declared", other.as_str()),
        }
        Ok(())
    }

    /// `name` stands for `ty`.
    fn alias(&self, out: &mut String, name: &str, ty: &str) -> Result<()> {
        match self.language {
            Language::TypeScript => writeln!(out, "export type {name} = {ty};")?,
            // A bare forward reference would make the name a string.
            Language::Python if ty.starts_with('"') => writeln!(out, "{name} = Union[{ty}]")?,
            Language::Python => writeln!(out, "{name} = {ty}")?,
        }
        Ok(())
    }

    /// A variant case with a payload, `{case: payload}`: inline in
    /// TypeScript, a TypedDict of its own in Python, named after both.
    fn single_key(&self, out: &mut String, variant: &str, case: &str, ty: &Type) -> Result<String> {
        let payload = self.reference(ty)?;
        Ok(match self.language {
            Language::TypeScript => format!("{{ {}: {payload} }}", quoted(case)),
            Language::Python => {
                let name = format!("{variant}{}", pascal(case));
                writeln!(
                    out,
                    "{name} = TypedDict(\"{name}\", {{{}: {payload}}})",
                    quoted(case)
                )?;
                self.forward(&name)
            }
        })
    }

    fn union_of_literals(&self, cases: &[String]) -> String {
        match self.language {
            Language::TypeScript => cases.join(" | "),
            Language::Python => format!("Literal[{}]", cases.join(", ")),
        }
    }

    fn union(&self, items: &[String]) -> String {
        match (self.language, items) {
            (_, [one]) => one.clone(),
            (Language::TypeScript, _) => items.join(" | "),
            (Language::Python, _) => format!("Union[{}]", items.join(", ")),
        }
    }

    /// A reference to a named type: quoted in Python, since a type may
    /// refer to one declared after it.
    fn forward(&self, name: &str) -> String {
        match self.language {
            Language::TypeScript => name.to_string(),
            Language::Python => format!("\"{name}\""),
        }
    }

    /// How a field or a parameter of type `ty` is written.
    fn reference(&self, ty: &Type) -> Result<String> {
        let ts = self.language == Language::TypeScript;
        Ok(match ty {
            Type::Bool if ts => "boolean".into(),
            Type::Bool => "bool".into(),
            Type::U8 | Type::U16 | Type::U32 | Type::S8 | Type::S16 | Type::S32 if ts => {
                "number".into()
            }
            Type::U64 | Type::S64 if ts => "Int".into(),
            Type::U8
            | Type::U16
            | Type::U32
            | Type::U64
            | Type::S8
            | Type::S16
            | Type::S32
            | Type::S64 => "int".into(),
            // Not finite is null in the JSON rendering.
            Type::F32 | Type::F64 if ts => "number | null".into(),
            Type::F32 | Type::F64 => "Optional[float]".into(),
            Type::Char | Type::String if ts => "string".into(),
            Type::Char | Type::String => "str".into(),
            Type::ErrorContext => bail!("error-context values are not declared"),
            Type::Id(id) => match (
                &self.resolve.types[*id].name,
                see_through(self.resolve, *id),
            ) {
                (Some(_), Some(original)) => self.reference(&Type::Id(original))?,
                (Some(_), None) => self.forward(&self.name(*id)?),
                (None, _) => self.structure(*id)?,
            },
        })
    }

    /// The structure of the type `id`, whether it has a name or not.
    fn structure(&self, id: TypeId) -> Result<String> {
        let ts = self.language == Language::TypeScript;
        Ok(match &self.resolve.types[id].kind {
            TypeDefKind::Type(inner) => self.reference(inner)?,
            TypeDefKind::Option(inner) if ts => format!("{} | null", self.reference(inner)?),
            TypeDefKind::Option(inner) => format!("Optional[{}]", self.reference(inner)?),
            TypeDefKind::List(inner) if ts => match self.reference(inner)? {
                simple if simple.chars().all(char::is_alphanumeric) => format!("{simple}[]"),
                compound => format!("Array<{compound}>"),
            },
            TypeDefKind::List(inner) => format!("List[{}]", self.reference(inner)?),
            TypeDefKind::Tuple(tuple) => {
                let items = tuple
                    .types
                    .iter()
                    .map(|t| self.reference(t))
                    .collect::<Result<Vec<_>>>()?
                    .join(", ");
                if ts {
                    format!("[{items}]")
                } else {
                    format!("Tuple[{items}]")
                }
            }
            TypeDefKind::Result(result) if ts => {
                let side =
                    |ty: Option<&Type>| ty.map_or(Ok("null".to_string()), |t| self.reference(t));
                format!(
                    "{{ Ok: {} }} | {{ Err: {} }}",
                    side(result.ok.as_ref())?,
                    side(result.err.as_ref())?
                )
            }
            TypeDefKind::Result(_) => "Dict[str, Any]".into(),
            TypeDefKind::Handle(_) if ts => "unknown".into(),
            TypeDefKind::Handle(_) => "Any".into(),
            other => bail!("anonymous {} types are not declared", other.as_str()),
        })
    }

    fn is_option(&self, ty: &Type) -> bool {
        match ty {
            Type::Id(id) => match &self.resolve.types[*id].kind {
                TypeDefKind::Option(_) => true,
                TypeDefKind::Type(inner) => self.is_option(inner),
                _ => false,
            },
            _ => false,
        }
    }

    /// The declared name of the named type `id`: `plugin/node-view` is `PluginNodeView`.
    fn name(&self, id: TypeId) -> Result<String> {
        Ok(pascal(&name_of(self.resolve, self.package, id)?))
    }

    /// The WIT's doc comment, as a comment of the language, at `indent`.
    fn docs(&self, out: &mut String, docs: &Docs, indent: &str) {
        let Some(text) = docs.contents.as_deref() else {
            return;
        };
        let lines: Vec<&str> = text.trim_end().lines().collect();
        match self.language {
            Language::TypeScript => {
                out.push_str(indent);
                out.push_str("/**");
                if let [line] = lines.as_slice() {
                    let _ = writeln!(out, " {} */", line.replace("*/", "*\\/"));
                    return;
                }
                out.push('\n');
                for line in &lines {
                    let _ = writeln!(out, "{indent} * {}", line.replace("*/", "*\\/"));
                }
                let _ = writeln!(out, "{indent} */");
            }
            Language::Python => {
                for line in &lines {
                    let _ = writeln!(out, "{indent}# {line}");
                }
            }
        }
    }
}

/// `node-view` as `NodeView`, `plugin/update-kind` as `PluginUpdateKind`.
fn pascal(name: &str) -> String {
    name.split(['-', '/'])
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or(String::new(), |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

/// A key or a literal, in double quotes (both languages read JSON's escapes).
fn quoted(name: &str) -> String {
    format!("\"{name}\"")
}
