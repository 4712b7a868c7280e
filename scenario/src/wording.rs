//! Error messages in the scenario's own words: the names of Rust types replaced by what was expected, and a "did you mean" for a misspelled name.

/// `message` with Rust type names replaced and, for an unknown field or
/// value, the closest accepted name suggested; `text` is the document, to
/// quote a value the message only locates.
pub fn rewrite(message: &str, text: &str) -> String {
    let mut out = replace_type_names(&describe_scalar(message, text))
        .replace(", set DuplicateKeyPolicy in Options if acceptable", "")
        .replace("duplicate mapping key: ", "duplicate key: ")
        .replace("expected mapping start", "expected a map")
        .replace("invalid type: sequence", "invalid type: list");
    out = describe_budget(&out);
    out = name_primitives(&out);
    if let Some(hint) = did_you_mean(&out) {
        out.push_str(&format!(" (did you mean `{hint}`?)"));
    }
    out
}

/// "invalid u32 at line 3, column 14" as "`-3` is not a whole number from 0
/// to 4294967295, at line 3, column 14".
fn describe_scalar(message: &str, text: &str) -> String {
    let Some(rest) = message.strip_prefix("invalid ") else {
        return message.to_string();
    };
    let (ty, place) = rest.split_once(' ').unwrap_or((rest, ""));
    let wanted = match ty {
        "u8" => format!("a whole number from 0 to {}", u8::MAX),
        "u16" => format!("a whole number from 0 to {}", u16::MAX),
        "u32" => format!("a whole number from 0 to {}", u32::MAX),
        "u64" | "usize" => format!("a whole number from 0 to {}", u64::MAX),
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".to_string(),
        "f32" | "f64" => "a number".to_string(),
        "bool" => "true or false".to_string(),
        "char" => "a single character".to_string(),
        _ => return message.to_string(),
    };
    let value = scalar_at(place, text).map_or("the value".to_string(), |v| format!("`{v}`"));
    format!("{value} is not {wanted}, {place}")
        .trim_end_matches([',', ' '])
        .to_string()
}

/// The scalar at "line L, column C" in `text`.
fn scalar_at(place: &str, text: &str) -> Option<String> {
    let numbers: Vec<usize> = place
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    let (line, column) = (*numbers.first()?, *numbers.get(1)?);
    let line = text.lines().nth(line.checked_sub(1)?)?;
    let rest: String = line.chars().skip(column.checked_sub(1)?).collect();
    let value = rest
        .split([',', '}', ']', '#'])
        .next()?
        .trim()
        .chars()
        .take(40)
        .collect::<String>();
    (!value.is_empty()).then_some(value)
}

/// A YAML budget breach in words: "nested deeper than 64 levels", "aliases
/// stand for more than 100000 values".
fn describe_budget(message: &str) -> String {
    // Where an alias came from is said once, not for every step of its chain.
    let message = match message.find(" (defined at") {
        Some(at) => &message[..at],
        None => message,
    };
    if let Some(at) = message.find("alias replay limit exceeded") {
        let limit = message[at..].rsplit("> ").next().unwrap_or("the limit");
        let limit = limit.split_whitespace().next().unwrap_or(limit);
        let rest = message[at..]
            .find(" at line ")
            .map_or("", |i| &message[at + i..]);
        return format!(
            "{}aliases stand for more than {limit} values in all{rest}",
            &message[..at]
        );
    }
    let Some(at) = message.find("budget breached: ") else {
        return message.to_string();
    };
    let breach = &message[at + "budget breached: ".len()..];
    let name = breach.split_whitespace().next().unwrap_or_default();
    let number = breach
        .split(|c: char| !c.is_ascii_digit())
        .find(|n| !n.is_empty())
        .unwrap_or("too many");
    let rest = breach.find(" at line ").map_or("", |i| &breach[i..]);
    let what = match name {
        "Depth" => format!(
            "nested {number} levels deep; the limit is {}",
            crate::limits::MAX_DEPTH
        ),
        other => format!("too many YAML {} ({number})", other.to_ascii_lowercase()),
    };
    format!("{}{what}{rest}", &message[..at])
}

/// "expected u32" (as serde_json says it) in words.
fn name_primitives(message: &str) -> String {
    let mut out = message.to_string();
    for (ty, words) in [
        ("u8", "a whole number from 0 to 255"),
        ("u16", "a whole number from 0 to 65535"),
        ("u32", "a whole number from 0 to 4294967295"),
        ("u64", "a whole number from 0"),
        ("usize", "a whole number from 0"),
        ("i32", "a whole number"),
        ("i64", "a whole number"),
        ("f64", "a number"),
        ("bool", "true or false"),
    ] {
        for end in [" ", ""] {
            let phrase = format!("expected {ty}{end}");
            if end.is_empty() && !out.ends_with(&phrase) {
                continue;
            }
            out = out.replace(&phrase, &format!("expected {words}{end}"));
        }
    }
    out
}

