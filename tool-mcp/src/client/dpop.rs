//! DPoP (RFC 9449; the MCP DPoP extension, SEP-1932): the client holds an
//! ES256 key pair of its own (made per [`OAuthOptions`](crate::OAuthOptions),
//! never written anywhere) and proves possession of it on every request
//! that carries or asks for a token.
//!
//! A proof is a JWT with header `{"typ": "dpop+jwt", "alg": "ES256",
//! "jwk": <the public key>}` and claims `jti` (random, new each time),
//! `htm` (the HTTP method), `htu` (the URL without query and fragment),
//! `iat`, `ath` (base64url SHA-256 of the access token, on resource
//! requests) and `nonce` once a server asked for one. The token request
//! carries one (so the token is bound to the key, `token_type: DPoP`);
//! each MCP request sends `Authorization: DPoP <token>` and a fresh proof.
//! A `use_dpop_nonce` answer (with a `DPoP-Nonce` header) is retried once
//! with the nonce, which is kept for the next requests to that server.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::{HeaderName, HeaderValue};
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
use rmcp::transport::auth::{OAuthHttpClient, OAuthHttpClientFuture, OAuthHttpRequest};
use serde_json::{Value, json};

/// The header a proof travels in, and the one a server's nonce comes in.
pub(crate) const DPOP_HEADER: &str = "dpop";
/// The header a server sends its nonce in.
pub(crate) const NONCE_HEADER: &str = "dpop-nonce";
/// The error code of a server that wants a nonce in the proof.
pub(crate) const USE_NONCE: &str = "use_dpop_nonce";
/// An OAuth request as rmcp hands it over.
type HttpRequest = http::Request<Vec<u8>>;
/// An OAuth answer as rmcp takes it.
type HttpResponse = http::Response<Vec<u8>>;

/// The most bytes of a token endpoint's answer read.
const MAX_TOKEN_ANSWER: usize = 1 << 20;

/// A client's DPoP key pair and the nonces servers gave it.
pub(crate) struct DpopKey {
    pair: EcdsaKeyPair,
    jwk: Value,
    rng: SystemRandom,
    /// The authorization server's latest nonce.
    token_nonce: Mutex<Option<String>>,
    /// The MCP server's latest nonce.
    resource_nonce: Mutex<Option<String>>,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey")
            .field("jwk", &self.jwk)
            .finish_non_exhaustive()
    }
}

/// Which server a nonce is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NonceOf {
    /// The authorization server (token requests).
    Token,
    /// The MCP server.
    Resource,
}

impl DpopKey {
    /// A new random P-256 key pair.
    pub(crate) fn generate() -> Result<Self, String> {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|e| format!("cannot make a DPoP key: {e}"))?;
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .map_err(|e| format!("cannot read the DPoP key made: {e}"))?;
        // An uncompressed point: 0x04, then X and Y (32 bytes each).
        let point = pair.public_key().as_ref();
        if point.len() != 65 || point[0] != 4 {
            return Err("the DPoP public key is not an uncompressed P-256 point".into());
        }
        let jwk = json!({
            "kty": "EC",
            "crv": "P-256",
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
            "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
        });
        Ok(Self {
            pair,
            jwk,
            rng,
            token_nonce: Mutex::new(None),
            resource_nonce: Mutex::new(None),
        })
    }

    /// The public key as a JWK (what every proof's header carries).
    #[cfg(test)]
    pub(crate) fn jwk(&self) -> &Value {
        &self.jwk
    }

    fn nonce_slot(&self, of: NonceOf) -> &Mutex<Option<String>> {
        match of {
            NonceOf::Token => &self.token_nonce,
            NonceOf::Resource => &self.resource_nonce,
        }
    }

    /// The latest nonce `of` gave.
    pub(crate) fn nonce(&self, of: NonceOf) -> Option<String> {
        self.nonce_slot(of)
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Keeps `nonce` for the next proofs to `of`.
    pub(crate) fn set_nonce(&self, of: NonceOf, nonce: &str) {
        *self
            .nonce_slot(of)
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(nonce.to_owned());
    }

    /// A fresh proof of a `method` request to `url`, bound to
    /// `access_token` when given (`ath`), with the latest nonce of `of`.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
        of: NonceOf,
    ) -> Result<String, String> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_err(|e| format!("the clock is before 1970: {e}"))?
            .as_secs();
        self.proof_at(method, url, access_token, self.nonce(of).as_deref(), now)
    }

    fn proof_at(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
        nonce: Option<&str>,
        now: u64,
    ) -> Result<String, String> {
        let mut jti = [0u8; 16];
        self.rng
            .fill(&mut jti)
            .map_err(|e| format!("no randomness for a DPoP proof: {e}"))?;
        let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk});
        let mut claims = json!({
            "jti": URL_SAFE_NO_PAD.encode(jti),
            "htm": method.to_ascii_uppercase(),
            "htu": target_uri(url)?,
            "iat": now,
        });
        if let Some(token) = access_token {
            claims["ath"] = Value::String(token_hash(token));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = Value::String(nonce.to_owned());
        }
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self
            .pair
            .sign(&self.rng, input.as_bytes())
            .map_err(|e| format!("cannot sign a DPoP proof: {e}"))?;
        Ok(format!(
            "{input}.{}",
            URL_SAFE_NO_PAD.encode(signature.as_ref())
        ))
    }
}

