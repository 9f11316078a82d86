//! One read-only call to the API server: a GET with a deadline, a bounded retry on 429 and 5xx,
//! and the `limit`/`continue` loop that pages a list.
//!
//! Owns the only place where live mode touches the wire. Every request is a GET built by
//! `kube::core::Request::{list, get}`; there is no code path that could send another verb.
//! kube's own retry layer is switched off (`Config::default_retry = false`: 15 attempts with
//! up to 1000 s of backoff would stall the CLI); this module retries at most [`ATTEMPTS`] times
//! and sleeps at most [`RETRY_BUDGET`] in all, honouring `Retry-After` up to [`MAX_RETRY_AFTER`].

use std::fmt;
use std::time::Duration;

use kube::core::params::{GetParams, ListParams};
use kube::Client;
use serde_json::value::RawValue;
use serde_json::Value;

/// Objects per page, as kubectl asks for.
pub(super) const PAGE_SIZE: u32 = 500;
/// Attempts per request, the first included.
const ATTEMPTS: u32 = 3;
/// The longest `Retry-After` we wait for.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(10);
/// The most one request may spend sleeping between attempts.
const RETRY_BUDGET: Duration = Duration::from_secs(15);
/// The first backoff; doubled on each further attempt.
const FIRST_BACKOFF: Duration = Duration::from_millis(250);

/// A GET to send: a collection to list (with query parameters) or one named object.
#[derive(Debug, Clone)]
pub(super) enum Call {
    List { path: String, params: ListParams },
    Get { collection: String, name: String },
}

impl Call {
    /// The path and query, for messages.
    pub(super) fn url(&self) -> String {
        match self {
            Call::List { path, params } => {
                let mut query = Vec::new();
                if let Some(labels) = &params.label_selector {
                    query.push(format!("labelSelector={labels}"));
                }
                if let Some(fields) = &params.field_selector {
                    query.push(format!("fieldSelector={fields}"));
                }
                if query.is_empty() {
                    path.clone()
                } else {
                    format!("{path}?{}", query.join("&"))
                }
            }
            Call::Get { collection, name } => format!("{collection}/{name}"),
        }
    }
}

/// Why a call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Failure {
    /// The server answered with an error status.
    Status { code: u16, reason: String, message: String, retry_after: Option<Duration> },
    /// No complete answer within the request timeout.
    Timeout(Duration),
    /// The connection, TLS or credentials plugin failed; the whole source chain.
    Transport(String),
    /// The answer was not the JSON we expected.
    Decode(String),
}

impl Failure {
    /// The HTTP status code, if the server answered.
    pub(super) fn code(&self) -> Option<u16> {
        match self {
            Failure::Status { code, .. } => Some(*code),
            _ => None,
        }
    }

    fn retryable(&self) -> bool {
        matches!(self.code(), Some(429 | 500 | 502 | 503 | 504))
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Status { code, reason, message, .. } if message.is_empty() => write!(f, "{code} {reason}"),
            Failure::Status { code, reason, message, .. } => write!(f, "{code} {reason}: {message}"),
            Failure::Timeout(after) => write!(f, "no answer within {}s", after.as_secs_f64()),
            Failure::Transport(chain) => f.write_str(chain),
            Failure::Decode(message) => write!(f, "unexpected answer: {message}"),
        }
    }
}

/// A client and the per-request deadline (`None`: `--request-timeout=0`, no deadline).
#[derive(Clone)]
pub(super) struct Http {
    pub(super) client: Client,
    pub(super) timeout: Option<Duration>,
}

