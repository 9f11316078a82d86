//! EDGE IN: `diff -f FILE|DIR|-`, read as kubectl reads `-f`: a file, a directory's `.json`,
//! `.yaml` and `.yml` files in name order (not its subdirectories), or stdin for `-`; YAML or
//! JSON, several documents and `List`s. Objects are decoded by the snapshot's own decoder, so a
//! manifest and a snapshot cannot disagree on what a field means, and a bad field is located
//! (file:line:col). What the API server would refuse (`manifest::validate`) is refused here
//! with the same location.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::file::{locate, parse_documents};
use crate::error::Error;
use crate::manifest::{Manifest, Object, WorkloadKind};
use crate::snapshot::{DecodeError, Document, Snapshot, Workload};

/// The largest manifest file read (a manifest is hand-sized; a snapshot is not a manifest).
const MAX_MANIFEST_BYTES: u64 = 64 << 20;

/// Reads every `-f` path, in the order given.
pub(crate) fn read(paths: &[PathBuf]) -> Result<Vec<Manifest>, Error> {
    let mut manifests = Vec::new();
    for path in paths {
        for (name, text) in texts(path)? {
            manifests.push(parse(&text, &name)?);
        }
    }
    Ok(manifests)
}

/// The texts behind one `-f` argument, each with the name diagnostics use.
fn texts(path: &Path) -> Result<Vec<(String, String)>, Error> {
    let io = |source| Error::Io { path: path.to_owned(), source };
    if path.as_os_str() == "-" {
        return Ok(vec![("<stdin>".into(), read_limited(std::io::stdin().lock(), "<stdin>")?)]);
    }
    if path.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(io)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .filter(|p| p.extension().and_then(|e| e.to_str()).is_some_and(|e| matches!(e, "json" | "yaml" | "yml")))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(Error::Manifest {
                path: path.display().to_string(),
                message: "holds no .json, .yaml or .yml file".into(),
                help: "kubectl reads those extensions from a directory (not its subdirectories)".into(),
            });
        }
        return files.iter().map(|f| Ok((f.display().to_string(), read_file(f)?))).collect();
    }
    Ok(vec![(path.display().to_string(), read_file(path)?)])
}

fn read_file(path: &Path) -> Result<String, Error> {
    let file = std::fs::File::open(path).map_err(|source| Error::Io { path: path.to_owned(), source })?;
    read_limited(file, &path.display().to_string())
}

fn read_limited(reader: impl Read, name: &str) -> Result<String, Error> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_MANIFEST_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| Error::Io { path: PathBuf::from(name), source })?;
    if bytes.len() as u64 > MAX_MANIFEST_BYTES {
        return Err(Error::Manifest {
            path: name.to_owned(),
            message: format!("is larger than {} MiB", MAX_MANIFEST_BYTES >> 20),
            help: "pass the manifests the change applies, not a snapshot of the cluster".into(),
        });
    }
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        bytes.drain(..3);
    }
    String::from_utf8(bytes).map_err(|e| Error::Manifest {
        path: name.to_owned(),
        message: format!("is not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()),
        help: "Kubernetes manifests are UTF-8 YAML or JSON".into(),
    })
}

