//! Karpenter's own price table, read from its `/metrics` through the API server's proxy.
//!
//! Owns finding the controller (Deployment or pods labelled `app.kubernetes.io/name=karpenter`),
//! its metrics port and Service, and the scrape itself: first the Service proxy, then, when the
//! answer lacks the price series (the Service landed on the standby replica), the leader's pod
//! named by the `karpenter-leader-election` Lease. docs/PRICING.md §1 explains why. Only GETs; a
//! failure here is the caller's warning, never an error.

use serde_json::Value;

use super::http::{Call, Http};
use crate::source::prices::has_price_series;

/// The label every Karpenter chart puts on its Deployment, pods and Service.
pub(super) const NAME_LABEL: &str = "app.kubernetes.io/name";
/// The Service port name of the chart (`charts/karpenter/templates/service.yaml`).
const PORT_NAME: &str = "http-metrics";
/// `--metrics-port` default since v1.0.
const DEFAULT_PORT: i64 = 8080;
/// `LEADER_ELECTION_NAME` default.
const DEFAULT_LEASE: &str = "karpenter-leader-election";

/// Where the Karpenter controller runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Controller {
    pub(super) namespace: String,
    /// The Deployment's name, which the chart also gives the Service.
    pub(super) name: String,
    pub(super) port: i64,
    pub(super) lease: String,
    /// `app.kubernetes.io/version`, else the image tag.
    pub(super) version: Option<String>,
}

/// Whether a listed Deployment or pod carries Karpenter's name label, read from its text
/// without building its JSON tree (only such objects are kept for [`locate`]).
pub(super) fn is_karpenter_raw(item: &serde_json::value::RawValue) -> bool {
    #[derive(serde::Deserialize)]
    struct Meta {
        #[serde(default)]
        labels: Option<std::collections::HashMap<String, Value>>,
    }
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(default)]
        metadata: Option<Meta>,
    }
    match serde_json::from_str::<Probe>(item.get()) {
        Ok(probe) => probe
            .metadata
            .and_then(|m| m.labels)
            .is_some_and(|labels| labels.get(NAME_LABEL).and_then(Value::as_str) == Some("karpenter")),
        // An unexpected shape: let the JSON tree decide, as `locate` reads it.
        Err(_) => serde_json::from_str::<Value>(item.get()).is_ok_and(|v| {
            v.pointer("/metadata/labels")
                .and_then(|l| l.get(NAME_LABEL))
                .and_then(Value::as_str)
                .is_some_and(|n| n == "karpenter")
        }),
    }
}

/// Finds the controller among listed Deployments, else among listed pods.
pub(super) fn locate(deployments: &[Value], pods: &[Value]) -> Option<Controller> {
    let is_karpenter = |v: &&Value| {
        v.pointer("/metadata/labels")
            .and_then(|l| l.get(NAME_LABEL))
            .and_then(Value::as_str)
            .is_some_and(|n| n == "karpenter")
    };
    if let Some(deployment) = deployments.iter().find(is_karpenter) {
        let spec = deployment.pointer("/spec/template/spec").unwrap_or(&Value::Null);
        return Some(controller(deployment, spec, text(deployment, "/metadata/name")));
    }
    let pod = pods.iter().find(is_karpenter)?;
    let spec = pod.get("spec").unwrap_or(&Value::Null);
    Some(controller(pod, spec, "karpenter"))
}

