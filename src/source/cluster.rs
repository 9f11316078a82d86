//! Live mode: reads the cluster once, through the API server, into a [`Snapshot`].
//!
//! Owns the kubeconfig (kubectl's `--kubeconfig`/`KUBECONFIG` list, `--context`, `--cluster`,
//! `--user`; exec credential plugins work through kube's `client` feature), the concurrent,
//! paginated lists of every kind docs/DESIGN.md names, and Karpenter's price metrics. The only async
//! code of the crate lives here and below; [`fetch`] is sync and builds its own current-thread
//! runtime. Read-only by construction: every request is a GET (see `http`), and Secrets and
//! ConfigMaps are never asked for. Each page is decoded as it arrives, item by item from its
//! text, by the decoder file mode uses ([`ListDecoder`]); no JSON tree of a page is built, and
//! only the Karpenter controller's own Deployment or pods are kept as JSON (to find its
//! metrics).
//!
//! A kind the API server forbids (403) or does not serve (404) is a warning and an entry in
//! `info.unread`, and the rest still runs; Karpenter's CRDs missing is [`Error::NoKarpenter`].

mod exec_credential;
mod exec_error;
mod http;
mod metrics;
pub mod names;

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};
use kube::core::params::ListParams;
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};
use kube::Resource;
use serde_json::value::RawValue;
use serde_json::Value;

use self::http::{chain, Call, Failure, Http};
use super::ClusterArgs;
use crate::error::Error;
use crate::snapshot::{ListDecoder, Snapshot, UnreadKind};

/// The per-request deadline when `--request-timeout` is not given.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Sent on every request, so API server audit logs can tell who read.
pub const USER_AGENT: &str = concat!("kubectl-consolidation/", env!("CARGO_PKG_VERSION"));
/// The progress line appears only when the fetch takes longer than this.
const PROGRESS_AFTER: Duration = Duration::from_secs(1);

/// A kind the replay reads, and where the API serves it.
#[derive(Debug, Clone, Copy)]
struct Kind {
    name: &'static str,
    group: &'static str,
    version: &'static str,
    plural: &'static str,
}

impl Kind {
    const fn new(group: &'static str, version: &'static str, name: &'static str, plural: &'static str) -> Kind {
        Kind { name, group, version, plural }
    }