/// One file's text → its objects (pure: the tests call it on strings).
pub(crate) fn parse(text: &str, name: &str) -> Result<Manifest, Error> {
    let mut read = Vec::new();
    let mut ignored = Vec::new();
    let mut stack: Vec<Value> = parse_documents(text, name)?;
    stack.reverse();
    while let Some(document) = stack.pop() {
        if document.is_null() {
            continue;
        }
        let kind = document.get("kind").and_then(Value::as_str).unwrap_or_default().to_owned();
        if kind.ends_with("List") {
            if let Some(Value::Array(items)) = document.get("items") {
                stack.extend(items.iter().rev().cloned());
                continue;
            }
        }
        let api_version = document.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
        let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
        let read_kind = matches!(
            (group, kind.as_str()),
            ("karpenter.sh", "NodePool")
                | ("karpenter.k8s.aws", "EC2NodeClass")
                | ("policy", "PodDisruptionBudget")
                | ("apps", "Deployment" | "StatefulSet" | "ReplicaSet" | "DaemonSet")
                | ("", "Pod")
        );
        if read_kind {
            read.push(document);
        } else {
            ignored.push(object_id(&document, &kind));
        }
    }
    let decoded: Snapshot = Snapshot::from_documents(read.clone()).map_err(|e| locate(&e, text, name))?;
    let mut objects = Vec::new();
    objects.extend(decoded.node_classes.into_iter().map(|o| Object::NodeClass(Box::new(o))));
    objects.extend(decoded.node_pools.into_iter().map(|o| Object::NodePool(Box::new(o))));
    objects.extend(decoded.pdbs.into_iter().map(|o| Object::Pdb(Box::new(o))));
    objects.extend(decoded.pods.into_iter().map(|o| Object::Pod(Box::new(o))));
    // The decoder keeps only the controller settings of a workload's template; a manifest's
    // workloads keep all of it (their pods are made from it).
    for document in &read {
        let kind = document.get("kind").and_then(Value::as_str).and_then(WorkloadKind::of);
        if let Some(kind) = kind {
            let workload: Workload = serde_json::from_value(document.clone()).map_err(|e| {
                locate(
                    &DecodeError {
                        document: Document { index: 0, item_path: Vec::new() },
                        kind: kind.as_str().into(),
                        name: object_name(document),
                        field: String::new(),
                        message: e.to_string(),
                        help: "check the field's type against the Kubernetes API".into(),
                        offset: None,
                    },
                    text,
                    name,
                )
            })?;
            objects.push(Object::Workload { kind, workload: Box::new(workload) });
        }
    }
    let manifest = Manifest { file: name.to_owned(), objects, ignored };
    if let Some(invalid) = crate::manifest::validate::validate(&manifest).into_iter().next() {
        let error = DecodeError {
            document: Document { index: 0, item_path: Vec::new() },
            kind: invalid.kind.into(),
            name: invalid.name,
            field: invalid.field,
            message: invalid.message,
            help: invalid.help,
            offset: None,
        };
        return Err(locate(&error, text, name));
    }
    Ok(manifest)
}

fn object_name(document: &Value) -> String {
    let meta = document.get("metadata");
    let name = meta.and_then(|m| m.get("name")).and_then(Value::as_str).unwrap_or("<unnamed>");
    match meta.and_then(|m| m.get("namespace")).and_then(Value::as_str) {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_owned(),
    }
}

fn object_id(document: &Value, kind: &str) -> String {
    let kind = if kind.is_empty() { "<no kind>" } else { kind };
    format!("{kind}/{}", object_name(document))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PDB_BOTH: &str = "\
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
  namespace: shop
spec:
  minAvailable: 1
  maxUnavailable: 1
  selector:
    matchLabels: {app: web}
";

    #[test]
    fn a_refused_field_is_located_in_the_file() {
        let Err(Error::Object { path, line, field, .. }) = parse(PDB_BOTH, "pdbs/web.yaml") else { panic!("refused") };
        assert_eq!(path, "pdbs/web.yaml");
        assert_eq!(field, "spec.maxUnavailable");
        assert_eq!(line, 8, "the line of maxUnavailable");
    }

    #[test]
    fn kinds_the_replay_does_not_read_are_named_and_lists_are_flattened() {
        let text = "\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: shop}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: web, namespace: shop}
  spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
";
        let manifest = parse(text, "m.yaml").expect("valid");
        assert_eq!(manifest.ignored, ["Service/shop/web", "ConfigMap/settings"]);
        assert_eq!(manifest.objects.len(), 1);
        assert_eq!(manifest.objects[0].id(), "PodDisruptionBudget/shop/web");
    }

    #[test]
    fn a_workload_keeps_its_whole_template() {
        let text = "\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        resources: {requests: {cpu: 500m}}
";
        let manifest = parse(text, "d.yaml").expect("valid");
        let Object::Workload { workload, .. } = &manifest.objects[0] else { panic!("a workload") };
        assert_eq!(workload.spec.replicas, Some(3));
        assert_eq!(workload.spec.template.spec.containers.len(), 1, "the template's containers survive");
    }

    #[test]
    fn a_syntax_error_is_a_syntax_error() {
        assert!(matches!(parse("kind: [", "bad.yaml"), Err(Error::Syntax { .. })));
    }
}
