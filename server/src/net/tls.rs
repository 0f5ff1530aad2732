//! TLS termination in the server itself (`--tls-cert`, `--tls-key`, PEM files), with
//! rustls; the certificate is read again on SIGHUP and when either file changes, so a
//! renewed certificate needs no restart.
//!
//! Invariant: connections already open keep the certificate they were made with; every
//! handshake after a successful reload uses the new one, and a reload that fails (a file
//! half-written, a key that does not match) keeps the old one and says so in the log.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use parking_lot::RwLock;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use tokio_rustls::TlsAcceptor;

/// How often the files' modification times are looked at.
const POLL: Duration = Duration::from_secs(5);

/// The certificate every new handshake gets; swapped by a reload.
#[derive(Debug)]
struct CurrentCert(RwLock<Arc<CertifiedKey>>);

impl ResolvesServerCert for CurrentCert {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(Arc::clone(&self.0.read()))
    }
}

/// The server's TLS setup: the acceptor, and the files it reloads from.
#[derive(Clone)]
pub struct Tls {
    acceptor: TlsAcceptor,
    cert: Arc<CurrentCert>,
    cert_path: PathBuf,
    key_path: PathBuf,
}

/// Why the certificate and key cannot serve TLS (at start; a reload that fails keeps
/// the old certificate).
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A file cannot be read, or is not PEM.
    #[error("the {what} {path}: {error}")]
    Pem {
        /// "certificate" or "private key".
        what: &'static str,
        /// The file given.
        path: PathBuf,
        /// What reading or parsing it said.
        error: rustls::pki_types::pem::Error,
    },
    /// The certificate file holds no certificate.
    #[error("no certificate in {0}")]
    NoCertificate(PathBuf),
    /// The private key is of a kind the crypto provider cannot use.
    #[error("the private key {path} is not usable: {error}")]
    Key {
        /// The file given.
        path: PathBuf,
        /// The provider's refusal.
        error: rustls::Error,
    },
    /// The key is not the certificate's.
    #[error("the key does not match the certificate: {0}")]
    Mismatch(rustls::Error),
    /// The provider offers none of the protocol versions asked for.
    #[error("TLS protocol versions: {0}")]
    Versions(rustls::Error),
}

/// Names the file a PEM error came from.
fn pem(
    what: &'static str,
    path: &Path,
) -> impl Fn(rustls::pki_types::pem::Error) -> TlsError + use<> {
    let path = path.to_path_buf();
    move |error| TlsError::Pem {
        what,
        path: path.clone(),
        error,
    }
}

fn load(cert_path: &Path, key_path: &Path) -> Result<CertifiedKey, TlsError> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert_path)
        .map_err(pem("certificate", cert_path))?
        .collect::<Result<_, _>>()
        .map_err(pem("certificate", cert_path))?;
    if certs.is_empty() {
        return Err(TlsError::NoCertificate(cert_path.to_path_buf()));
    }
    let key = PrivateKeyDer::from_pem_file(key_path).map_err(pem("private key", key_path))?;
    let provider = rustls::crypto::ring::default_provider();
    let key = provider
        .key_provider
        .load_private_key(key)
        .map_err(|error| TlsError::Key {
            path: key_path.to_path_buf(),
            error,
        })?;
    let certified = CertifiedKey::new(certs, key);
    certified.keys_match().map_err(TlsError::Mismatch)?;
    Ok(certified)
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls")
            .field("cert", &self.cert_path)
            .field("key", &self.key_path)
            .finish()
    }
}

impl Tls {
    /// Reads the certificate and key, or says what is wrong with them.
    pub fn new(cert_path: &Path, key_path: &Path) -> Result<Tls, TlsError> {
        let cert = Arc::new(CurrentCert(RwLock::new(Arc::new(load(
            cert_path, key_path,
        )?))));
        let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(TlsError::Versions)?
        .with_no_client_auth()
        .with_cert_resolver(Arc::clone(&cert) as Arc<dyn ResolvesServerCert>);
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Tls {
            acceptor: TlsAcceptor::from(Arc::new(config)),
            cert,
            cert_path: cert_path.to_path_buf(),
            key_path: key_path.to_path_buf(),
        })
    }

    /// The acceptor of the certificate in use now.
    pub fn acceptor(&self) -> &TlsAcceptor {
        &self.acceptor
    }

    /// Reads the files again; keeps the old certificate if they are not valid.
    pub fn reload(&self) {
        match load(&self.cert_path, &self.key_path) {
            Ok(c) => {
                *self.cert.0.write() = Arc::new(c);
                tracing::info!(cert = %self.cert_path.display(), "TLS certificate reloaded");
            }
            Err(e) => tracing::warn!(error = %e, "TLS reload failed; keeping the old certificate"),
        }
    }

    /// Reloads on SIGHUP and whenever a file's modification time changes, until
    /// `stop` completes.
    pub async fn watch(self, stop: impl std::future::Future<Output = ()>) {
        let mut seen = (modified(&self.cert_path), modified(&self.key_path));
        let mut poll = tokio::time::interval(POLL);
        #[cfg(unix)]
        let mut hup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok();
        tokio::pin!(stop);
        loop {
            #[cfg(unix)]
            let hangup = async {
                match hup.as_mut() {
                    Some(h) => {
                        h.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            #[cfg(not(unix))]
            let hangup = std::future::pending::<()>();
            tokio::select! {
                _ = &mut stop => return,
                _ = hangup => self.reload(),
                _ = poll.tick() => {
                    let now = (modified(&self.cert_path), modified(&self.key_path));
                    if now != seen {
                        seen = now;
                        self.reload();
                    }
                }
            }
        }
    }
}