    fn api_resource(self) -> ApiResource {
        ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(self.group, self.version, self.name), self.plural)
    }

    fn api_version(self) -> String {
        if self.group.is_empty() {
            self.version.to_owned()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `poddisruptionbudgets.policy`, `nodes`: how kubectl names a resource.
    fn resource(self) -> String {
        if self.group.is_empty() {
            self.plural.to_owned()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// The ClusterRole rule that would allow the list.
    fn rbac_rule(self) -> String {
        format!(r#"{{apiGroups: ["{}"], resources: ["{}"], verbs: ["list"]}}"#, self.group, self.plural)
    }
}

const NODE_POOL: Kind = Kind::new("karpenter.sh", "v1", "NodePool", "nodepools");
const NODE_CLAIM: Kind = Kind::new("karpenter.sh", "v1", "NodeClaim", "nodeclaims");
const NODE: Kind = Kind::new("", "v1", "Node", "nodes");
const POD: Kind = Kind::new("", "v1", "Pod", "pods");
const DEPLOYMENT: Kind = Kind::new("apps", "v1", "Deployment", "deployments");
/// core/v1, not events.k8s.io/v1: Karpenter publishes through controller-runtime's
/// `GetEventRecorderFor` (kubernetes-sigs/karpenter v1.14.0 `pkg/operator/operator.go`
/// `NewOperator`, with a `nolint:staticcheck` note that the events.k8s.io recorder is not used
/// yet), i.e. client-go `tools/record`, which writes core/v1 Events with `source.component`
/// `karpenter`. Every tag 1.0.0–1.14.1 does (docs/DOCTOR-SIGNALS.md §1.1). The API server serves
/// the same objects through both groups, so this list misses nothing Karpenter wrote.
const EVENT: Kind = Kind::new("", "v1", "Event", "events");
/// The AWS provider's NodeClass: absent (404) on other providers, which is no warning.
const EC2_NODE_CLASS: Kind = Kind::new("karpenter.k8s.aws", "v1", "EC2NodeClass", "ec2nodeclasses");

/// SIG Autoscaling's capacity buffers (Karpenter v1.14.0+ behind the `CapacityBuffer` gate):
/// absent (404) where the CRD is not installed, which is no warning.
const CAPACITY_BUFFER: Kind = Kind::new("autoscaling.x-k8s.io", "v1beta1", "CapacityBuffer", "capacitybuffers");
/// What a buffer's `podTemplateRef` names.
const POD_TEMPLATE: Kind = Kind::new("", "v1", "PodTemplate", "podtemplates");

/// Every kind docs/DESIGN.md's input contract reads, in the order failures are reported.
const KINDS: [Kind; 17] = [
    NODE_POOL,
    NODE_CLAIM,
    NODE,
    POD,
    Kind::new("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets"),
    Kind::new("apps", "v1", "DaemonSet", "daemonsets"),
    Kind::new("apps", "v1", "ReplicaSet", "replicasets"),
    DEPLOYMENT,
    Kind::new("apps", "v1", "StatefulSet", "statefulsets"),
    Kind::new("autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers"),
    Kind::new("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims"),
    Kind::new("", "v1", "PersistentVolume", "persistentvolumes"),
    Kind::new("storage.k8s.io", "v1", "StorageClass", "storageclasses"),
    Kind::new("storage.k8s.io", "v1", "CSINode", "csinodes"),
    EC2_NODE_CLASS,
    CAPACITY_BUFFER,
    POD_TEMPLATE,
];

/// Events are read only about these kinds (one list each, filtered on the server and here).
const EVENT_SUBJECTS: [&str; 4] = ["Node", "NodeClaim", "NodePool", "Pod"];

/// Pods that finished hold no resources and block nothing; the server drops them for us.
const NON_TERMINAL_PODS: &str = "status.phase!=Succeeded,status.phase!=Failed";

/// One list to run.
#[derive(Debug, Clone)]
struct Job {
    kind: Kind,
    params: ListParams,
    /// Events: only those about this kind.
    subject: Option<&'static str>,
}

fn jobs() -> Vec<Job> {
    let mut jobs: Vec<Job> = KINDS
        .iter()
        .map(|&kind| {
            let params = if kind.name == POD.name {
                ListParams::default().fields(NON_TERMINAL_PODS)
            } else {
                ListParams::default()
            };
            Job { kind, params, subject: None }
        })
        .collect();
    jobs.extend(EVENT_SUBJECTS.iter().map(|&subject| Job {
        kind: EVENT,
        params: ListParams::default().fields(&format!("involvedObject.kind={subject}")),
        subject: Some(subject),
    }));
    jobs
}

impl Job {
    /// Whether a listed item belongs in the snapshot (the server may ignore field selectors).
    /// Reads only the field it needs; [`Job::keeps`] on the item's JSON tree decides when the
    /// item's shape is unexpected.
    fn keeps_raw(&self, item: &RawValue) -> bool {
        #[derive(serde::Deserialize)]
        struct Text {
            #[serde(default, deserialize_with = "string_or_none")]
            phase: Option<String>,
            #[serde(default, deserialize_with = "string_or_none")]
            kind: Option<String>,
        }
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Probe {
            #[serde(default)]
            status: Option<Text>,
            #[serde(default)]
            involved_object: Option<Text>,
        }
        if self.subject.is_none() && self.kind.name != POD.name {
            return true;
        }
        match serde_json::from_str::<Probe>(item.get()) {
            Ok(probe) if self.subject.is_some() => {
                probe.involved_object.and_then(|o| o.kind).as_deref() == self.subject
            }
            Ok(probe) => !matches!(probe.status.and_then(|s| s.phase).as_deref(), Some("Succeeded" | "Failed")),
            Err(_) => serde_json::from_str::<Value>(item.get()).is_ok_and(|v| self.keeps(&v)),
        }
    }

    fn keeps(&self, item: &Value) -> bool {
        if let Some(subject) = self.subject {
            return item.pointer("/involvedObject/kind").and_then(Value::as_str) == Some(subject);
        }
        if self.kind.name == POD.name {
            let phase = item.pointer("/status/phase").and_then(Value::as_str);
            return !matches!(phase, Some("Succeeded" | "Failed"));
        }
        true
    }
}

/// Reads the cluster into a snapshot; warnings go to stderr.
pub fn fetch(args: &ClusterArgs) -> Result<Snapshot, Error> {
    fetch_with_warnings(args, &mut std::io::stderr())
}

/// [`fetch`], writing warnings (one line each) to `warnings` instead of stderr.
pub fn fetch_with_warnings(args: &ClusterArgs, warnings: &mut dyn Write) -> Result<Snapshot, Error> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| Error::Cluster {
        what: "the cluster".to_owned(),
        message: format!("could not start the async runtime: {e}"),
        help: "this is a bug or a resource limit of the machine; replay a file with --snapshot instead".to_owned(),
    })?;
    runtime.block_on(fetch_async(args, warnings))
}

/// The default namespace of the kubeconfig's current (or `--context`) context, without network.
pub fn context_namespace(args: &ClusterArgs) -> Option<String> {
    match read_kubeconfig(args) {
        Ok(Some(kubeconfig)) => {
            let context = args.context.as_ref().or(kubeconfig.current_context.as_ref())?;
            kubeconfig
                .contexts
                .iter()
                .find(|c| &c.name == context)
                .and_then(|c| c.context.as_ref())
                .and_then(|c| c.namespace.clone())
                .filter(|ns| !ns.is_empty())
        }
        Ok(None) => kube::Config::incluster().ok().map(|c| c.default_namespace),
        Err(_) => None,
    }
}

async fn fetch_async(args: &ClusterArgs, warnings: &mut dyn Write) -> Result<Snapshot, Error> {
    let started = Instant::now();
    let (http, server) = connect(args).await?;
    let mut progress = Progress::new(args.progress, started);
    let jobs = jobs();
    let results = run_jobs(&http, &jobs, &mut progress).await;
    progress.clear();

    let mut unread: Vec<UnreadKind> = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    let mut lists = Vec::new();
    let mut deployments = Vec::new();
    let mut pods = Vec::new();
    for (job, result) in jobs.iter().zip(results) {
        let failure = match result {
            Ok(listed) => {
                if job.kind.name == DEPLOYMENT.name {
                    deployments.extend(listed.karpenter);
                } else if job.kind.name == POD.name {
                    pods.extend(listed.karpenter);
                }
                lists.push(listed.decoder);
                continue;
            }
            Err(failure) => failure,
        };
        if job.kind.group == NODE_POOL.group && failure.code() == Some(404) {
            return Err(no_karpenter(&http).await);
        }
        if unread.iter().any(|u| u.kind == job.kind.name) {
            continue;
        }
        let optional = [EC2_NODE_CLASS.name, CAPACITY_BUFFER.name, POD_TEMPLATE.name];
        if optional.contains(&job.kind.name) && failure.code() == Some(404) {
            continue;
        }
        match failure.code() {
            Some(403) => {
                let rule = job.kind.rbac_rule();
                lines.push(format!("warning: cannot list {} (403 Forbidden); grant: {rule}", job.kind.resource()));
                unread.push(UnreadKind { kind: job.kind.name.to_owned(), reason: format!("{failure}; grant: {rule}") });
            }
            Some(404) => {
                lines.push(format!(
                    "warning: this API server does not serve {} {} (404 Not Found); read as empty",
                    job.kind.api_version(),
                    job.kind.resource()
                ));
                unread.push(UnreadKind { kind: job.kind.name.to_owned(), reason: failure.to_string() });
            }
            _ => return Err(cluster_error(job.kind, &failure, &server, args)),
        }
    }
    let core_unread = [NODE, NODE_CLAIM, NODE_POOL].iter().all(|k| unread.iter().any(|u| u.kind == k.name));
    if core_unread {
        return Err(Error::Cluster {
            what: "nodes, nodeclaims or nodepools".to_owned(),
            message: "all three are forbidden (403); there is nothing to replay".to_owned(),
            help: format!(
                "grant get/list on them, e.g. a ClusterRole with rules {}, {} and {}",
                NODE.rbac_rule(),
                NODE_POOL.rbac_rule(),
                NODE_CLAIM.rbac_rule()
            ),
        });
    }

    let controller = metrics::locate(&deployments, &pods);
    let mut snapshot = Snapshot::from_lists(lists).map_err(|e| Error::Cluster {
        what: e.kind.clone(),
        message: format!("{} `{}`, field `{}`: {}", e.kind, e.name, e.field, e.message),
        help: format!("{}; the API server sent this object, so please report it as a bug", e.help),
    })?;
    snapshot.events = crate::snapshot::bound_events(std::mem::take(&mut snapshot.events));
    snapshot.info.captured_at = Some(jiff::Timestamp::now());
    if let Some(version) = controller.as_ref().and_then(|c| c.version.clone()) {
        snapshot.info.karpenter_version = Some(version);
    }

    // `--prices` supplies what the metrics would have, and is applied by `prepare::apply_prices`
    // exactly as on a snapshot file: scraping too would let the two inputs differ after it.
    // The same scrape gives `doctor` its disruption families; when it fails, that is named in
    // `info.unread` (kind DisruptionMetrics) so `doctor` says what it could not judge.
    let mut metrics_unread = |reason: String| {
        unread.push(UnreadKind { kind: crate::snapshot::DISRUPTION_METRICS.to_owned(), reason });
    };
    match &controller {
        _ if args.prices_given => metrics_unread("not scraped: --prices replaces the /metrics scrape".to_owned()),
        Some(controller) => match metrics::scrape(&http, controller).await {
            Ok(text) => {
                snapshot.disruption_metrics = Some(super::disruption_metrics::parse(&text));
                match super::prices::parse_prices(&text, "karpenter /metrics") {
                    Ok(types) if !types.is_empty() => {
                        snapshot.merge_instance_types(types);
                        snapshot.info.price_source = Some("metrics".to_owned());
                    }
                    Ok(_) => lines.push(price_warning(controller, "the metrics hold no instance types")),
                    Err(e) => lines.push(price_warning(controller, &e.to_string())),
                }
            }
            Err(why) => {
                metrics_unread(why.clone());
                lines.push(price_warning(controller, &why));
            }
        },
        None => {
            metrics_unread("no Karpenter controller found".to_owned());
            lines.push(
            "warning: no Karpenter controller found (Deployment or pods labelled app.kubernetes.io/name=karpenter), \
             so its metrics (offering prices and availability) were not read; --prices FILE supplies them"
                .to_owned(),
            );
        }
    }
    unread.sort_by(|a, b| a.kind.cmp(&b.kind));
    snapshot.info.unread = unread;
    for line in lines {
        // A closed stderr is no reason to lose the snapshot.
        let _ = writeln!(warnings, "{line}");
    }
    Ok(snapshot)
}

fn price_warning(controller: &metrics::Controller, why: &str) -> String {
    format!(
        "warning: could not read prices from Karpenter's metrics ({why}); --prices FILE supplies them \
         (an InstanceTypes document or saved /metrics text), or grant in namespace {}: \
         {{apiGroups: [\"\"], resources: [\"services/proxy\", \"pods/proxy\"], verbs: [\"get\"]}}, \
         {{apiGroups: [\"coordination.k8s.io\"], resources: [\"leases\"], verbs: [\"get\"]}}",
        controller.namespace
    )
}

/// One list, decoded as its pages arrived.
struct Listed {
    job: Job,
    decoder: ListDecoder,
    /// Items seen (for the progress line).
    seen: usize,
    /// The items labelled as Karpenter's controller, as JSON (Deployments and pods only).
    karpenter: Vec<Value>,
}

impl http::Items for Listed {
    fn item(&mut self, item: &RawValue) {
        self.seen += 1;
        if !self.job.keeps_raw(item) {
            return;
        }
        if matches!(self.job.kind.name, "Deployment" | "Pod") && metrics::is_karpenter_raw(item) {
            if let Ok(value) = serde_json::from_str(item.get()) {
                self.karpenter.push(value);
            }
        }
        self.decoder.add(item);
    }

    fn restart(&mut self) {
        self.decoder.clear();
        self.seen = 0;
        self.karpenter.clear();
    }
}

/// Runs every list concurrently; results come back in job order.
async fn run_jobs(http: &Http, jobs: &[Job], progress: &mut Progress) -> Vec<Result<Listed, Failure>> {
    let mut set = tokio::task::JoinSet::new();
    for (index, job) in jobs.iter().enumerate() {
        let http = http.clone();
        let path = DynamicObject::url_path(&job.kind.api_resource(), None);
        let params = job.params.clone();
        let mut listed = Listed {
            job: job.clone(),
            decoder: ListDecoder::new(&job.kind.api_version(), job.kind.name),
            seen: 0,
            karpenter: Vec::new(),
        };
        set.spawn(async move {
            let result = http.list_each(&path, &params, &mut listed).await;
            (index, result.map(|()| listed))
        });
    }
    let mut results: Vec<Option<Result<Listed, Failure>>> = (0..jobs.len()).map(|_| None).collect();
    let mut done = 0;
    let mut objects = 0;
    let mut tick = tokio::time::interval(Duration::from_millis(200));
    loop {
        tokio::select! {
            joined = set.join_next() => match joined {
                Some(Ok((index, result))) => {
                    done += 1;
                    objects += result.as_ref().map_or(0, |l| l.seen);
                    results[index] = Some(result);
                }
                Some(Err(e)) => {
                    let failure = Failure::Transport(format!("a list task failed: {e}"));
                    if let Some(slot) = results.iter_mut().find(|r| r.is_none()) {
                        *slot = Some(Err(failure));
                    }
                    done += 1;
                }
                None => break,
            },
            _ = tick.tick() => progress.show(done, jobs.len(), objects),
        }
    }
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(Failure::Transport("a list task did not finish".to_owned()))))
        .collect()
}

