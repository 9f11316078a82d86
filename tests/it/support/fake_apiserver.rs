//! An in-process fake Kubernetes API server on 127.0.0.1 for live-mode tests.
//!
//! Serves captured objects by path (`/api/v1/nodes`, `/apis/apps/v1/namespaces/x/deployments`,
//! one object by name), paginates with `limit`/`continue` (token `"{rv}:{offset}"`), strips
//! `apiVersion`/`kind` from list items as the real server does, and can inject faults per
//! resource: 403, 404, a delay, transient 429s, an expired continue token. Raw routes answer
//! exact paths (the metrics proxy). Every request is logged (method, path, query, headers).
//! Plain HTTP and bearer-token auth: enough for the real kube client, kubeconfig included.

#![allow(dead_code, reason = "each test binary uses a different part of the fake")]

use std::collections::{BTreeMap, HashMap, HashSet};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};

/// The bearer token the kubeconfig carries and the server expects.
pub(crate) const TOKEN: &str = "fake-token";
/// The fixed resourceVersion of every list.
pub(crate) const RESOURCE_VERSION: &str = "4242";

/// One request as the server saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Logged {
    pub method: String,
    pub path: String,
    /// Decoded query parameters.
    pub query: BTreeMap<String, String>,
    pub user_agent: Option<String>,
    pub authorization: Option<String>,
}

/// What the server serves and which faults it injects.
#[derive(Debug, Default)]
pub(crate) struct Config {
    /// Objects by collection path (`/api/v1/pods`), items with namespace kept for filtering.
    collections: BTreeMap<String, Vec<Value>>,
    /// Exact paths answered with `(status, content type, body)`.
    raw: HashMap<String, (u16, &'static str, String)>,
    /// Largest page served, whatever `limit` asks for.
    pub page_size: usize,
    /// Plurals (`poddisruptionbudgets`) answered with 403.
    forbidden: HashSet<String>,
    /// Collection paths (`/apis/karpenter.sh/v1/nodepools`) answered with a 404 Status.
    not_found: HashSet<String>,
    /// Plurals answered only after this delay.
    delays: HashMap<String, Duration>,
    /// Plurals answered with this many 429s (Retry-After: 0) before succeeding.
    too_many: HashMap<String, usize>,
    /// Plurals whose first continue token is reported expired (410).
    expire_continue: HashSet<String>,
}

impl Config {
    /// Serves `objects` (each with `apiVersion` and `kind`; Lists are not flattened here).
    pub(crate) fn new(objects: &[Value]) -> Config {
        let mut config = Config { page_size: usize::MAX, ..Config::default() };
        for object in objects {
            config.add(object.clone());
        }
        config
    }

    /// Adds one object under its collection path.
    pub(crate) fn add(&mut self, object: Value) {
        let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
        let kind = object.get("kind").and_then(Value::as_str).unwrap_or_default();
        if api_version.is_empty() || kind.is_empty() {
            return;
        }
        let path = collection_path(api_version, kind);
        self.collections.entry(path).or_default().push(object);
    }

    pub(crate) fn page_size(mut self, size: usize) -> Self {
        self.page_size = size;
        self
    }

    pub(crate) fn forbid(mut self, plural: &str) -> Self {
        self.forbidden.insert(plural.to_owned());
        self
    }

    pub(crate) fn not_found(mut self, collection: &str) -> Self {
        self.not_found.insert(collection.to_owned());
        self
    }

    pub(crate) fn delay(mut self, plural: &str, delay: Duration) -> Self {
        self.delays.insert(plural.to_owned(), delay);
        self
    }

    pub(crate) fn too_many_requests(mut self, plural: &str, times: usize) -> Self {
        self.too_many.insert(plural.to_owned(), times);
        self
    }

    pub(crate) fn expire_first_continue(mut self, plural: &str) -> Self {
        self.expire_continue.insert(plural.to_owned());
        self
    }

    /// Answers `path` exactly with `status` and a text body.
    pub(crate) fn raw(mut self, path: &str, status: u16, body: &str) -> Self {
        self.raw.insert(path.to_owned(), (status, "text/plain; version=0.0.4", body.to_owned()));
        self
    }
}

/// `v1` + `Pod` → `/api/v1/pods`; `apps/v1` + `Deployment` → `/apis/apps/v1/deployments`.
pub(crate) fn collection_path(api_version: &str, kind: &str) -> String {
    let prefix = if api_version.contains('/') { format!("/apis/{api_version}") } else { format!("/api/{api_version}") };
    format!("{prefix}/{}", plural(kind))
}

fn plural(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    if lower.ends_with('s') {
        format!("{lower}es")
    } else if let Some(stem) = lower.strip_suffix('y') {
        format!("{stem}ies")
    } else {
        format!("{lower}s")
    }
}

struct State {
    config: Config,
    log: Vec<Logged>,
}

/// A running fake; stops when dropped.
pub(crate) struct FakeApiServer {
    pub addr: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeApiServer {
    /// Binds 127.0.0.1 on a free port and serves on its own thread and runtime.
    pub(crate) fn start(config: Config) -> FakeApiServer {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        listener.set_nonblocking(true).expect("non-blocking listener");
        let addr = listener.local_addr().expect("local address");
        let state = Arc::new(Mutex::new(State { config, log: Vec::new() }));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = Arc::clone(&state);
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("server runtime");
            runtime.block_on(serve(listener, served, stopped));
        });
        FakeApiServer { addr, state, stop: Some(stop), thread: Some(thread) }
    }

