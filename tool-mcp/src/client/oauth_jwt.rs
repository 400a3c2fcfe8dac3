//! The client credentials grant with `private_key_jwt` client
//! authentication (RFC 7523; the MCP client credentials extension,
//! SEP-1046): the client proves who it is with a JWT it signs with its
//! private key (ES256: ECDSA P-256 with SHA-256, a PKCS#8 PEM key), sent
//! as `client_assertion`; no secret travels.
//!
//! The assertion's claims: `iss` and `sub` the client id, `aud` the
//! authorization server's issuer (its token endpoint when the metadata
//! names none), `iat`, `exp` five minutes later, a random `jti`; header
//! `{"alg": "ES256", "typ": "JWT"}`. The token request carries
//! `grant_type=client_credentials`, the assertion and its type, the
//! resource indicator and the challenge's scopes, and no `client_id`
//! (RFC 7523 §3). The token is put in the host's token store and the
//! session starts from it like any stored token.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};
use rmcp::transport::auth::{AuthorizationManager, AuthorizationMetadata, StoredCredentials};
use serde_json::{Value, json};

/// The assertion type of RFC 7523 §2.2.
const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// How long an assertion is valid.
const ASSERTION_SECONDS: u64 = 300;

/// A client's private key for `private_key_jwt` (ES256).
#[derive(Clone)]
pub(crate) struct SigningKey {
    /// The PKCS#8 DER of the key.
    der: Vec<u8>,
}

impl SigningKey {
    /// Reads a PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) ECDSA P-256 key;
    /// `Err` says what is wrong with it (never the key itself).
    pub(crate) fn from_pem(pem: &str) -> Result<Self, String> {
        let body: String = pem
            .lines()
            .map(str::trim)
            .skip_while(|line| *line != "-----BEGIN PRIVATE KEY-----")
            .skip(1)
            .take_while(|line| *line != "-----END PRIVATE KEY-----")
            .collect();
        if body.is_empty() {
            return Err("not a PKCS#8 PEM private key (-----BEGIN PRIVATE KEY-----)".into());
        }
        let der = STANDARD
            .decode(body.as_bytes())
            .map_err(|e| format!("the PEM body is not base64: {e}"))?;
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der, &SystemRandom::new())
            .map_err(|e| format!("not an ECDSA P-256 PKCS#8 key: {e}"))?;
        Ok(Self { der })
    }

    /// A signed assertion of `client_id` for `audience`, issued at `now`
    /// (seconds since the epoch).
    pub(crate) fn assertion(
        &self,
        client_id: &str,
        audience: &str,
        now: u64,
    ) -> Result<String, String> {
        let random = SystemRandom::new();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &self.der, &random)
            .map_err(|e| format!("signing key: {e}"))?;
        let mut jti = [0u8; 16];
        random
            .fill(&mut jti)
            .map_err(|_| "no randomness for the assertion id".to_owned())?;
        let header = json!({"alg": "ES256", "typ": "JWT"});
        let claims = json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now,
            "exp": now + ASSERTION_SECONDS,
            "jti": URL_SAFE_NO_PAD.encode(jti),
        });
        let signed = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = pair
            .sign(&random, signed.as_bytes())
            .map_err(|_| "signing the assertion failed".to_owned())?;
        Ok(format!(
            "{signed}.{}",
            URL_SAFE_NO_PAD.encode(signature.as_ref())
        ))
    }
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKey(<redacted>)")
    }
}

/// Refuses metadata that lists token endpoint methods or signing
/// algorithms without ours, before anything is signed or sent.
fn check_metadata(metadata: &AuthorizationMetadata) -> Result<(), String> {
    let listed = |field: &str| -> Option<Vec<String>> {
        metadata.additional_fields.get(field).and_then(|v| {
            v.as_array().map(|items| {
                items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_owned))
                    .collect()
            })
        })
    };
    if let Some(methods) = listed("token_endpoint_auth_methods_supported")
        && !methods.iter().any(|m| m == "private_key_jwt")
    {
        return Err(format!(
            "the authorization server does not take private_key_jwt (it lists {methods:?})"
        ));
    }
    if let Some(algs) = listed("token_endpoint_auth_signing_alg_values_supported")
        && !algs.iter().any(|a| a == "ES256")
    {
        return Err(format!(
            "the authorization server does not take ES256 assertions (it lists {algs:?})"
        ));
    }
    Ok(())
}

