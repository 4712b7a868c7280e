//! The component: the reader exported through the WIT world `slotwise:scenario-reader/scenario-reader`.

use crate::wit::exports::slotwise::scenario_reader::reader::Guest;
use crate::{ReadError, Scenario, Syntax};

struct Component;

impl Guest for Component {
    fn read(text: String, syntax: Syntax) -> Result<Scenario, ReadError> {
        crate::read(&text, syntax)
    }

    fn scripted_reply(
        text: String,
        syntax: Syntax,
        plugin: u32,
        batch: String,
    ) -> Result<String, String> {
        crate::scripted_reply(&text, syntax, plugin, &batch)
    }
}

#[cfg(target_arch = "wasm32")]
crate::wit::export!(Component with_types_in crate::wit);