/// The phrases serde derives from type names, in the words of the file.
fn replace_type_names(message: &str) -> String {
    let mut out = message.to_string();
    for prefix in [
        "data did not match any variant of untagged enum ",
        "untagged enum ",
        "struct variant ",
        "tuple variant ",
        "newtype variant ",
        "unit variant ",
        "struct ",
        "enum ",
    ] {
        while let Some(at) = out.find(prefix) {
            let rest = &out[at + prefix.len()..];
            let end = rest
                .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .unwrap_or(rest.len());
            let name = &rest[..end];
            if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_uppercase()) {
                break;
            }
            let words = if prefix.starts_with("data did not match") {
                format!("a value of none of the forms a {} takes", kebab(name))
            } else if prefix.contains("variant") {
                format!("the form of `{}`", kebab(name))
            } else {
                format!("a map of the `{}` form", kebab(name))
            };
            out.replace_range(at..at + prefix.len() + end, &words);
        }
    }
    out
}

/// `ReconcileInput` as the contract spells it: `reconcile-input`; a scenario
/// type's `File` or `Expect` suffix is dropped.
fn kebab(name: &str) -> String {
    let name = name
        .strip_suffix("File")
        .or_else(|| name.strip_suffix("Expect"))
        .unwrap_or(name);
    let mut out = String::new();
    for (i, c) in name.char_indices() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The accepted name closest to the unknown one an "unknown field" or
/// "unknown variant" message names, if one is close.
fn did_you_mean(message: &str) -> Option<String> {
    let unknown = ["unknown field `", "unknown variant `"]
        .iter()
        .find_map(|p| message.find(p).map(|at| at + p.len()))?;
    let given = &message[unknown..];
    let given = &given[..given.find('`')?];
    let expected = &message[message.find("expected ")? + "expected ".len()..];
    let expected = expected.split(" at line ").next().unwrap_or(expected);
    let candidates = expected
        .trim_start_matches("one of ")
        .split([',', ' '])
        .map(|c| c.trim().trim_matches('`'))
        .filter(|c| !c.is_empty() && *c != "or");
    closest(given, candidates)
}

/// The candidate nearest `given`, when near enough to be a slip.
pub fn closest<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(given, c), c))
        .filter(|(score, c)| *score >= 0.8 && *c != given)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_become_the_files_words() {
        let m = rewrite("invalid type: string \"x\", expected struct AllocFile", "");
        assert_eq!(
            m,
            "invalid type: string \"x\", expected a map of the `alloc` form"
        );
        let m = rewrite(
            "data did not match any variant of untagged enum UpdateFile",
            "",
        );
        assert!(!m.contains("UpdateFile") && !m.contains("untagged"), "{m}");
        let m = rewrite("invalid type: map, expected struct ReconcileInput", "");
        assert!(m.contains("reconcile-input"), "{m}");
    }

    #[test]
    fn a_value_of_the_wrong_kind_is_quoted() {
        let text = "job:\n  groups:\n    - count: -3\n";
        let m = rewrite("invalid u32 at line 3, column 14", text);
        assert_eq!(
            m,
            "`-3` is not a whole number from 0 to 4294967295, at line 3, column 14"
        );
    }

    #[test]
    fn json_type_names_are_said_in_words() {
        let m = rewrite(
            "invalid type: string \"x\", expected u32 at line 1 column 5",
            "",
        );
        assert_eq!(
            m,
            "invalid type: string \"x\", expected a whole number from 0 to 4294967295 at line 1 column 5"
        );
    }

    #[test]
    fn budget_breaches_are_said_in_words() {
        let m = rewrite(
            "budget breached: Depth { depth: 65 } at line 4, column 76",
            "",
        );
        assert_eq!(
            m,
            "nested 65 levels deep; the limit is 64 at line 4, column 76"
        );
        let m = rewrite(
            "alias replay limit exceeded: total_replayed_events=100001 > 100000 at line 9, column 2 (defined at line 3, column 4)",
            "",
        );
        assert_eq!(
            m,
            "aliases stand for more than 100000 values in all at line 9, column 2"
        );
    }

    #[test]
    fn a_misspelled_field_gets_a_suggestion() {
        let m = rewrite(
            "unknown field `clent`, expected one of index, id, client, node",
            "",
        );
        assert!(m.ends_with("(did you mean `client`?)"), "{m}");
        let m = rewrite(
            "unknown variant `runing`, expected one of `pending`, `running`",
            "",
        );
        assert!(m.ends_with("(did you mean `running`?)"), "{m}");
        let m = rewrite("unknown field `zzzz`, expected one of index, id", "");
        assert!(!m.contains("did you mean"), "{m}");
    }
}
