//! `slotwise plugin new`: a working plugin project, in Rust or JavaScript: the SDK (or jco and the plugin package's WIT), one hook, a README, unit tests, and a scenario that `slotwise check` runs against the built component.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// The language of a new plugin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// Rust, on slotwise's plugin SDK.
    Rust,
    /// JavaScript, componentized with jco's QuickJS backend.
    Js,
}

/// One file of a project: where it goes, and its template.
struct File {
    path: &'static str,
    template: &'static str,
}

const SCENARIO: &str = include_str!("../../templates/plugin/scenario.yaml.tmpl");

const RUST: &[File] = &[
    File {
        path: "Cargo.toml",
        template: include_str!("../../templates/plugin/rust/Cargo.toml.tmpl"),
    },
    File {
        path: "src/{{crate}}.rs",
        template: include_str!("../../templates/plugin/rust/src/plugin.rs.tmpl"),
    },
    File {
        path: "README.md",
        template: include_str!("../../templates/plugin/rust/README.md.tmpl"),
    },
    File {
        path: ".gitignore",
        template: include_str!("../../templates/plugin/rust/gitignore.tmpl"),
    },
    File {
        path: "tests/a-frozen-group-keeps-its-allocations.yaml",
        template: SCENARIO,
    },
];

const JS: &[File] = &[
    File {
        path: "package.json",
        template: include_str!("../../templates/plugin/js/package.json.tmpl"),
    },
    File {
        path: "src/{{name}}.js",
        template: include_str!("../../templates/plugin/js/src/plugin.js.tmpl"),
    },
    File {
        path: "src/freeze.js",
        template: include_str!("../../templates/plugin/js/src/freeze.js"),
    },
    File {
        path: "test/freeze.test.js",
        template: include_str!("../../templates/plugin/js/test/freeze.test.js"),
    },
    File {
        path: "wit/plugin.wit",
        template: include_str!("../../../wit/plugin/plugin.wit"),
    },
    File {
        path: "README.md",
        template: include_str!("../../templates/plugin/js/README.md.tmpl"),
    },
    File {
        path: ".gitignore",
        template: include_str!("../../templates/plugin/js/gitignore.tmpl"),
    },
    File {
        path: "tests/a-frozen-group-keeps-its-allocations.yaml",
        template: SCENARIO,
    },
];

/// Writes the project of plugin `name` in `lang` into `dir` (default:
/// `./NAME`), which must not hold anything yet; a Rust project depends on
/// the SDK at `sdk` (default: found beside this executable's workspace).
/// Returns the project's directory.
///
/// # Errors
/// When the name is not kebab-case, the directory is not empty, the SDK
/// cannot be found, or a file cannot be written.
pub fn run(name: &str, lang: Lang, dir: Option<&Path>, sdk: Option<&Path>) -> Result<PathBuf> {
    check_name(name)?;
    let dir = dir.map_or_else(|| PathBuf::from(name), Path::to_path_buf);
    if dir.read_dir().is_ok_and(|mut d| d.next().is_some()) {
        bail!("{} is not empty; give another --dir", dir.display());
    }
    let sdk = match lang {
        Lang::Rust => toml_string(&find_sdk(sdk)?),
        Lang::Js => String::new(),
    };
    let words = [
        ("{{name}}", name.to_string()),
        ("{{crate}}", name.replace('-', "_")),
        ("{{Type}}", type_name(name)),
        ("{{sdk}}", sdk),
    ];
    let fill = |text: &str| {
        words
            .iter()
            .fold(text.to_string(), |t, (word, value)| t.replace(word, value))
    };
    let files = match lang {
        Lang::Rust => RUST,
        Lang::Js => JS,
    };
    for file in files {
        let path = dir.join(fill(file.path));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, fill(file.template))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(dir)
}

/// A plugin's name is kebab-case: it names the crate or package, its files
/// and its reports.
fn check_name(name: &str) -> Result<()> {
    let mut chars = name.chars();
    let starts = chars.next().is_some_and(|c| c.is_ascii_lowercase());
    let rest = chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !starts || !rest || name.ends_with('-') || name.contains("--") {
        bail!("a plugin's name is kebab-case, like `freeze-web`: lower-case letters, digits and single dashes, starting with a letter; not `{name}`");
    }
    Ok(())
}

/// `freeze-web` as a Rust type: `FreezeWeb`.
fn type_name(name: &str) -> String {
    name.split('-')
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The SDK's directory: `given`, else `plugins/sdk` of the workspace this
/// executable was built in, else of the one the current directory is in.
fn find_sdk(given: Option<&Path>) -> Result<PathBuf> {
    if let Some(sdk) = given {
        return sdk
            .canonicalize()
            .with_context(|| format!("no SDK at {}", sdk.display()));
    }
    let starts = [std::env::current_exe().ok(), std::env::current_dir().ok()];
    for start in starts.into_iter().flatten() {
        for dir in start.ancestors() {
            let sdk = dir.join("plugins/sdk");
            if sdk.join("Cargo.toml").is_file() {
                return Ok(sdk.canonicalize()?);
            }
        }
    }
    bail!("cannot find slotwise's plugin SDK; give its directory with --sdk (plugins/sdk in the slotwise repository)")
}

/// `path` as a TOML basic string's contents.
fn toml_string(path: &Path) -> String {
    path.display()
        .to_string()
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::{check_name, type_name};

    #[test]
    fn a_kebab_case_name_is_taken_and_becomes_a_type_name() {
        assert!(check_name("freeze-web2").is_ok());
        assert_eq!(type_name("freeze-web2"), "FreezeWeb2");
    }

    #[test]
    fn names_that_are_not_kebab_case_are_refused() {
        for bad in [
            "",
            "Freeze",
            "2fast",
            "freeze_web",
            "freeze-",
            "a--b",
            "a b",
        ] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }
}
