//! Certificates made at test time (rcgen): a private CA and a server
//! certificate for 127.0.0.1 and localhost, written as PEM files.

use std::path::Path;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};

/// PEM texts and the files holding them.
pub struct TestPki {
    pub ca_pem: String,
    pub ca_file: String,
    pub cert_file: String,
    pub key_file: String,
    /// A CA that signed nothing here, for "wrong CA" cases.
    pub other_ca_pem: String,
}

fn make_ca(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    CertifiedIssuer::self_signed(params, KeyPair::generate().expect("CA key")).expect("CA cert")
}

impl TestPki {
    /// Makes the CA and the server certificate and writes them in `dir`.
    pub fn new(dir: &Path) -> Self {
        let ca = make_ca("tool-runtime test CA");
        let key = KeyPair::generate().expect("server key");
        let mut params =
            CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
                .expect("server params");
        params
            .distinguished_name
            .push(DnType::CommonName, "redis test server");
        let cert = params.signed_by(&key, &ca).expect("server cert");
        let write = |name: &str, text: &str| {
            let path = dir.join(name);
            std::fs::write(&path, text).expect("write a PEM file");
            path.to_string_lossy().into_owned()
        };
        let ca_pem = ca.pem();
        Self {
            ca_file: write("ca.pem", &ca_pem),
            cert_file: write("server.pem", &cert.pem()),
            key_file: write("server.key", &key.serialize_pem()),
            ca_pem,
            other_ca_pem: make_ca("unrelated CA").pem(),
        }
    }
}