fn controller(object: &Value, pod_spec: &Value, name: &str) -> Controller {
    let containers = pod_spec.get("containers").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let env = |key: &str| {
        containers
            .iter()
            .filter_map(|c| c.get("env").and_then(Value::as_array))
            .flatten()
            .find(|e| e.get("name").and_then(Value::as_str) == Some(key))
            .and_then(|e| e.get("value").and_then(Value::as_str))
            .map(str::to_owned)
    };
    let named_port = containers
        .iter()
        .filter_map(|c| c.get("ports").and_then(Value::as_array))
        .flatten()
        .find(|p| p.get("name").and_then(Value::as_str) == Some(PORT_NAME))
        .and_then(|p| p.get("containerPort").and_then(Value::as_i64));
    let port = named_port.or_else(|| env("METRICS_PORT").and_then(|p| p.trim().parse().ok())).unwrap_or(DEFAULT_PORT);
    let version = object
        .pointer("/metadata/labels")
        .and_then(|l| l.get("app.kubernetes.io/version"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| {
            let image = containers.first()?.get("image")?.as_str()?;
            let image = image.split('@').next()?;
            let (_, tag) = image.rsplit_once(':').filter(|(_, tag)| !tag.contains('/'))?;
            Some(tag.to_owned())
        })
        .map(|v| if v.starts_with('v') { v } else { format!("v{v}") });
    Controller {
        namespace: text(object, "/metadata/namespace").to_owned(),
        name: name.to_owned(),
        port,
        lease: env("LEADER_ELECTION_NAME").unwrap_or_else(|| DEFAULT_LEASE.to_owned()),
        version,
    }
}

/// Scrapes the metrics text that carries prices, or says why it could not.
pub(super) async fn scrape(http: &Http, controller: &Controller) -> Result<String, String> {
    let ns = &controller.namespace;
    let (service, port) = service(http, controller).await;
    let via_service = Call::Get {
        collection: format!("/api/v1/namespaces/{ns}/services/{service}:{port}/proxy"),
        name: "metrics".to_owned(),
    };
    let service_problem = match fetch_text(http, &via_service).await {
        Ok(text) if has_price_series(&text) => return Ok(text),
        Ok(_) => "the replica behind the Service has no price series".to_owned(),
        Err(e) => e,
    };
    let lease = Call::Get {
        collection: format!("/apis/coordination.k8s.io/v1/namespaces/{ns}/leases"),
        name: controller.lease.clone(),
    };
    let leader = match http.get_json(&lease).await {
        Ok(lease) => lease
            .pointer("/spec/holderIdentity")
            .and_then(Value::as_str)
            .and_then(|h| h.split('_').next())
            .filter(|p| !p.is_empty())
            .map(str::to_owned),
        Err(e) => return Err(format!("{service_problem}; lease {ns}/{}: {e}", controller.lease)),
    };
    let Some(pod) = leader else {
        return Err(format!("{service_problem}; lease {ns}/{} names no holder", controller.lease));
    };
    let via_pod = Call::Get {
        collection: format!("/api/v1/namespaces/{ns}/pods/{pod}:{}/proxy", controller.port),
        name: "metrics".to_owned(),
    };
    match fetch_text(http, &via_pod).await {
        Ok(text) if has_price_series(&text) => Ok(text),
        Ok(_) => Err(format!("{service_problem}; the leader pod {ns}/{pod} has no price series")),
        Err(e) => Err(format!("{service_problem}; leader pod {ns}/{pod}: {e}")),
    }
}

/// The Service and port to proxy to: the labelled Service's `http-metrics` port, else the
/// chart's naming (Service named like the Deployment).
async fn service(http: &Http, controller: &Controller) -> (String, String) {
    let fallback = (controller.name.clone(), PORT_NAME.to_owned());
    let call = Call::List {
        path: format!("/api/v1/namespaces/{}/services", controller.namespace),
        params: kube::core::params::ListParams::default().labels(&format!("{NAME_LABEL}=karpenter")),
    };
    let Ok(list) = http.get_json(&call).await else { return fallback };
    let services = list.get("items").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let ports = |s: &Value| s.pointer("/spec/ports").and_then(Value::as_array).cloned().unwrap_or_default();
    for service in services {
        let name = text(service, "/metadata/name");
        if let Some(port) = ports(service).iter().find(|p| p.get("name").and_then(Value::as_str) == Some(PORT_NAME)) {
            let port = port.get("name").and_then(Value::as_str).unwrap_or(PORT_NAME);
            return (name.to_owned(), port.to_owned());
        }
    }
    for service in services {
        if let Some(port) =
            ports(service).iter().find(|p| p.get("port").and_then(Value::as_i64) == Some(controller.port))
        {
            let port = port.get("port").and_then(Value::as_i64).unwrap_or(controller.port);
            return (text(service, "/metadata/name").to_owned(), port.to_string());
        }
    }
    fallback
}

async fn fetch_text(http: &Http, call: &Call) -> Result<String, String> {
    let body = http.get(call).await.map_err(|e| format!("GET {}: {e}", call.url()))?;
    String::from_utf8(body).map_err(|_| format!("GET {}: the answer is not text", call.url()))
}

fn text<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value.pointer(pointer).and_then(Value::as_str).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::locate;

    #[test]
    fn finds_controller_port_and_version_from_deployment() {
        let deployment = json!({
            "metadata": {"name": "karpenter", "namespace": "kube-system",
                         "labels": {"app.kubernetes.io/name": "karpenter", "app.kubernetes.io/version": "1.14.1"}},
            "spec": {"template": {"spec": {"containers": [{
                "name": "controller", "image": "public.ecr.aws/karpenter/controller:1.14.1@sha256:abc",
                "ports": [{"name": "http-metrics", "containerPort": 8000}],
                "env": [{"name": "LEADER_ELECTION_NAME", "value": "kl"}]}]}}}
        });
        let other = json!({"metadata": {"name": "web", "namespace": "a", "labels": {"app": "web"}}});
        let c = locate(&[other, deployment], &[]).unwrap();
        assert_eq!((c.namespace.as_str(), c.name.as_str(), c.port), ("kube-system", "karpenter", 8000));
        assert_eq!(c.lease, "kl");
        assert_eq!(c.version.as_deref(), Some("v1.14.1"));
    }

    #[test]
    fn falls_back_to_pods_and_defaults() {
        let pod = json!({"metadata": {"name": "karpenter-abc", "namespace": "karpenter",
                                      "labels": {"app.kubernetes.io/name": "karpenter"}},
                         "spec": {"containers": [{"name": "c", "image": "reg:5000/karpenter/controller:v0.37.0"}]}});
        let c = locate(&[], &[pod]).unwrap();
        assert_eq!((c.namespace.as_str(), c.name.as_str(), c.port), ("karpenter", "karpenter", 8080));
        assert_eq!(c.lease, "karpenter-leader-election");
        assert_eq!(c.version.as_deref(), Some("v0.37.0"));
        assert_eq!(locate(&[], &[]), None);
    }
}
