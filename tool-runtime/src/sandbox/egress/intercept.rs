//! TLS interception for the credential broker: a certificate authority
//! made for one command (its key never leaves the host's memory), a leaf
//! certificate per bound host signed by it, and real, verified TLS from
//! the proxy to the upstream.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose,
};
use tokio_rustls::rustls::crypto::CryptoProvider;
use tokio_rustls::rustls::pki_types::pem::PemObject as _;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::rustls::{ClientConfig, RootCertStore, ServerConfig};

/// The system's root certificates, loaded once per process.
fn native_roots() -> &'static [CertificateDer<'static>] {
    static ROOTS: OnceLock<Vec<CertificateDer<'static>>> = OnceLock::new();
    ROOTS.get_or_init(|| rustls_native_certs::load_native_certs().certs)
}

/// The CA of one command and the TLS settings made from it.
pub(crate) struct Authority {
    issuer: CertifiedIssuer<'static, KeyPair>,
    provider: Arc<CryptoProvider>,
    upstream: Arc<ClientConfig>,
    leaves: Mutex<HashMap<String, Arc<ServerConfig>>>,
}

impl std::fmt::Debug for Authority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authority").finish_non_exhaustive()
    }
}

impl Authority {
    /// A fresh CA; upstreams are verified against the system's roots and
    /// the PEM files `extra_roots`.
    pub(crate) fn new(extra_roots: &[PathBuf]) -> Result<Self, String> {
        let provider = Arc::new(tokio_rustls::rustls::crypto::aws_lc_rs::default_provider());
        let mut params = CertificateParams::new(Vec::<String>::new()).map_err(|e| e.to_string())?;
        params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        params
            .distinguished_name
            .push(DnType::CommonName, "tool-runtime egress proxy, one command");
        let key = KeyPair::generate().map_err(|e| format!("the CA's key: {e}"))?;
        let issuer = CertifiedIssuer::self_signed(params, key).map_err(|e| e.to_string())?;
        let mut roots = RootCertStore::empty();
        for cert in native_roots() {
            let _ = roots.add(cert.clone());
        }
        for path in extra_roots {
            let certs = CertificateDer::pem_file_iter(path)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            for cert in certs {
                let cert = cert.map_err(|e| format!("{}: {e}", path.display()))?;
                roots
                    .add(cert)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
            }
        }
        let mut upstream = ClientConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_root_certificates(roots)
            .with_no_client_auth();
        upstream.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Self {
            issuer,
            provider,
            upstream: Arc::new(upstream),
            leaves: Mutex::new(HashMap::new()),
        })
    }

    /// The CA's certificate (PEM), for the command's trust store.
    pub(crate) fn ca_pem(&self) -> String {
        self.issuer.pem()
    }

    /// The TLS client settings towards upstreams.
    pub(crate) fn upstream(&self) -> Arc<ClientConfig> {
        Arc::clone(&self.upstream)
    }

    /// The TLS server settings presenting `host` to the command (made
    /// once per host).
    pub(crate) fn server_config(&self, host: &str) -> Result<Arc<ServerConfig>, String> {
        let mut leaves = self.leaves.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(config) = leaves.get(host) {
            return Ok(Arc::clone(config));
        }
        let key = KeyPair::generate().map_err(|e| e.to_string())?;
        let mut params =
            CertificateParams::new(vec![host.to_owned()]).map_err(|e| e.to_string())?;
        params.distinguished_name.push(DnType::CommonName, host);
        let leaf = params
            .signed_by(&key, &self.issuer)
            .map_err(|e| e.to_string())?;
        let mut config = ServerConfig::builder_with_provider(Arc::clone(&self.provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_no_client_auth()
            .with_single_cert(
                vec![leaf.der().clone(), self.issuer.der().clone()],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
            )
            .map_err(|e| e.to_string())?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let config = Arc::new(config);
        leaves.insert(host.to_owned(), Arc::clone(&config));
        Ok(config)
    }
}