impl Http {
    /// Sends one GET, retrying 429 and 5xx answers a bounded number of times.
    pub(super) async fn get(&self, call: &Call) -> Result<Vec<u8>, Failure> {
        let mut slept = Duration::ZERO;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let failure = match self.get_once(call).await {
                Ok(body) => return Ok(body),
                Err(failure) => failure,
            };
            if !failure.retryable() || attempt >= ATTEMPTS {
                return Err(failure);
            }
            let backoff = FIRST_BACKOFF * 2u32.pow(attempt - 1);
            let wait = match &failure {
                Failure::Status { retry_after: Some(after), .. } => (*after).min(MAX_RETRY_AFTER),
                _ => backoff,
            };
            if slept + wait > RETRY_BUDGET {
                return Err(failure);
            }
            slept += wait;
            tokio::time::sleep(wait).await;
        }
    }

    /// Sends one GET and reads the answer as JSON.
    pub(super) async fn get_json(&self, call: &Call) -> Result<Value, Failure> {
        let body = self.get(call).await?;
        serde_json::from_slice(&body).map_err(|e| Failure::Decode(format!("{}: {e}", call.url())))
    }

    /// Lists a whole collection, page by page, handing each page's items to `items` as the
    /// page arrives (as slices of its text: no JSON tree is built), then drops the page.
    ///
    /// Follows `metadata.continue` until it is empty. The first page is a consistent read (no
    /// `resourceVersion`, as kubectl does; servers from 1.31 serve it from the watch cache), and
    /// continuation pages carry only the token, as the API requires. A token that expires
    /// mid-list (410 Gone) restarts the list once ([`Items::restart`]).
    pub(super) async fn list_each(&self, path: &str, base: &ListParams, items: &mut impl Items) -> Result<(), Failure> {
        let mut restarted = false;
        'restart: loop {
            let mut token: Option<String> = None;
            loop {
                let mut params = base.clone().limit(PAGE_SIZE);
                if let Some(token) = &token {
                    params = params.continue_token(token);
                }
                let call = Call::List { path: path.to_owned(), params };
                let body = match self.get(&call).await {
                    Ok(body) => body,
                    Err(Failure::Status { code: 410, .. }) if token.is_some() && !restarted => {
                        restarted = true;
                        items.restart();
                        continue 'restart;
                    }
                    Err(failure) => return Err(failure),
                };
                let next = page(&body, path, &call, items)?;
                match next {
                    None => return Ok(()),
                    Some(next) if token.as_deref() == Some(next.as_str()) => {
                        return Err(Failure::Decode(format!("{path}: the server repeated continue token `{next}`")))
                    }
                    Some(next) => token = Some(next),
                }
            }
        }
    }

    async fn get_once(&self, call: &Call) -> Result<Vec<u8>, Failure> {
        let request = match call {
            Call::List { path, params } => kube::core::Request::new(path.as_str()).list(params),
            Call::Get { collection, name } => {
                kube::core::Request::new(collection.as_str()).get(name, &GetParams::default())
            }
        }
        .map_err(|e| Failure::Transport(format!("{}: {e}", call.url())))?;
        let transport = |error: kube::Error| {
            let chain = chain(&error);
            match self.timeout {
                Some(after) if chain.contains("timed out") || chain.contains("TimedOut") => Failure::Timeout(after),
                _ => Failure::Transport(chain),
            }
        };
        let exchange = async {
            let response = self.client.send(request.map(kube::client::Body::from)).await.map_err(transport)?;
            let status = response.status();
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            let body = response.into_body().collect_bytes().await.map_err(transport)?.to_vec();
            if status.is_success() {
                return Ok(body);
            }
            Err(status_failure(status.as_u16(), status.canonical_reason().unwrap_or_default(), &body, retry_after))
        };
        let Some(deadline) = self.timeout else { return exchange.await };
        match tokio::time::timeout(deadline, exchange).await {
            Ok(result) => result,
            Err(_) => Err(Failure::Timeout(deadline)),
        }
    }
}

/// Reads a `Status` body (or plain text from a proxy) into a failure.
/// What [`Http::list_each`] hands a list's items to.
pub(super) trait Items {
    /// One item of a page, as its JSON text.
    fn item(&mut self, item: &RawValue);
    /// The list starts again from its first page: forget every item.
    fn restart(&mut self);
}