/// A string field, or `None` for any other JSON value (what `Value::as_str` reads).
fn string_or_none<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    use serde::Deserialize;
    Ok(match Value::deserialize(deserializer)? {
        Value::String(s) => Some(s),
        _ => None,
    })
}

/// Karpenter's CRDs are not served at v1: say whether an older Karpenter is installed.
async fn no_karpenter(http: &Http) -> Error {
    let probe =
        Call::List { path: "/apis/karpenter.sh/v1beta1/nodepools".to_owned(), params: ListParams::default().limit(1) };
    let detail = match http.get(&probe).await {
        Ok(_) => " (this cluster serves only karpenter.sh/v1beta1: Karpenter 0.3x is installed; upgrade it to 1.x)"
            .to_owned(),
        Err(f) if f.code() == Some(403) => {
            " (karpenter.sh/v1beta1 exists but is forbidden: Karpenter 0.3x is probably installed; upgrade it to 1.x)"
                .to_owned()
        }
        Err(_) => " (the karpenter.sh CRDs are not installed)".to_owned(),
    };
    Error::NoKarpenter { detail }
}

fn cluster_error(kind: Kind, failure: &Failure, server: &str, args: &ClusterArgs) -> Error {
    let context = args.context.as_deref().map_or(String::new(), |c| format!("--context {c} "));
    let help = match failure {
        Failure::Status { code: 401, .. } => format!(
            "the API server at {server} rejected the credentials: refresh them (e.g. `aws eks update-kubeconfig`, \
             `gcloud container clusters get-credentials`, `kubelogin`) and check `kubectl {context}get nodes`"
        ),
        Failure::Timeout(after) => format!(
            "the API server at {server} did not answer within {}s: raise --request-timeout, or check \
             `kubectl {context}get --raw /readyz`",
            after.as_secs()
        ),
        Failure::Transport(_) => format!(
            "check that {server} is reachable and the kubeconfig is current: `kubectl {context}cluster-info`; \
             or replay a file with --snapshot"
        ),
        _ => format!("check `kubectl {context}get {} -A`; or replay a file with --snapshot", kind.resource()),
    };
    Error::Cluster { what: kind.resource(), message: format!("{server}: {failure}"), help }
}

