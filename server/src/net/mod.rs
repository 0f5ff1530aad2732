//! The server's network side: accepting and serving connections (`accept.rs`) with
//! their caps (`admission.rs`), write deadline (`write_deadline.rs`), TLS (`tls.rs`),
//! the caller's address behind proxies (`proxy.rs`) and the `Origin`/`Host` policy
//! (`origin.rs`), the pace a reader must keep (`pace.rs`); decoding big messages off the async workers (`offload.rs`); and the
//! server's life (`lifecycle.rs`): [`run`] serves until the signal (`serve.rs`), then
//! shuts down in order (`shutdown.rs`).

mod accept;
pub(crate) mod admission;
pub mod lifecycle;
pub(crate) mod offload;
pub(crate) mod origin;
pub mod pace;
pub(crate) mod proxy;
mod serve;
mod shutdown;
pub mod tls;
pub(crate) mod write_deadline;

pub use lifecycle::{Lifecycle, Phase};
pub use serve::run;
pub use shutdown::shutdown_signal;