/// One page of a list: its items to `items`, and the continue token.
fn page(body: &[u8], path: &str, call: &Call, items: &mut impl Items) -> Result<Option<String>, Failure> {
    #[derive(serde::Deserialize)]
    struct Page<'a> {
        #[serde(borrow, default)]
        items: Option<&'a RawValue>,
        #[serde(borrow, default)]
        metadata: Option<&'a RawValue>,
    }
    let not_json = |e: &dyn fmt::Display| Failure::Decode(format!("{}: {e}", call.url()));
    let text = std::str::from_utf8(body).map_err(|e| not_json(&e))?;
    let page: Page<'_> = match serde_json::from_str(text) {
        Ok(page) => page,
        // Valid JSON but no object (or an object of the wrong shape).
        Err(_) if serde_json::from_str::<&RawValue>(text).is_ok_and(|v| !v.get().starts_with('{')) => {
            return Err(Failure::Decode(format!("{path}: the answer is not a list")))
        }
        Err(e) => return Err(not_json(&e)),
    };
    match page.items.map(RawValue::get) {
        None | Some("null") => {}
        Some(list) if list.starts_with('[') => {
            let list: Vec<&RawValue> = serde_json::from_str(list).map_err(|e| not_json(&e))?;
            for item in list {
                items.item(item);
            }
        }
        Some(_) => return Err(Failure::Decode(format!("{path}: `items` is not an array"))),
    }
    let metadata: Option<Value> = page.metadata.and_then(|m| serde_json::from_str(m.get()).ok());
    Ok(metadata
        .as_ref()
        .and_then(|m| m.get("continue"))
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .map(str::to_owned))
}

fn status_failure(code: u16, canonical: &str, body: &[u8], retry_after: Option<Duration>) -> Failure {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let field =
        |name: &str| parsed.as_ref().and_then(|v| v.get(name)).and_then(Value::as_str).unwrap_or_default().to_owned();
    let reason = field("reason");
    let mut message = field("message");
    if parsed.is_none() {
        message = String::from_utf8_lossy(body).trim().chars().take(300).collect();
    }
    let retry_after = retry_after.or_else(|| {
        parsed
            .as_ref()
            .and_then(|v| v.pointer("/details/retryAfterSeconds"))
            .and_then(Value::as_u64)
            .filter(|s| *s > 0)
            .map(Duration::from_secs)
    });
    Failure::Status {
        code,
        reason: if reason.is_empty() { canonical.to_owned() } else { reason },
        message,
        retry_after,
    }
}

/// An error with its whole `source()` chain, `outer: inner: innermost`, skipping repeats, so
/// TLS causes are not lost behind kube's `ServiceError: client error (Connect)`.
pub(super) fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    if let Some(exec) = super::exec_error::describe(error) {
        return exec;
    }
    let mut parts: Vec<String> = vec![error.to_string()];
    let mut source = error.source();
    while let Some(e) = source {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = e.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{status_failure, Failure};

    #[test]
    fn reads_status_json() {
        let body = br#"{"kind":"Status","code":403,"reason":"Forbidden","message":"pods is forbidden"}"#;
        let failure = status_failure(403, "Forbidden", body, None);
        assert_eq!(failure.to_string(), "403 Forbidden: pods is forbidden");
        assert_eq!(failure.code(), Some(403));
    }

    #[test]
    fn reads_plain_text_and_retry_after() {
        let failure = status_failure(429, "Too Many Requests", b"Too many requests\n", Some(Duration::from_secs(2)));
        assert_eq!(
            failure,
            Failure::Status {
                code: 429,
                reason: "Too Many Requests".into(),
                message: "Too many requests".into(),
                retry_after: Some(Duration::from_secs(2)),
            }
        );
        assert!(failure.retryable());
        assert!(!status_failure(404, "Not Found", b"", None).retryable());
    }

    #[test]
    fn retry_after_from_status_details() {
        let body = br#"{"code":503,"reason":"ServiceUnavailable","details":{"retryAfterSeconds":3}}"#;
        assert!(matches!(
            status_failure(503, "Service Unavailable", body, None),
            Failure::Status { retry_after: Some(d), .. } if d == Duration::from_secs(3)
        ));
    }
}
