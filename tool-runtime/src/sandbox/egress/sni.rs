//! The name a tunnel's TLS asks for. A `CONNECT` names a host, but the
//! bytes inside the tunnel go to an address that may serve many sites (a
//! CDN): the server picks the site by the ClientHello's server name
//! (SNI). So a tunnel is let through only once its first bytes are a TLS
//! ClientHello naming the host the `CONNECT` was checked for; anything
//! else (another name, no name, not TLS) closes it and is reported.
//!
//! The ClientHello is read by rustls' `Acceptor`, which reassembles one
//! split across records, on a copy of the bytes; the bytes themselves go
//! upstream unchanged.

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt as _};
use tokio_rustls::rustls::server::Acceptor;

/// How long the command may take to start TLS in a tunnel.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);
/// The most bytes read while waiting for a whole ClientHello.
const MAX_HELLO: usize = 64 * 1024;

/// Reads the command's first bytes from a tunnel until they make a whole
/// ClientHello and returns them, or says why the tunnel must close.
/// `host` is the name the `CONNECT` asked for and was checked against.
pub(crate) async fn check<R: AsyncRead + Unpin>(
    client: &mut R,
    host: &str,
) -> Result<Vec<u8>, String> {
    match tokio::time::timeout(HELLO_TIMEOUT, read_hello(client)).await {
        Err(_) => Err(format!(
            "the tunnel did not start TLS within {} s",
            HELLO_TIMEOUT.as_secs()
        )),
        Ok(Err(reason)) => Err(reason),
        Ok(Ok((seen, None))) => {
            drop(seen);
            Err("the tunnel's TLS names no server (no SNI)".to_owned())
        }
        Ok(Ok((seen, Some(name)))) => {
            if same_name(&name, host) {
                Ok(seen)
            } else {
                Err(format!(
                    "the tunnel's TLS asks for {name}, not {host}: one address can serve many sites"
                ))
            }
        }
    }
}

/// DNS names compare without case and without a final dot.
fn same_name(a: &str, b: &str) -> bool {
    a.trim_end_matches('.')
        .eq_ignore_ascii_case(b.trim_end_matches('.'))
}

async fn read_hello<R: AsyncRead + Unpin>(
    client: &mut R,
) -> Result<(Vec<u8>, Option<String>), String> {
    let mut acceptor = Acceptor::default();
    let mut seen = Vec::with_capacity(2048);
    let mut buf = [0u8; 4096];
    loop {
        let n = client
            .read(&mut buf)
            .await
            .map_err(|e| format!("the tunnel failed before TLS began: {e}"))?;
        if n == 0 {
            return Err("the command closed the tunnel before TLS began".to_owned());
        }
        let chunk = buf.get(..n).unwrap_or_default();
        seen.extend_from_slice(chunk);
        if seen.len() > MAX_HELLO {
            return Err(format!(
                "the tunnel's first {MAX_HELLO} bytes are not a whole TLS ClientHello"
            ));
        }
        let mut rest = chunk;
        while !rest.is_empty() {
            match acceptor.read_tls(&mut rest) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => return Err(format!("the tunnel's first bytes are not TLS: {e}")),
            }
        }
        match acceptor.accept() {
            Ok(Some(accepted)) => {
                let name = accepted.client_hello().server_name().map(str::to_owned);
                return Ok((seen, name));
            }
            Ok(None) => {}
            Err((e, _)) => {
                return Err(format!(
                    "the tunnel's first bytes are not a TLS ClientHello: {e}"
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real ClientHello, made by rustls' client for `name`.
    fn client_hello(name: &str) -> Vec<u8> {
        use std::sync::Arc;
        use tokio_rustls::rustls::pki_types::ServerName;
        use tokio_rustls::rustls::{ClientConfig, ClientConnection, RootCertStore};
        let provider = Arc::new(tokio_rustls::rustls::crypto::aws_lc_rs::default_provider());
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(RootCertStore::empty())
            .with_no_client_auth();
        let server = ServerName::try_from(name.to_owned()).unwrap();
        let mut connection = ClientConnection::new(Arc::new(config), server).unwrap();
        let mut out = Vec::new();
        while connection.wants_write() {
            connection.write_tls(&mut out).unwrap();
        }
        out
    }

    fn run(bytes: Vec<u8>, host: &str) -> Result<Vec<u8>, String> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move { check(&mut bytes.as_slice(), host).await })
    }

    #[test]
    fn a_hello_for_the_checked_host_passes_with_its_bytes_unchanged() {
        let hello = client_hello("secure.example");
        assert_eq!(run(hello.clone(), "Secure.Example.").unwrap(), hello);
    }

    #[test]
    fn a_hello_for_another_name_is_refused_and_named() {
        let reason = run(client_hello("other.example"), "secure.example").unwrap_err();
        assert!(
            reason.contains("asks for other.example, not secure.example"),
            "{reason}"
        );
    }

    #[test]
    fn a_hello_split_into_one_byte_reads_is_still_read() {
        // A reader that hands out one byte at a time.
        struct Trickle(Vec<u8>, usize);
        impl AsyncRead for Trickle {
            fn poll_read(
                mut self: std::pin::Pin<&mut Self>,
                _: &mut std::task::Context<'_>,
                buf: &mut tokio::io::ReadBuf<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                if let Some(&b) = self.0.get(self.1) {
                    buf.put_slice(&[b]);
                    self.1 += 1;
                }
                std::task::Poll::Ready(Ok(()))
            }
        }
        let hello = client_hello("secure.example");
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let mut trickle = Trickle(hello.clone(), 0);
        let seen = rt.block_on(check(&mut trickle, "secure.example")).unwrap();
        assert_eq!(seen, hello);
    }

    #[test]
    fn plain_text_truncation_and_no_bytes_are_refused_with_reasons() {
        let http = b"GET / HTTP/1.1\r\nHost: other.example\r\n\r\n".to_vec();
        let reason = run(http, "secure.example").unwrap_err();
        assert!(
            reason.contains("not a TLS ClientHello") || reason.contains("not TLS"),
            "{reason}"
        );
        let hello = client_hello("secure.example");
        let cut = hello.get(..hello.len() / 2).unwrap().to_vec();
        assert!(
            run(cut, "secure.example")
                .unwrap_err()
                .contains("closed the tunnel")
        );
        assert!(
            run(Vec::new(), "secure.example")
                .unwrap_err()
                .contains("closed the tunnel")
        );
    }
}
