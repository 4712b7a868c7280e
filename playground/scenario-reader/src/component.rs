//! The component: the reader exported through the WIT world `slotwise:scenario-reader/scenario-reader`.

use crate::wit::exports::slotwise::scenario_reader::reader::Guest;
use crate::{ReadError, Scenario, Syntax};

struct Component;

impl Guest for Component {
    fn read(text: String, syntax: Syntax) -> Result<Scenario, ReadError> {
        crate::read(&text, syntax)
    }

    fn scripted_replies(text: String, syntax: Syntax, question: String) -> Result<String, String> {
        crate::scripted_replies(&text, syntax, &question)
    }
}

#[cfg(target_arch = "wasm32")]
crate::wit::export!(Component with_types_in crate::wit);
