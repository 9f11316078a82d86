//! The `kubectl` commands a prescription prints, built once here so every command (`plan`,
//! `explain`, `forecast`, `pdb-audit`) quotes the same way: each word that is not plainly safe is
//! single-quoted for a POSIX shell (a `'` inside becomes `'\''`), and JSON payloads come from
//! `serde_json`, so they are always valid and always quoted.

use serde_json::{json, Value};

/// One word for a POSIX shell: as it is when every character is safe there, else single-quoted.
pub(crate) fn quote(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// `kubectl …` with every word quoted.
fn kubectl(words: &[&str]) -> String {
    let mut out = String::from("kubectl");
    for w in words {
        out.push(' ');
        out.push_str(&quote(w));
    }
    out
}

/// `kubectl patch KIND NAME [-n NS] --type=merge -p '{…}'`, on one line: the data carries the
/// command as a shell runs it; the text renderer may lay a long payload over several lines
/// (`render/impact.rs`).
pub(crate) fn merge_patch(kind: &str, namespace: Option<&str>, name: &str, payload: &Value) -> String {
    patch(kind, namespace, name, &serde_json::to_string(payload).unwrap_or_default())
}

fn patch(kind: &str, namespace: Option<&str>, name: &str, body: &str) -> String {
    match namespace {
        Some(ns) => kubectl(&["patch", kind, name, "-n", ns, "--type=merge", "-p", body]),
        None => kubectl(&["patch", kind, name, "--type=merge", "-p", body]),
    }
}

/// `kubectl patch KIND NAME -n NS --type=json -p '[…]'` (RFC 6902 operations).
pub(crate) fn json_patch(kind: &str, namespace: &str, name: &str, operations: &Value) -> String {
    let body = serde_json::to_string(operations).unwrap_or_default();
    kubectl(&["patch", kind, name, "-n", namespace, "--type=json", "-p", &body])
}

/// `kubectl scale deployment/NAME -n NS --replicas=N`.
pub(crate) fn scale(kind: &str, namespace: &str, name: &str, replicas: i32) -> String {
    kubectl(&["scale", &format!("{}/{name}", kind.to_lowercase()), "-n", namespace, &format!("--replicas={replicas}")])
}

/// `kubectl patch hpa NAME -n NS --type=merge -p '{"spec":{"minReplicas":N}}'`: an HPA would undo
/// a `kubectl scale` below its floor.
pub(crate) fn hpa_min_replicas(namespace: &str, hpa: &str, replicas: i32) -> String {
    merge_patch("hpa", Some(namespace), hpa, &json!({"spec": {"minReplicas": replicas}}))
}

/// `kubectl annotate pod NAME -n NS karpenter.sh/do-not-disrupt=true`.
pub(crate) fn annotate_do_not_disrupt(namespace: &str, pod: &str) -> String {
    kubectl(&["annotate", "pod", pod, "-n", namespace, &format!("{}=true", crate::engine::labels::DO_NOT_DISRUPT)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_stay_and_others_are_single_quoted() {
        assert_eq!(quote("app-b"), "app-b");
        assert_eq!(quote("--replicas=2"), "--replicas=2");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's;rm -rf /"), r"'it'\''s;rm -rf /'");
        assert_eq!(quote("$(id)"), "'$(id)'");
    }

    #[test]
    fn commands_quote_names_and_payloads() {
        assert_eq!(
            scale("Deployment", "tenant-a", "app-b", 2),
            "kubectl scale deployment/app-b -n tenant-a --replicas=2"
        );
        assert_eq!(
            merge_patch("nodepool", None, "default", &json!({"spec": {"disruption": {"consolidateAfter": "Never"}}})),
            r#"kubectl patch nodepool default --type=merge -p '{"spec":{"disruption":{"consolidateAfter":"Never"}}}'"#
        );
        assert_eq!(
            annotate_do_not_disrupt("ns", "web'1"),
            r"kubectl annotate pod 'web'\''1' -n ns karpenter.sh/do-not-disrupt=true"
        );
        assert_eq!(
            merge_patch("pdb", Some("ns"), "x", &json!({"a": "it's"})),
            r#"kubectl patch pdb x -n ns --type=merge -p '{"a":"it'\''s"}'"#
        );
    }
}