/// Builds the client: kubeconfig (or in-cluster), our User-Agent, timeouts, no kube retries.
async fn connect(args: &ClusterArgs) -> Result<(Http, String), Error> {
    let options =
        KubeConfigOptions { context: args.context.clone(), cluster: args.cluster.clone(), user: args.user.clone() };
    let timeout = match args.request_timeout {
        Some(t) if t.is_zero() => None,
        Some(t) => Some(t),
        None => Some(DEFAULT_REQUEST_TIMEOUT),
    };
    let mut config = match read_kubeconfig(args)? {
        Some(mut kubeconfig) => {
            exec_credential::resolve(&mut kubeconfig, &options, timeout)?;
            kube::Config::from_custom_kubeconfig(kubeconfig, &options).await.map_err(|e| kubeconfig_error(&e, args))?
        }
        None => kube::Config::incluster().map_err(|e| Error::Kubeconfig {
            message: format!("no kubeconfig found and not running inside a cluster ({})", chain(&e)),
            help: "pass --kubeconfig PATH, set KUBECONFIG, or create ~/.kube/config (e.g. `aws eks update-kubeconfig`)"
                .to_owned(),
        })?,
    };
    config.read_timeout = timeout;
    config.reset_reader_on_write = true;
    if let Some(t) = timeout {
        config.connect_timeout = Some(config.connect_timeout.map_or(t, |c| c.min(t)));
        config.write_timeout = Some(config.write_timeout.map_or(t, |w| w.min(t)));
    }
    config.default_retry = false;
    if let (Ok(name), Ok(value)) = ("user-agent".parse(), USER_AGENT.parse()) {
        config.headers.push((name, value));
    }
    let server = config.cluster_url.to_string().trim_end_matches('/').to_owned();
    let client = kube::Client::try_from(config).map_err(|e| Error::Kubeconfig {
        message: format!("could not set up a client for {server}: {}", chain(&e)),
        help: "check the cluster's certificate-authority and the user's client certificate in the kubeconfig"
            .to_owned(),
    })?;
    Ok((Http { client, timeout }, server))
}

