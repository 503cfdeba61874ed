//! The one panic guard: no panic may unwind out of the library into foreign
//! frames, whether from a C export (the `isthmus-ffi` crate runs every export's
//! body through [`catch`]) or from a release callback the Arrow layer hands to a
//! consumer ([`crate::arrow::export`]). It sits below both so that neither
//! depends on the other for it.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe, PanicHookInfo};
use std::sync::Once;

use crate::error::{Error, Result};

/// Runs `body` for a caller that cannot report errors (an export without an
/// error slot, a release callback): a panic yields `fallback`.
pub fn guard_infallible<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch(body).unwrap_or(fallback)
}

thread_local! {
    /// How many guards are active on this thread; the hook stays quiet only then.
    static GUARD_DEPTH: Cell<u32> = const { Cell::new(0) };
    /// The last caught panic's "panicked at file:line:col: message".
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The shared guard: catches a panic from `body` and describes it.
pub fn catch<T>(body: impl FnOnce() -> T) -> Result<T> {
    // Thread-locals are gone while a thread exits; the guard must still work then.
    let depth = |delta: i32| {
        let _ = GUARD_DEPTH.try_with(|d| d.set(d.get().wrapping_add_signed(delta)));
    };
    depth(1);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        install_panic_hook();
        body()
    }));
    depth(-1);
    result.map_err(|payload| {
        let recorded = LAST_PANIC
            .try_with(|last| last.borrow_mut().take())
            .ok()
            .flatten();
        let message = recorded.unwrap_or_else(|| {
            // Someone replaced our hook; the payload still has the message.
            format!(
                "panicked at an unknown location: {}",
                payload_text(payload.as_ref())
            )
        });
        drop_payload(payload);
        Error::internal(message)
    })
}

/// Records panics raised inside a guard in [`LAST_PANIC`] instead of printing
/// them: the library must not write to the host's stderr, and the message goes
/// to the caller. Panics elsewhere (on threads the host's Rust code runs, say)
/// still reach the previous hook.
fn install_panic_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info: &PanicHookInfo<'_>| {
            let inside_guard = GUARD_DEPTH
                .try_with(|depth| depth.get() > 0)
                .unwrap_or(false);
            if !inside_guard {
                return previous(info);
            }
            let location = info
                .location()
                .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
                .unwrap_or_else(|| "an unknown location".to_owned());
            let text = info
                .payload_as_str()
                .unwrap_or_else(|| payload_text(info.payload()));
            let message = format!("panicked at {location}: {text}");
            let _ = LAST_PANIC.try_with(|last| *last.borrow_mut() = Some(message));
        }));
    });
}

fn payload_text(payload: &(dyn Any + Send)) -> &str {
    if let Some(text) = payload.downcast_ref::<&'static str>() {
        text
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text
    } else {
        "non-string panic payload"
    }
}

/// A payload's destructor may itself panic; that must not escape either.
fn drop_payload(payload: Box<dyn Any + Send>) {
    if let Err(nested) = panic::catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        std::mem::forget(nested);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Status;

    #[test]
    fn nested_panics_are_reported_by_the_inner_guard() {
        let outer = catch(|| {
            let inner = catch(|| -> () { panic!("inner {}", 1) });
            assert!(inner.unwrap_err().message().ends_with(": inner 1"));
            7
        });
        assert_eq!(outer.unwrap(), 7);
        assert_eq!(GUARD_DEPTH.with(Cell::get), 0);
    }

    #[test]
    fn non_string_payloads_are_described() {
        let err = catch(|| std::panic::panic_any(42u8)).unwrap_err();
        assert_eq!(err.status(), Status::Internal);
        assert!(
            err.message().ends_with(": non-string panic payload"),
            "{err}"
        );
        assert!(
            err.message()
                .starts_with("panicked at core/src/panic_guard.rs:"),
            "{err}"
        );
    }
}
