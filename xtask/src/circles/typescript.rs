//! TypeScript and JavaScript files as a graph: a file imports another when it names it, by a relative specifier, in an `import`, an `export ... from` or a dynamic `import()`.
//!
//! A worker started from a file (`new Worker(new URL(...))`) is another
//! program, not an import.

use super::graph::Graph;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Folders never scanned: installed packages and what builds write.
const SKIPPED: &[&str] = &["node_modules", "generated", "dist"];

/// Adds the script files under `dir` and their imports to `graph`, files
/// named relative to `base`.
///
/// # Errors
/// When a folder or file cannot be read.
pub fn add_folder(graph: &mut Graph, dir: &Path, base: &Path) -> Result<()> {
    let mut files = Vec::new();
    walk(dir, &mut files)?;
    let name = |p: &Path| p.strip_prefix(base).unwrap_or(p).display().to_string();
    for file in &files {
        let from = graph.file(&name(file));
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        for specifier in specifiers(&text) {
            if !specifier.starts_with('.') {
                continue;
            }
            let Some(target) = resolve(file, &specifier) else {
                continue;
            };
            let to = graph.file(&name(&target));
            graph.import(from, to, &specifier);
        }
    }
    Ok(())
}

/// The script files under `dir`, in path order, folders of `SKIPPED` aside.
fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    let skipped = |e: &walkdir::DirEntry| {
        e.file_type().is_dir() && e.file_name().to_str().is_some_and(|n| SKIPPED.contains(&n))
    };
    let entries = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !skipped(e));
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot read {}", dir.display()))?;
        let name = entry.file_name().to_str().unwrap_or_default();
        if entry.file_type().is_file() && is_script(name) {
            files.push(entry.into_path());
        }
    }
    Ok(())
}

fn is_script(name: &str) -> bool {
    [".ts", ".js", ".mts", ".mjs"]
        .iter()
        .any(|ext| name.ends_with(ext))
        && !name.ends_with(".d.ts")
}

/// The file `specifier`, written in `file`, names: as written, or with a
/// script extension, or a folder's index.
fn resolve(file: &Path, specifier: &str) -> Option<PathBuf> {
    let base = file.parent()?.join(specifier);
    let candidates = [
        base.clone(),
        base.with_extension("ts"),
        base.with_extension("js"),
        base.join("index.ts"),
        base.join("index.js"),
    ];
    candidates
        .into_iter()
        .find(|c| c.is_file())
        .and_then(|c| c.canonicalize().ok())
}

/// The module specifiers `text` imports, comments and other strings aside.
pub fn specifiers(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    // What code came before the current string literal, comments left out.
    let mut code = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match (c, next) {
            ('/', Some('/')) => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ('/', Some('*')) => {
                i += 2;
                while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                    i += 1;
                }
                i += 2;
            }
            ('\'' | '"' | '`', _) => {
                let quote = c;
                let mut literal = String::new();
                i += 1;
                while i < chars.len() && chars[i] != quote {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    if let Some(&ch) = chars.get(i) {
                        literal.push(ch);
                    }
                    i += 1;
                }
                i += 1;
                if quote != '`' && imports_next(&code) {
                    found.push(literal);
                }
                code.push('"');
            }
            _ => {
                code.push(c);
                i += 1;
            }
        }
    }
    found
}

/// Whether a string literal right after `code` is a module specifier: it
/// follows `from`, `import`, or `import(`.
fn imports_next(code: &str) -> bool {
    let before = code.trim_end();
    let before = before.strip_suffix('(').map_or(before, str::trim_end);
    ["from", "import"].iter().any(|word| {
        before.strip_suffix(word).is_some_and(|rest| {
            !rest
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.')
        })
    })
}

#[cfg(test)]
mod tests {
    use super::specifiers;

    #[test]
    fn imports_exports_and_dynamic_imports_are_read_and_comments_and_strings_are_not() {
        let text = r#"
            import { a } from './a.ts';
            import type { B } from "../b.js";
            export { c } from './c';
            import './side-effect.js';
            const lazy = () => import('./lazy.ts');
            // import { no } from './commented';
            /* import { no } from './block'; */
            const text = 'from';
            const url = new URL('./worker.ts', import.meta.url);
            const s = "import";
        "#;
        assert_eq!(
            specifiers(text),
            ["./a.ts", "../b.js", "./c", "./side-effect.js", "./lazy.ts"]
        );
    }
}
