//! Where in a scenario's text an error lies: from the position a parser reports, or by following a field's path through the text.

/// The line and column a parser's message ends with (`... at line 5 column 7`).
pub(crate) fn position_in_message(message: &str) -> Option<(u32, u32)> {
    let at = message.rfind(" at line ")?;
    let mut words = message[at..].split_whitespace().skip(2);
    let line = words.next()?.trim_end_matches(',').parse().ok()?;
    let column = match (words.next(), words.next()) {
        (Some("column"), Some(c)) => c
            .trim_end_matches(|ch: char| !ch.is_ascii_digit())
            .parse()
            .ok()?,
        _ => 1,
    };
    Some((line, column))
}

/// The line, from 1, that sets the field `path` (`allocations.web[1].node`)
/// in a YAML or JSON scenario, found by looking for each key of the path, and
/// counting list items, after the line the previous part was found on.
///
/// The scenario crate reports inconsistent fields by path only, since it
/// checks them after parsing; this is a good guess for an editor, not a
/// parser: the line of the deepest part found.
pub fn line_of_field(text: &str, path: &str) -> Option<u32> {
    let lines: Vec<&str> = text.lines().collect();
    let mut at: Option<usize> = None;
    for part in parts(path) {
        let from = at.unwrap_or(0);
        let found = match part {
            Part::Key(key) => {
                (from..lines.len()).find(|&i| sets_key(lines[i], key, i == from && at.is_some()))
            }
            Part::Item(n) => nth_item(&lines, from, n),
        };
        match found {
            Some(i) => at = Some(i),
            None => break,
        }
    }
    at.map(|i| i as u32 + 1)
}

/// A step of a field path.
#[derive(Debug, PartialEq)]
enum Part<'a> {
    Key(&'a str),
    Item(usize),
}

fn parts(path: &str) -> Vec<Part<'_>> {
    let mut out = Vec::new();
    for segment in path.split('.') {
        let (key, rest) = segment.split_at(segment.find('[').unwrap_or(segment.len()));
        if !key.is_empty() {
            out.push(Part::Key(key));
        }
        out.extend(
            rest.split(['[', ']'])
                .filter_map(|n| n.parse().ok())
                .map(Part::Item),
        );
    }
    out
}

/// Whether `line` sets `key`, as YAML (`key:`) or JSON (`"key":`) writes it.
/// On the line the previous part was found on, the key must come after the
/// start, so that `web:` does not match itself again as a nested key.
fn sets_key(line: &str, key: &str, same_line: bool) -> bool {
    let plain = format!("{key}:");
    let quoted = format!("\"{key}\"");
    let start = if same_line { 1 } else { 0 };
    [plain, quoted].iter().any(|k| {
        line.match_indices(k.as_str()).any(|(i, _)| {
            i >= start
                && line[..i]
                    .chars()
                    .next_back()
                    .is_none_or(|c| c.is_whitespace() || matches!(c, '{' | ',' | '-' | '"'))
        })
    })
}

/// The line of the `n`th item (from 0) of the list that starts after `from`:
/// YAML items are the lines starting with `- ` at the first item's
/// indentation; a JSON list puts one item per line or per `{`.
fn nth_item(lines: &[&str], from: usize, n: usize) -> Option<usize> {
    let first = (from + 1..lines.len()).find(|&i| {
        let t = lines[i].trim_start();
        t.starts_with("- ") || t == "-" || t.starts_with('{')
    })?;
    let indent = indentation(lines[first]);
    let mut seen = 0;
    for (i, line) in lines.iter().enumerate().skip(first) {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if indentation(line) < indent {
            return None;
        }
        if indentation(line) == indent && (t.starts_with('-') || t.starts_with('{')) {
            if seen == n {
                return Some(i);
            }
            seen += 1;
        }
    }
    None
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_yaml_message_gives_its_line_and_column() {
        assert_eq!(
            position_in_message("allocations.web[0]: unknown field `x` at line 5 column 19"),
            Some((5, 19))
        );
        assert_eq!(position_in_message("something else"), None);
    }

    #[test]
    fn a_json_message_gives_its_line_and_column() {
        assert_eq!(
            position_in_message("now: expected value at line 3 column 1"),
            Some((3, 1))
        );
    }

    #[test]
    fn a_path_is_split_into_keys_and_items() {
        assert_eq!(
            parts("job.groups[0].update"),
            vec![
                Part::Key("job"),
                Part::Key("groups"),
                Part::Item(0),
                Part::Key("update")
            ]
        );
    }

    #[test]
    fn a_field_of_a_list_item_is_found_on_its_line() {
        let text =
            "job:\n  groups:\n    - name: a\n      count: 2\n    - name: b\n      update: canary\n";
        assert_eq!(line_of_field(text, "job.groups[1].update"), Some(6));
        assert_eq!(line_of_field(text, "job.groups[0].count"), Some(4));
    }

    #[test]
    fn a_field_in_a_flow_mapping_is_found_on_the_item_line() {
        let text = "allocations:\n  web:\n    - {index: 0-4}\n    - {index: 5, node: n2}\n";
        assert_eq!(line_of_field(text, "allocations.web[1].node"), Some(4));
    }

    #[test]
    fn a_field_of_a_json_scenario_is_found_on_its_line() {
        let text = "{\n  \"nodes\": [\n    {\"id\": \"n1\"},\n    {\"id\": \"n1\"}\n  ]\n}\n";
        assert_eq!(line_of_field(text, "nodes[1].id"), Some(4));
    }

    #[test]
    fn an_unknown_path_gives_the_deepest_line_found() {
        assert_eq!(line_of_field("job:\n  id: x\n", "job.groups[0]"), Some(1));
        assert_eq!(line_of_field("now: now\n", "deployment.id"), None);
    }
}
