//! Reading path parameters with the contract's error body: a segment that does not
//! decode (percent-encoded bytes that are not UTF-8, say) is `400 bad_request` with the
//! JSON error body, not axum's plain-text answer (every error answer of every route
//! carries the body, docs/protocol.md §3).

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::error::ApiError;
use canopy_room::refusal::Refusal;

/// The path parameters, decoded into `T`; axum's `Path` with the contract's rejection.
#[derive(Debug)]
pub struct Path<T>(pub T);

impl<T, S> FromRequestParts<S> for Path<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(value)) => Ok(Path(value)),
            Err(e) => Err(Refusal::bad_request(format!(
                "the path is not valid: {}",
                e.body_text()
            ))
            .into()),
        }
    }
}