/// The merged kubeconfig: `--kubeconfig` (or `KUBECONFIG`), a colon-separated list as kubectl
/// reads it, else `~/.kube/config`; `None` when there is none (then in-cluster config applies).
fn read_kubeconfig(args: &ClusterArgs) -> Result<Option<Kubeconfig>, Error> {
    let listed: Vec<PathBuf> = match &args.kubeconfig {
        Some(path) => std::env::split_paths(path.as_os_str()).filter(|p| !p.as_os_str().is_empty()).collect(),
        None => std::env::var_os("KUBECONFIG")
            .map(|v| std::env::split_paths(&v).filter(|p| !p.as_os_str().is_empty()).collect())
            .unwrap_or_default(),
    };
    let paths = if listed.is_empty() {
        match default_kubeconfig() {
            Some(path) if path.exists() => vec![path],
            _ => return Ok(None),
        }
    } else if listed.len() > 1 {
        let existing: Vec<PathBuf> = listed.iter().filter(|p| p.exists()).cloned().collect();
        if existing.is_empty() {
            listed
        } else {
            existing
        }
    } else {
        listed
    };
    let mut merged: Option<Kubeconfig> = None;
    for path in &paths {
        let next = Kubeconfig::read_from(path).map_err(|e| Error::Kubeconfig {
            message: chain(&e),
            help: format!("check that `{}` exists and is a kubeconfig (`kubectl config view`)", path.display()),
        })?;
        merged = Some(match merged {
            Some(m) => m.merge(next).map_err(|e| Error::Kubeconfig {
                message: chain(&e),
                help: "the files listed in KUBECONFIG cannot be merged; pass one with --kubeconfig".to_owned(),
            })?,
            None => next,
        });
    }
    Ok(merged)
}

