//! What a document holds: a scenario file, or a bare reconciler input (as `slotwise input` prints it), told apart by its shape.

use crate::error::ScenarioError;
use crate::file::ScenarioFile;
use crate::limits::{MAX_ALLOCATIONS, MAX_NODES};
use crate::reading::read as read_text;
use crate::reading::Syntax;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use slotwise_reconciler::ReconcileInput;
use std::fmt;

/// A document, read.
pub(crate) enum Document {
    Scenario(Box<ScenarioFile>),
    Input(Box<ReconcileInput>),
}

/// Reads `text`: a bare input when its `allocations` is a list and it has an
/// `eval` (a scenario file's `allocations` is a map by group), else a scenario.
///
/// # Errors
/// When the text is empty, malformed, or of neither form.
pub(crate) fn read(text: &str, syntax: Syntax) -> Result<Document, ScenarioError> {
    if text.trim().is_empty() {
        return Err(empty());
    }
    // The probe reads only the shape; any error is left to the full read,
    // which names it with its field.
    let bare = read_text::<Option<Probe>>(text, syntax)
        .ok()
        .flatten()
        .is_some_and(|p| p.eval.is_some() && p.allocations == Some(Shape::List));
    if bare {
        let input: Box<ReconcileInput> = read_text(text, syntax)?;
        check_sizes(&input, "")?;
        return Ok(Document::Input(input));
    }
    match read_text::<Option<ScenarioFile>>(text, syntax)? {
        Some(file) => Ok(Document::Scenario(Box::new(file))),
        None => Err(empty()),
    }
}

fn empty() -> ScenarioError {
    ScenarioError::Format(
        "empty scenario: the file holds no fields; give at least `allocations`, `job` or `input`"
            .into(),
    )
}

/// Checks a scenario's full `input`: the compact fields are not given beside
/// it, and it is within the limits.
///
/// # Errors
/// Naming the compact field given, or the size over its limit.
pub(crate) fn check_raw(file: &ScenarioFile, input: &ReconcileInput) -> Result<(), ScenarioError> {
    let compact = [
        ("job", file.job.is_some()),
        ("job-id", file.job_id.is_some()),
        ("nodes", !file.nodes.is_empty()),
        ("allocations", !file.allocations.is_empty()),
        ("deployment", file.deployment.is_some()),
        ("eval", file.eval.is_some()),
        ("now", file.now.is_some()),
        ("explain", file.explain),
        ("ext", !file.ext.is_empty()),
    ];
    if let Some((field, _)) = compact.iter().find(|(_, given)| *given) {
        return Err(ScenarioError::Invalid {
            field: (*field).into(),
            message: "a scenario gives a full `input` or the compact fields, not both".into(),
        });
    }
    check_sizes(input, "input.")
}

/// The limits a full input must keep, as a scenario's must.
fn check_sizes(input: &ReconcileInput, prefix: &str) -> Result<(), ScenarioError> {
    if input.nodes.len() > MAX_NODES {
        return Err(ScenarioError::Invalid {
            field: format!("{prefix}nodes"),
            message: format!("{} nodes; the limit is {MAX_NODES}", input.nodes.len()),
        });
    }
    let total: u64 = input
        .allocations
        .iter()
        .map(|g| g.allocations.len() as u64)
        .sum();
    if total > MAX_ALLOCATIONS {
        return Err(ScenarioError::Invalid {
            field: format!("{prefix}allocations"),
            message: format!("{total} allocations; the limit is {MAX_ALLOCATIONS} over all groups"),
        });
    }
    Ok(())
}

/// The fields that tell the two forms apart; every other is skipped.
#[derive(Deserialize)]
struct Probe {
    allocations: Option<Shape>,
    eval: Option<IgnoredAny>,
}

/// Whether a value is a list, a map or something else.
#[derive(PartialEq, Eq)]
enum Shape {
    List,
    Other,
}

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ShapeVisitor;
        impl<'de> Visitor<'de> for ShapeVisitor {
            type Value = Shape;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Shape::List)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Shape::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Shape, E> {
                Ok(Shape::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Shape, E> {
                Ok(Shape::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Shape, E> {
                Ok(Shape::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Shape, E> {
                Ok(Shape::Other)
            }
            fn visit_str<E>(self, _: &str) -> Result<Shape, E> {
                Ok(Shape::Other)
            }
            fn visit_unit<E>(self) -> Result<Shape, E> {
                Ok(Shape::Other)
            }
        }
        d.deserialize_any(ShapeVisitor)
    }
}