/// `ath`: base64url (no padding) of the SHA-256 of the access token.
pub(crate) fn token_hash(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(ring::digest::digest(
        &ring::digest::SHA256,
        token.as_bytes(),
    ))
}

/// `htu`: the request URL without its query and fragment (RFC 9449 §4.2).
fn target_uri(url: &str) -> Result<String, String> {
    let mut parsed =
        reqwest::Url::parse(url).map_err(|e| format!("DPoP: `{url}` is not a URL: {e}"))?;
    parsed.set_query(None);
    parsed.set_fragment(None);
    Ok(parsed.to_string())
}

/// Whether an answer asks for a nonce: its `DPoP-Nonce`, when the status
/// and the error say `use_dpop_nonce` (a 400 from a token endpoint, a 401
/// challenge from a resource).
pub(crate) fn asked_nonce(headers: &http::HeaderMap, body_or_challenge: &str) -> Option<String> {
    if !body_or_challenge.contains(USE_NONCE) {
        return None;
    }
    headers
        .get(NONCE_HEADER)?
        .to_str()
        .ok()
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
}

/// The headers of a DPoP resource request: `headers` plus `Authorization:
/// DPoP <token>` and a fresh proof of `method` to `url` bound to `token`.
pub(crate) fn resource_headers(
    key: &DpopKey,
    method: &str,
    url: &str,
    token: &str,
    mut headers: HashMap<HeaderName, HeaderValue>,
) -> Result<HashMap<HeaderName, HeaderValue>, String> {
    let proof = key.proof(method, url, Some(token), NonceOf::Resource)?;
    let authorization = HeaderValue::from_str(&format!("DPoP {token}"))
        .map_err(|_| "the access token is not a valid header value".to_owned())?;
    let proof = HeaderValue::from_str(&proof)
        .map_err(|_| "a DPoP proof is not a header value".to_owned())?;
    headers.insert(http::header::AUTHORIZATION, authorization);
    headers.insert(HeaderName::from_static(DPOP_HEADER), proof);
    Ok(headers)
}

