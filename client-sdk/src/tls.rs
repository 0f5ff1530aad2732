//! TLS for `https://` and `wss://` URLs: rustls (ring), trusting Mozilla's root
//! certificates (webpki-roots, built in, so no system store or OpenSSL is needed) plus
//! any certificate authority the caller adds, for a private CA or a self-signed server.
//!
//! Invariant: HTTP and WebSocket trust the same roots: [`crate::Client`] hands the ones
//! it was given to the connections it opens.

use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use tokio_tungstenite::Connector;

use crate::error::{ClientError, Result};

/// Certificate authorities trusted beside the built-in roots, as PEM files' contents.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ExtraRoots(pub(crate) Vec<Vec<u8>>);

impl ExtraRoots {
    /// Checks that `pem` holds at least one certificate, then keeps it.
    pub(crate) fn add(&mut self, pem: &[u8]) -> Result<()> {
        let certs = parse(pem)?;
        if certs.is_empty() {
            return Err(ClientError::InvalidArgument(
                "the PEM holds no CERTIFICATE block".into(),
            ));
        }
        self.0.push(pem.to_vec());
        Ok(())
    }

    /// The WebSocket connector: `None` (tokio-tungstenite's own, with the built-in
    /// roots) when nothing was added.
    pub(crate) fn ws_connector(&self) -> Result<Option<Connector>> {
        if self.0.is_empty() {
            return Ok(None);
        }
        let mut roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        for pem in &self.0 {
            for cert in parse(pem)? {
                roots
                    .add(cert)
                    .map_err(|e| ClientError::InvalidArgument(format!("root certificate: {e}")))?;
            }
        }
        let config = rustls::ClientConfig::builder()
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(Some(Connector::Rustls(Arc::new(config))))
    }

    /// The same roots for reqwest.
    pub(crate) fn http_certificates(&self) -> Result<Vec<reqwest::Certificate>> {
        self.0
            .iter()
            .map(|pem| {
                reqwest::Certificate::from_pem(pem)
                    .map_err(|e| ClientError::InvalidArgument(format!("root certificate: {e}")))
            })
            .collect()
    }
}

fn parse(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>> {
    CertificateDer::pem_slice_iter(pem)
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| ClientError::InvalidArgument(format!("root certificate PEM: {e}")))
}
