//! The names the contract's enum values go by in scenario files and renderings: their WIT names.

/// The WIT name of a contract enum value, as its JSON rendering spells it.
pub fn wit_name<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