    /// `http://127.0.0.1:PORT`.
    pub(crate) fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far.
    pub(crate) fn log(&self) -> Vec<Logged> {
        lock(&self.state).log.clone()
    }

    /// Requests whose path is exactly `path`.
    pub(crate) fn requests_to(&self, path: &str) -> Vec<Logged> {
        self.log().into_iter().filter(|r| r.path == path).collect()
    }

    /// Writes a kubeconfig for this server (token auth, context `fake`, namespace `team-a`).
    pub(crate) fn write_kubeconfig(&self, dir: &Path) -> PathBuf {
        let path = dir.join("kubeconfig");
        let text = format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: fake\nclusters:\n- name: fake\n  cluster:\n    server: {}\n\
             contexts:\n- name: fake\n  context:\n    cluster: fake\n    user: fake\n    namespace: team-a\n\
             users:\n- name: fake\n  user:\n    token: {TOKEN}\n",
            self.url()
        );
        std::fs::write(&path, text).expect("write kubeconfig");
        path
    }
}

impl Drop for FakeApiServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

async fn serve(
    listener: std::net::TcpListener,
    state: Arc<Mutex<State>>,
    mut stopped: tokio::sync::oneshot::Receiver<()>,
) {
    let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let state = Arc::clone(&state);
                tokio::spawn(async move {
                    let service = service_fn(move |request| handle(Arc::clone(&state), request));
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
            _ = &mut stopped => break,
        }
    }
}

type Reply = Response<Full<Bytes>>;

async fn handle(state: Arc<Mutex<State>>, request: Request<Incoming>) -> Result<Reply, Infallible> {
    let path = request.uri().path().to_owned();
    let query = parse_query(request.uri().query().unwrap_or_default());
    let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let entry = Logged {
        method: request.method().as_str().to_owned(),
        path: path.clone(),
        query: query.clone(),
        user_agent: header("user-agent"),
        authorization: header("authorization"),
    };
    let (delay, reply) = {
        let mut state = lock(&state);
        state.log.push(entry.clone());
        respond(&mut state.config, &entry)
    };
    if let Some(delay) = delay {
        tokio::time::sleep(delay).await;
    }
    Ok(reply)
}

fn respond(config: &mut Config, request: &Logged) -> (Option<Duration>, Reply) {
    if request.method != "GET" {
        return (None, status(405, "MethodNotAllowed", "the fake API server is read-only"));
    }
    if request.authorization.as_deref() != Some(&format!("Bearer {TOKEN}")) {
        return (None, status(401, "Unauthorized", "Unauthorized"));
    }
    if let Some((code, content_type, body)) = config.raw.get(&request.path) {
        return (None, text(*code, content_type, body.clone()));
    }
    let Some(route) = Route::parse(&request.path) else {
        return (None, text(404, "text/plain", "404 page not found".to_owned()));
    };
    let delay = config.delays.get(&route.plural).copied();
    if config.forbidden.contains(&route.plural) {
        let message = format!(
            "{} is forbidden: User \"fake\" cannot list resource \"{}\" in API group \"{}\" at the cluster scope",
            route.plural, route.plural, route.group
        );
        return (delay, status(403, "Forbidden", &message));
    }
    if config.not_found.contains(&route.collection) {
        return (delay, status(404, "NotFound", "the server could not find the requested resource"));
    }
    if let Some(left) = config.too_many.get_mut(&route.plural) {
        if *left > 0 {
            *left -= 1;
            let mut reply = status(429, "TooManyRequests", "the server has received too many requests");
            reply.headers_mut().insert("retry-after", hyper::header::HeaderValue::from_static("0"));
            return (delay, reply);
        }
    }
    let Some(all) = config.collections.get(&route.collection) else {
        if let Some(name) = &route.name {
            return (delay, status(404, "NotFound", &format!("{} \"{name}\" not found", route.plural)));
        }
        return (delay, empty_list(&route));
    };
    let items: Vec<&Value> = all
        .iter()
        .filter(|o| route.namespace.as_deref().is_none_or(|ns| namespace(o) == ns))
        .filter(|o| matches_labels(o, request.query.get("labelSelector").map(String::as_str)))
        .collect();
    if let Some(name) = &route.name {
        return match items.iter().find(|o| o.pointer("/metadata/name").and_then(Value::as_str) == Some(name)) {
            Some(object) => (delay, json_reply(200, object)),
            None => (delay, status(404, "NotFound", &format!("{} \"{name}\" not found", route.plural))),
        };
    }
    let offset = match request.query.get("continue") {
        Some(token) => {
            if config.expire_continue.remove(&route.plural) {
                return (delay, status(410, "Expired", "The provided continue parameter is too old"));
            }
            match token.split_once(':').and_then(|(_, o)| o.parse::<usize>().ok()) {
                Some(offset) => offset,
                None => return (delay, status(400, "BadRequest", "invalid continue token")),
            }
        }
        None => 0,
    };
    let limit = request.query.get("limit").and_then(|l| l.parse::<usize>().ok()).unwrap_or(usize::MAX);
    let size = limit.min(config.page_size).max(1);
    let end = offset.saturating_add(size).min(items.len());
    let page: Vec<Value> = items.get(offset..end).unwrap_or_default().iter().map(|o| strip_type(o)).collect();
    let mut metadata = json!({"resourceVersion": RESOURCE_VERSION});
    if end < items.len() {
        metadata["continue"] = json!(format!("{RESOURCE_VERSION}:{end}"));
        metadata["remainingItemCount"] = json!(items.len() - end);
    }
    let body = json!({"apiVersion": route.api_version(), "kind": format!("{}List", route.kind_hint()),
                      "metadata": metadata, "items": page});
    (delay, json_reply(200, &body))
}

