//! Base URLs: resolving a relative server against the URL a host gives.
//!
//! OpenAPI server URLs may be relative (`/v1`, `//api.example.com`, `""`)
//! and `servers` may be missing (the specification's default is `/`); they
//! are "relative to the location where the document is being served", so
//! they are resolved by RFC 3986 against a base the host gives: where the
//! document was fetched, or the API's own base.

use crate::error::Error;

/// `server` resolved against `base`: an absolute http(s) URL without a
/// trailing `/`. An empty `server` counts as `/`.
pub(crate) fn resolve(server: &str, base: &str) -> Result<String, Error> {
    let invalid = |message: String| Error::InvalidConfig {
        field: "base_url".into(),
        message,
    };
    let mut base_url = url::Url::parse(base)
        .map_err(|e| invalid(format!("`{base}` is not an absolute URL: {e}")))?;
    if !matches!(base_url.scheme(), "http" | "https") || base_url.host_str().is_none() {
        return Err(invalid(format!(
            "`{base}` must be an absolute http(s) URL with a host"
        )));
    }
    base_url.set_query(None);
    base_url.set_fragment(None);
    let relative = if server.trim().is_empty() {
        "/"
    } else {
        server.trim()
    };
    let joined = base_url.join(relative).map_err(|e| {
        invalid(format!(
            "the server `{server}` does not resolve against `{base}`: {e}"
        ))
    })?;
    let text = joined.as_str().trim_end_matches('/').to_owned();
    check_server(&text).map_err(invalid)?;
    Ok(text)
}

/// Whether `server` is relative (resolved against a base): empty, a path,
/// or protocol-relative (`//host/v1`); not an absolute URL with a scheme.
pub(crate) fn is_relative(server: &str) -> bool {
    let server = server.trim();
    server.is_empty()
        || server.starts_with('/')
        || url::Url::parse(server).is_err_and(|e| e == url::ParseError::RelativeUrlWithoutBase)
}

/// Checks that `server` is an absolute http(s) URL with a host.
pub(crate) fn check_server(server: &str) -> Result<(), String> {
    let bad =
        |why: &str| format!("`server` must be an absolute http(s) URL ({why}), got `{server}`");
    let url = url::Url::parse(server).map_err(|e| bad(&e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad(&format!("scheme `{}`", url.scheme())));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad("no host"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("a base URL takes no query or fragment"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_servers_resolve_by_rfc3986() {
        let base = "https://api.example.com/docs/openapi.json?x=1";
        for (server, expected) in [
            ("/v1", "https://api.example.com/v1"),
            ("", "https://api.example.com"),
            ("v2/", "https://api.example.com/docs/v2"),
            ("//other.example.com/api", "https://other.example.com/api"),
        ] {
            assert_eq!(resolve(server, base).unwrap(), expected, "{server}");
        }
        assert!(resolve("/v1", "ftp://x.test").is_err());
        assert!(resolve("/v1", "not a url").is_err());
    }

    #[test]
    fn relative_means_no_scheme() {
        for server in ["", "/v1", "//h.test/v1", "v1/api"] {
            assert!(is_relative(server), "{server}");
        }
        for server in ["https://h.test", "ftp://h.test"] {
            assert!(!is_relative(server), "{server}");
        }
    }
}
