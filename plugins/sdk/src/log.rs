//! Lines for the operator: the host collects them per call and the plan reports them with the plugin's name and the hook. Natively (in a plugin's unit tests) they are kept in a buffer that [`take`] empties.

use crate::bindings::slotwise::plugin::log::Level;

/// A line that helps debugging.
pub fn debug(message: impl AsRef<str>) {
    write(Level::Debug, message.as_ref());
}

/// A line worth reading.
pub fn info(message: impl AsRef<str>) {
    write(Level::Info, message.as_ref());
}

/// A line about something that may be wrong.
pub fn warn(message: impl AsRef<str>) {
    write(Level::Warn, message.as_ref());
}

/// A line about something that is wrong.
pub fn error(message: impl AsRef<str>) {
    write(Level::Error, message.as_ref());
}

#[cfg(target_arch = "wasm32")]
fn write(level: Level, message: &str) {
    crate::bindings::slotwise::plugin::log::log(level, message);
}

#[cfg(not(target_arch = "wasm32"))]
std::thread_local! {
    static LINES: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

#[cfg(not(target_arch = "wasm32"))]
fn write(level: Level, message: &str) {
    let level = match level {
        Level::Debug => "debug",
        Level::Info => "info",
        Level::Warn => "warn",
        Level::Error => "error",
    };
    LINES.with(|l| l.borrow_mut().push(format!("{level}: {message}")));
}

/// The lines logged so far in this thread, as `level: message`, emptied.
#[cfg(not(target_arch = "wasm32"))]
pub fn take() -> Vec<String> {
    LINES.with(|l| std::mem::take(&mut *l.borrow_mut()))
}