/// A parsed resource path.
#[derive(Debug)]
struct Route {
    group: String,
    version: String,
    plural: String,
    namespace: Option<String>,
    name: Option<String>,
    /// The cluster-wide collection path, the key of `Config::collections`.
    collection: String,
}

impl Route {
    fn parse(path: &str) -> Option<Route> {
        let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
        let (group, version, rest) = match parts.as_slice() {
            ["api", version, rest @ ..] => ("", *version, rest),
            ["apis", group, version, rest @ ..] => (*group, *version, rest),
            _ => return None,
        };
        let (namespace, plural, name) = match rest {
            [plural] => (None, *plural, None),
            ["namespaces", ns, plural] => (Some(*ns), *plural, None),
            ["namespaces", ns, plural, name] => (Some(*ns), *plural, Some(*name)),
            [plural, name] => (None, *plural, Some(*name)),
            _ => return None,
        };
        let prefix = if group.is_empty() { format!("/api/{version}") } else { format!("/apis/{group}/{version}") };
        Some(Route {
            group: group.to_owned(),
            version: version.to_owned(),
            plural: plural.to_owned(),
            namespace: namespace.map(str::to_owned),
            name: name.map(str::to_owned),
            collection: format!("{prefix}/{plural}"),
        })
    }

    fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    fn kind_hint(&self) -> String {
        let mut chars = self.plural.chars();
        chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
    }
}

fn namespace(object: &Value) -> &str {
    object.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or_default()
}

/// `k=v,k2=v2` equality selectors only.
fn matches_labels(object: &Value, selector: Option<&str>) -> bool {
    let Some(selector) = selector.filter(|s| !s.is_empty()) else { return true };
    selector.split(',').all(|term| match term.split_once('=') {
        Some((key, value)) => {
            object.pointer("/metadata/labels").and_then(|l| l.get(key.trim())).and_then(Value::as_str)
                == Some(value.trim())
        }
        None => false,
    })
}

/// List items come without `apiVersion` and `kind`, as from a real API server.
fn strip_type(object: &Value) -> Value {
    let mut object = object.clone();
    if let Value::Object(map) = &mut object {
        map.remove("apiVersion");
        map.remove("kind");
    }
    object
}

fn empty_list(route: &Route) -> Reply {
    json_reply(
        200,
        &json!({"apiVersion": route.api_version(), "kind": format!("{}List", route.kind_hint()),
               "metadata": {"resourceVersion": RESOURCE_VERSION}, "items": []}),
    )
}

fn status(code: u16, reason: &str, message: &str) -> Reply {
    json_reply(
        code,
        &json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
               "message": message, "reason": reason, "code": code}),
    )
}

fn json_reply(code: u16, body: &Value) -> Reply {
    text(code, "application/json", body.to_string())
}

fn text(code: u16, content_type: &'static str, body: String) -> Reply {
    let mut reply = Response::new(Full::new(Bytes::from(body)));
    *reply.status_mut() = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    reply.headers_mut().insert("content-type", hyper::header::HeaderValue::from_static(content_type));
    reply
}

fn parse_query(query: &str) -> BTreeMap<String, String> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(key), percent_decode(value))
        })
        .collect()
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