/// Runs the grant for `resource` after `challenge` and puts the token in
/// `manager`'s store; the caller then opens the manager from the store.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn exchange(
    manager: &AuthorizationManager,
    http: &reqwest::Client,
    client_id: &str,
    key: &SigningKey,
    resource: &str,
    scopes: &[String],
    challenge: &str,
    save: impl AsyncFnOnce(StoredCredentials) -> Result<(), String>,
) -> Result<(), String> {
    let resolution = manager
        .resolve_metadata_from_challenge(Some(challenge))
        .await
        .map_err(|e| format!("discovery: {e}"))?;
    let metadata = resolution.metadata;
    check_metadata(&metadata)?;
    let audience = metadata
        .issuer
        .clone()
        .unwrap_or_else(|| metadata.token_endpoint.clone());
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    let assertion = key.assertion(client_id, &audience, now)?;
    let mut form = reqwest::Url::parse("http://form.invalid/").map_err(|e| format!("form: {e}"))?;
    {
        let mut pairs = form.query_pairs_mut();
        pairs.append_pair("grant_type", "client_credentials");
        pairs.append_pair("client_assertion_type", ASSERTION_TYPE);
        pairs.append_pair("client_assertion", &assertion);
        pairs.append_pair("resource", resource);
        if !scopes.is_empty() {
            pairs.append_pair("scope", &scopes.join(" "));
        }
    }
    let body = form.query().unwrap_or_default().to_owned();
    let response = http
        .post(&metadata.token_endpoint)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json")
        .body(body)
        .send()
        .await
        .map_err(|e| format!("token request: {e}"))?;
    let status = response.status();
    let text = response
        .text()
        .await
        .map_err(|e| format!("token response: {e}"))?;
    let token: Value = serde_json::from_str(&text).map_err(|_| {
        format!(
            "token endpoint answered {status} without JSON: {}",
            text.chars().take(200).collect::<String>()
        )
    })?;
    if !status.is_success() || token.get("access_token").is_none() {
        let error = token
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("no token");
        let description = token
            .get("error_description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        return Err(format!(
            "token endpoint answered {status}: {error} {description}"
        ));
    }
    let granted: Vec<String> = token
        .get("scope")
        .and_then(Value::as_str)
        .map(|s| s.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_else(|| scopes.to_vec());
    let credentials: StoredCredentials = serde_json::from_value(json!({
        "client_id": client_id,
        "token_response": token,
        "granted_scopes": granted,
        "token_received_at": now,
        "issuer": metadata.issuer,
    }))
    .map_err(|e| format!("the token response is not an OAuth token response: {e}"))?;
    save(credentials).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{ECDSA_P256_SHA256_FIXED, KeyPair, UnparsedPublicKey};

    fn key() -> (String, Vec<u8>) {
        let random = SystemRandom::new();
        let der = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &random).unwrap();
        let pair =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der.as_ref(), &random)
                .unwrap();
        let pem = format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            STANDARD.encode(der.as_ref())
        );
        (pem, pair.public_key().as_ref().to_vec())
    }

    #[test]
    fn an_assertion_verifies_with_the_public_key_and_names_the_client() {
        let (pem, public) = key();
        let key = SigningKey::from_pem(&pem).unwrap();
        let jwt = key
            .assertion("robot", "https://as.example", 1_700_000_000)
            .unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        let signature = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &public)
            .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
            .unwrap();
        let claims: Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(claims["iss"], "robot");
        assert_eq!(claims["sub"], "robot");
        assert_eq!(claims["aud"], "https://as.example");
        assert_eq!(claims["exp"], 1_700_000_300u64);
        let header: Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).unwrap()).unwrap();
        assert_eq!(header["alg"], "ES256");
        // Two assertions never share an id.
        let again = key
            .assertion("robot", "https://as.example", 1_700_000_000)
            .unwrap();
        assert_ne!(jwt, again);
        assert!(!format!("{key:?}").contains(&pem[30..60]));
    }

    #[test]
    fn a_key_that_is_not_a_p256_pkcs8_pem_is_refused_without_echoing_it() {
        for (pem, why) in [
            ("", "not a PKCS#8 PEM"),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----",
                "not a PKCS#8 PEM",
            ),
            (
                "-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----",
                "not base64",
            ),
            (
                "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
                "not an ECDSA P-256",
            ),
        ] {
            let error = SigningKey::from_pem(pem).unwrap_err();
            assert!(error.contains(why), "{pem:?}: {error}");
            assert!(
                !error.contains("AAAA") && !error.contains("!!!!"),
                "{error}"
            );
        }
    }

    #[test]
    fn metadata_without_our_method_or_algorithm_is_refused() {
        let metadata = |extra: Value| -> AuthorizationMetadata {
            let mut base = json!({
                "authorization_endpoint": "https://as/authorize",
                "token_endpoint": "https://as/token"
            });
            base.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            serde_json::from_value(base).unwrap()
        };
        assert!(check_metadata(&metadata(json!({}))).is_ok());
        assert!(
            check_metadata(&metadata(json!({
                "token_endpoint_auth_methods_supported": ["private_key_jwt"],
                "token_endpoint_auth_signing_alg_values_supported": ["ES256", "RS256"]
            })))
            .is_ok()
        );
        let no_method = check_metadata(&metadata(
            json!({"token_endpoint_auth_methods_supported": ["client_secret_basic"]}),
        ))
        .unwrap_err();
        assert!(no_method.contains("private_key_jwt"), "{no_method}");
        let no_alg = check_metadata(&metadata(
            json!({"token_endpoint_auth_signing_alg_values_supported": ["RS256"]}),
        ))
        .unwrap_err();
        assert!(no_alg.contains("ES256"), "{no_alg}");
    }
}