/// Learns the MCP server's nonce after it refused a request with
/// `use_dpop_nonce` (so that request did not run): rmcp's transport keeps
/// only the challenge's text, not the `DPoP-Nonce` header, so a `ping`
/// with a proof is sent and the nonce read off its answer. `true` when a
/// nonce was learnt. A server that runs the ping (it wanted no nonce
/// after all) changes nothing by it.
pub(crate) async fn learn_resource_nonce(
    client: &reqwest::Client,
    key: &DpopKey,
    url: &str,
    token: &str,
    session_id: Option<&str>,
    headers: &HashMap<HeaderName, HeaderValue>,
) -> bool {
    let Ok(signed) = resource_headers(key, "POST", url, token, headers.clone()) else {
        return false;
    };
    let mut request = client
        .post(url)
        .header(http::header::CONTENT_TYPE, "application/json")
        .header(http::header::ACCEPT, "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":"dpop-nonce","method":"ping"}"#);
    for (name, value) in signed {
        request = request.header(name, value);
    }
    if let Some(id) = session_id {
        request = request.header("mcp-session-id", id);
    }
    let Ok(answer) = request.send().await else {
        return false;
    };
    let challenge = answer
        .headers()
        .get(http::header::WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    match asked_nonce(answer.headers(), &challenge) {
        Some(nonce) => {
            key.set_nonce(NonceOf::Resource, &nonce);
            true
        }
        None => false,
    }
}

/// The OAuth HTTP client of a DPoP client: every token request (a POST
/// with a `grant_type`) carries a proof, and a `use_dpop_nonce` answer is
/// retried once with the server's nonce. Discovery and registration go
/// out unchanged. Requests go through the host's client (its guard).
pub(crate) struct DpopOAuthClient {
    pub(crate) client: reqwest::Client,
    pub(crate) key: Arc<DpopKey>,
}

impl DpopOAuthClient {
    async fn send(
        &self,
        request: &HttpRequest,
        timeout: Option<std::time::Duration>,
        proof: Option<String>,
    ) -> Result<HttpResponse, String> {
        let mut builder = self
            .client
            .request(request.method().clone(), request.uri().to_string())
            .headers(request.headers().clone())
            .body(request.body().clone());
        if let Some(timeout) = timeout {
            builder = builder.timeout(timeout);
        }
        if let Some(proof) = proof {
            builder = builder.header(DPOP_HEADER, proof);
        }
        let answer = builder.send().await.map_err(|e| e.to_string())?;
        let status = answer.status();
        let headers = answer.headers().clone();
        let mut body = Vec::new();
        let mut answer = answer;
        while let Some(chunk) = answer.chunk().await.map_err(|e| e.to_string())? {
            if body.len() + chunk.len() > MAX_TOKEN_ANSWER {
                return Err(format!("an OAuth answer over {MAX_TOKEN_ANSWER} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        let mut response = http::Response::new(body);
        *response.status_mut() = status;
        *response.headers_mut() = headers;
        Ok(response)
    }

    fn is_token_request(request: &HttpRequest) -> bool {
        request.method() == http::Method::POST
            && String::from_utf8_lossy(request.body()).contains("grant_type=")
    }

    async fn run(
        &self,
        request: HttpRequest,
        timeout: Option<std::time::Duration>,
    ) -> Result<HttpResponse, String> {
        if !Self::is_token_request(&request) {
            return self.send(&request, timeout, None).await;
        }
        let url = request.uri().to_string();
        let proof = self.key.proof("POST", &url, None, NonceOf::Token)?;
        let response = self.send(&request, timeout, Some(proof)).await?;
        let asked = (response.status() == http::StatusCode::BAD_REQUEST)
            .then(|| {
                asked_nonce(
                    response.headers(),
                    &String::from_utf8_lossy(response.body()),
                )
            })
            .flatten();
        let Some(nonce) = asked else {
            if let Some(nonce) = asked_nonce(response.headers(), USE_NONCE) {
                self.key.set_nonce(NonceOf::Token, &nonce);
            }
            return Ok(response);
        };
        self.key.set_nonce(NonceOf::Token, &nonce);
        let proof = self.key.proof("POST", &url, None, NonceOf::Token)?;
        self.send(&request, timeout, Some(proof)).await
    }
}

impl OAuthHttpClient for DpopOAuthClient {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            self.run(request.request, request.timeout)
                .await
                .map_err(Into::into)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};

    /// The header and claims of `proof`, after its signature verified
    /// against the public key its own header carries.
    fn verified(proof: &str) -> (Value, Value) {
        let parts: Vec<&str> = proof.split('.').collect();
        assert_eq!(parts.len(), 3, "a JWT has three parts");
        let header: Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).unwrap()).unwrap();
        let claims: Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        let jwk = &header["jwk"];
        let mut point = vec![4u8];
        point.extend(URL_SAFE_NO_PAD.decode(jwk["x"].as_str().unwrap()).unwrap());
        point.extend(URL_SAFE_NO_PAD.decode(jwk["y"].as_str().unwrap()).unwrap());
        let signature = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &point)
            .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
            .expect("the proof verifies with the jwk of its header");
        (header, claims)
    }

    #[test]
    fn a_proof_verifies_with_its_jwk_and_names_method_and_url_without_query() {
        let key = DpopKey::generate().unwrap();
        let proof = key
            .proof_at("post", "http://127.0.0.1:9/mcp?x=1#frag", None, None, 1_000)
            .unwrap();
        let (header, claims) = verified(&proof);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(&header["jwk"], key.jwk());
        assert!(header["jwk"].get("d").is_none(), "no private part");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "http://127.0.0.1:9/mcp");
        assert_eq!(claims["iat"], 1_000);
        assert!(claims.get("ath").is_none() && claims.get("nonce").is_none());
    }

    #[test]
    fn each_proof_has_a_new_jti() {
        let key = DpopKey::generate().unwrap();
        let a = verified(
            &key.proof("POST", "http://127.0.0.1:9/t", None, NonceOf::Token)
                .unwrap(),
        )
        .1;
        let b = verified(
            &key.proof("POST", "http://127.0.0.1:9/t", None, NonceOf::Token)
                .unwrap(),
        )
        .1;
        assert_ne!(a["jti"], b["jti"]);
    }

    #[test]
    fn a_resource_proof_binds_the_token_hash_and_the_servers_nonce() {
        let key = DpopKey::generate().unwrap();
        key.set_nonce(NonceOf::Resource, "n-1");
        let proof = key
            .proof(
                "POST",
                "http://127.0.0.1:9/mcp",
                Some("tok"),
                NonceOf::Resource,
            )
            .unwrap();
        let (_, claims) = verified(&proof);
        // SHA-256("tok"), base64url without padding.
        let expected = URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, b"tok"));
        assert_eq!(claims["ath"], expected.as_str());
        assert_eq!(claims["nonce"], "n-1");
        // The token endpoint's nonce is another server's: not sent there.
        let token = key
            .proof("POST", "http://127.0.0.1:9/t", None, NonceOf::Token)
            .unwrap();
        assert!(verified(&token).1.get("nonce").is_none());
    }

    #[test]
    fn a_nonce_is_taken_only_when_the_answer_asks_for_one() {
        let mut headers = http::HeaderMap::new();
        headers.insert(NONCE_HEADER, http::HeaderValue::from_static("abc"));
        assert_eq!(
            asked_nonce(&headers, r#"{"error":"use_dpop_nonce"}"#).as_deref(),
            Some("abc")
        );
        assert_eq!(asked_nonce(&headers, r#"{"error":"invalid_grant"}"#), None);
        assert_eq!(asked_nonce(&http::HeaderMap::new(), USE_NONCE), None);
    }

    /// A token endpoint on 127.0.0.1 that answers the first request with
    /// `use_dpop_nonce` and the rest with a token; returns its URL and the
    /// requests' `DPoP` headers.
    async fn nonce_endpoint() -> (String, tokio::task::JoinHandle<Vec<Option<String>>>) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/token", listener.local_addr().unwrap());
        let server = tokio::spawn(async move {
            let mut proofs = Vec::new();
            for round in 0..2 {
                let (mut stream, _) = listener.accept().await.unwrap();
                let mut buffer = vec![0u8; 16 * 1024];
                let n = stream.read(&mut buffer).await.unwrap();
                let text = String::from_utf8_lossy(&buffer[..n]).to_string();
                proofs.push(
                    text.lines()
                        .find_map(|l| l.strip_prefix("dpop: ").map(str::to_owned)),
                );
                let (status, extra, body) = if round == 0 {
                    (
                        "400 Bad Request",
                        "DPoP-Nonce: n-42\r\n",
                        r#"{"error":"use_dpop_nonce"}"#,
                    )
                } else {
                    ("200 OK", "", r#"{"access_token":"t","token_type":"DPoP"}"#)
                };
                let answer = format!(
                    "HTTP/1.1 {status}\r\n{extra}content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                stream.write_all(answer.as_bytes()).await.unwrap();
            }
            proofs
        });
        (url, server)
    }

    #[tokio::test]
    async fn a_token_request_refused_for_a_nonce_is_sent_once_more_with_it() {
        let (url, server) = nonce_endpoint().await;
        let key = Arc::new(DpopKey::generate().unwrap());
        let client = DpopOAuthClient {
            client: reqwest::Client::new(),
            key: Arc::clone(&key),
        };
        let request = http::Request::post(&url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(b"grant_type=authorization_code&code=c".to_vec())
            .unwrap();
        let answer = client.run(request, None).await.unwrap();
        assert_eq!(answer.status(), http::StatusCode::OK);
        let proofs = server.await.unwrap();
        let first = verified(proofs[0].as_deref().expect("a proof on the first request")).1;
        let second = verified(proofs[1].as_deref().expect("a proof on the retry")).1;
        assert!(first.get("nonce").is_none());
        assert_eq!(second["nonce"], "n-42");
        assert_eq!(second["htu"], url.as_str());
        assert_ne!(first["jti"], second["jti"]);
        assert_eq!(key.nonce(NonceOf::Token).as_deref(), Some("n-42"));
        assert_eq!(key.nonce(NonceOf::Resource), None);
    }

    #[test]
    fn a_url_that_is_not_one_is_an_error_not_a_proof() {
        let key = DpopKey::generate().unwrap();
        assert!(
            key.proof("POST", "not a url", None, NonceOf::Token)
                .is_err()
        );
    }
}