fn default_kubeconfig() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"))?;
    Some(PathBuf::from(home).join(".kube").join("config"))
}

fn kubeconfig_error(error: &KubeconfigError, args: &ClusterArgs) -> Error {
    let help = match error {
        KubeconfigError::CurrentContextNotSet => {
            "pass --context NAME, or pick one with `kubectl config use-context NAME`".to_owned()
        }
        KubeconfigError::LoadContext(name) => {
            format!("there is no context `{name}`: list them with `kubectl config get-contexts`")
        }
        KubeconfigError::LoadClusterOfContext(name) => {
            format!("there is no cluster `{name}`: list them with `kubectl config get-clusters`")
        }
        _ => match &args.context {
            Some(context) => format!("check `kubectl config view --minify --context {context}`"),
            None => "check `kubectl config view --minify`".to_owned(),
        },
    };
    Error::Kubeconfig { message: chain(error), help }
}

/// The listing's progress on stderr (indicatif's spinner: drawn only when stderr is a
/// terminal), only when asked, and only once the fetch has taken a second.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    started: Instant,
}

impl Progress {
    fn new(wanted: bool, started: Instant) -> Progress {
        let bar = wanted.then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::hidden());
            if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
                bar.set_style(style);
            }
            bar
        });
        Progress { bar, started }
    }

    fn show(&mut self, done: usize, total: usize, objects: usize) {
        let Some(bar) = &self.bar else { return };
        if self.started.elapsed() < PROGRESS_AFTER {
            return;
        }
        if bar.is_hidden() {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        bar.set_message(format!("reading the cluster: {done}/{total} lists, {objects} objects"));
        bar.tick();
    }

    fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::{context_namespace, jobs, ClusterArgs, Job, KINDS};
    use serde_json::json;

    #[test]
    fn lists_every_kind_of_the_input_contract_and_never_secrets() {
        let kinds: Vec<_> = KINDS.iter().map(|k| k.name).collect();
        for kind in
            ["Node", "Pod", "PodDisruptionBudget", "NodePool", "NodeClaim", "HorizontalPodAutoscaler", "CSINode"]
        {
            assert!(kinds.contains(&kind), "{kind}");
        }
        for job in jobs() {
            assert!(!["secrets", "configmaps"].contains(&job.kind.plural));
        }
    }

    #[test]
    fn rbac_rule_names_group_and_resource() {
        let pdb = KINDS.iter().find(|k| k.name == "PodDisruptionBudget").unwrap();
        assert_eq!(pdb.resource(), "poddisruptionbudgets.policy");
        assert_eq!(pdb.rbac_rule(), r#"{apiGroups: ["policy"], resources: ["poddisruptionbudgets"], verbs: ["list"]}"#);
        assert_eq!(KINDS[2].rbac_rule(), r#"{apiGroups: [""], resources: ["nodes"], verbs: ["list"]}"#);
    }

    #[test]
    fn event_jobs_keep_only_their_subject_and_pods_skip_terminal_ones() {
        let all = jobs();
        let node_events: &Job = all.iter().find(|j| j.subject == Some("Node")).unwrap();
        assert!(node_events.keeps(&json!({"involvedObject": {"kind": "Node"}})));
        assert!(!node_events.keeps(&json!({"involvedObject": {"kind": "Service"}})));
        let pods = all.iter().find(|j| j.kind.name == "Pod").unwrap();
        assert!(pods.keeps(&json!({"status": {"phase": "Running"}})));
        assert!(!pods.keeps(&json!({"status": {"phase": "Succeeded"}})));
    }

    #[test]
    fn context_namespace_reads_the_kubeconfig_without_network() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config");
        std::fs::write(
            &path,
            "apiVersion: v1\nkind: Config\ncurrent-context: a\nclusters:\n- name: c\n  cluster: {server: 'http://127.0.0.1:1'}\n\
             contexts:\n- name: a\n  context: {cluster: c, namespace: team-a}\n- name: b\n  context: {cluster: c}\nusers: []\n",
        )
        .unwrap();
        let missing = dir.path().join("missing");
        let list = std::env::join_paths([missing, path.clone()]).unwrap();
        let args = ClusterArgs { kubeconfig: Some(PathBuf::from(list)), ..ClusterArgs::default() };
        assert_eq!(context_namespace(&args).as_deref(), Some("team-a"));
        let args = ClusterArgs { kubeconfig: Some(path), context: Some("b".into()), ..ClusterArgs::default() };
        assert_eq!(context_namespace(&args), None);
    }
}
