//! The component: the library exported through the WIT world `slotwise:reconciler/reconciler`.

use crate::wit::exports::slotwise::reconciler::reconcile::Guest;
use crate::{InputError, Plan, ReconcileInput};

struct Component;

impl Guest for Component {
    fn reconcile(input: ReconcileInput) -> Result<Plan, InputError> {
        crate::reconcile(&input)
    }
}

#[cfg(target_arch = "wasm32")]
crate::wit::export!(Component with_types_in crate::wit);
