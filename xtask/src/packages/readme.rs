//! The README's "Embedding" snippets: each is, verbatim, a file that runs against the installed package and must print the output the README shows.

use crate::run::Workspace;
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Command;

/// The snippets: the language of each code block, and the file it must equal.
pub const SNIPPETS: [(&str, &str); 3] = [
    ("rust", "host/examples/embedding.rs"),
    ("js", "packages/npm/examples/embedding.mjs"),
    ("python", "packages/python/examples/embedding.py"),
];

/// Checks that every snippet is its file, and returns the output they all
/// must print (the section's `text` block).
pub fn expected_output(ws: &Workspace) -> Result<String> {
    let readme = std::fs::read_to_string(ws.root.join("README.md"))?;
    let start = readme
        .find("\n## Embedding\n")
        .context("README.md has no \"Embedding\" section")?;
    let section = &readme[start + 1..];
    let section = section[3..]
        .find("\n## ")
        .map_or(section, |end| &section[..end + 3]);
    for (language, file) in SNIPPETS {
        let snippet = block(section, language)?;
        let tested = std::fs::read_to_string(ws.root.join(file))?;
        if snippet != tested {
            bail!("README.md's {language} snippet under \"Embedding\" is not {file}, verbatim");
        }
    }
    block(section, "text")
}

/// The code block of `language` in `text`, without its fences.
fn block(text: &str, language: &str) -> Result<String> {
    let fence = format!("```{language}\n");
    let start = text
        .find(&fence)
        .with_context(|| format!("README.md's \"Embedding\" has no {language} block"))?
        + fence.len();
    let length = text[start..]
        .find("```\n")
        .with_context(|| format!("README.md's {language} block does not end"))?;
    Ok(text[start..start + length].to_string())
}

/// Runs `program` with `args` from the workspace's root and checks that it
/// prints `expected`.
pub fn prints(ws: &Workspace, program: &Path, args: &[&str], expected: &str) -> Result<()> {
    println!(
        "$ {} {} (prints the README's output?)",
        program.display(),
        args.join(" ")
    );
    let output = Command::new(program)
        .args(args)
        .current_dir(&ws.root)
        .output()
        .with_context(|| format!("cannot run {}", program.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() || stdout != expected {
        bail!(
            "`{} {}` ({}) printed\n{stdout}{}\ninstead of README.md's\n{expected}",
            program.display(),
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr),
        );
    }
    Ok(())
}
