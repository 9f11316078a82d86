//! `doctor`: the replay held against what Karpenter itself emitted (its Events, NodeClaim
//! conditions, the `karpenter.sh/disrupted` taint and its disruption metrics), each finding
//! with both sides, the likely cause and what to check. The signals, their texts, versions and
//! the joins are docs/DOCTOR-SIGNALS.md's (§2–§9); the section each rule follows is cited.
//!
//! Pure: reads the snapshot and the replay, returns the document. No I/O, no formatting.

use jiff::{SignedDuration, Timestamp};

use crate::engine::nodepool::DisruptionReason;
use crate::engine::{Action, NodeVerdict, Replay, Verdict};
use crate::report::doctor::{Code, Doctor, Evidence, Finding, Likely, NotJudged, Summary};
use crate::report::views::Severity;
use crate::snapshot::{condition, is_true, DisruptionMetrics, Event, NodeClaim, Snapshot, API_VERSION};

const CORE: &str = "kubernetes-sigs/karpenter";
/// Karpenter's own suppression windows (DOCTOR-SIGNALS §1.2): how stale an Event may be and
/// still speak for Karpenter's opinion now, plus one poll.
const SLACK: SignedDuration = SignedDuration::from_secs(60);
/// `Unconsolidatable` and `NodeRepairBlocked` dedupe for 15 min; the rest for 2 min.
const LONG_DEDUPE: SignedDuration = SignedDuration::from_mins(15);
const DEDUPE: SignedDuration = SignedDuration::from_mins(2);
/// A command's `DisruptionTerminating` still describes it while the node is draining.
const TERMINATING_WINDOW: SignedDuration = SignedDuration::from_mins(30);
/// The queue fails a command after at most 1 h from 1.7.0, 10 min before (§9.4).
const RETRY_WINDOW: SignedDuration = SignedDuration::from_hours(1);
const RETRY_WINDOW_OLD: SignedDuration = SignedDuration::from_mins(10);

/// The `karpenter.sh/disrupted` taint the queue puts on a command's candidates.
const DISRUPTED_TAINT: &str = "karpenter.sh/disrupted";

/// Judges `snapshot` (as replayed in `replay` at `now`), narrowed to `node` when given.
pub(crate) fn doctor(snapshot: &Snapshot, replay: &Replay, now: Timestamp, node: Option<&str>) -> Doctor {
    let assumed = assumed_version(snapshot);
    let events_unread = unread(snapshot, "Event");
    let metrics_unread = match (unread(snapshot, crate::snapshot::DISRUPTION_METRICS), &snapshot.disruption_metrics) {
        (Some(reason), _) => Some(reason),
        (None, None) => Some("the snapshot carries no DisruptionMetrics document".to_owned()),
        (None, Some(_)) => None,
    };
    let empty = DisruptionMetrics::default();
    let metrics = snapshot.disruption_metrics.as_ref().unwrap_or(&empty);
    let j = Judge { snapshot, replay, now, metrics };

    let mut findings = Vec::new();
    if events_unread.is_none() {
        findings.extend(j.disagreements());
        findings.extend(j.stuck());
        findings.extend(j.involuntary());
    }
    findings.extend(j.flapping(events_unread.is_none()));
    findings.extend(j.budgets(events_unread.is_none(), metrics_unread.is_none()));
    if metrics_unread.is_none() {
        findings.extend(j.eligible());
        findings.extend(j.timeouts());
    }
    findings.extend(j.version(assumed));

    if let Some(name) = node {
        let pool = replay.nodes.iter().find(|n| n.name == name).and_then(|n| n.node_pool.clone());
        let claim = replay.nodes.iter().find(|n| n.name == name).and_then(|n| n.node_claim.clone());
        findings.retain(|f| match (&f.node, &f.node_pool) {
            (Some(n), _) => n == name || claim.as_ref() == Some(n),
            (None, Some(p)) => pool.as_ref() == Some(p),
            (None, None) => true,
        });
    }
    findings.sort_by(|a, b| {
        (std::cmp::Reverse(a.severity), a.code, &a.node, &a.node_pool).cmp(&(
            std::cmp::Reverse(b.severity),
            b.code,
            &b.node,
            &b.node_pool,
        ))
    });

    let mut could_not_judge = Vec::new();
    if let Some(reason) = events_unread {
        could_not_judge.push(NotJudged {
            signal: "events",
            reason,
            findings: vec![
                Code::StuckCommand,
                Code::Disagreement,
                Code::KarpenterActed,
                Code::ReplacementNotInitialized,
                Code::DrainBlocked,
                Code::ValidationRejected,
                Code::InvoluntaryDisruption,
                Code::ConsolidatableFlapping,
            ],
        });
    }
    if let Some(reason) = metrics_unread {
        could_not_judge.push(NotJudged {
            signal: "metrics",
            reason,
            findings: vec![Code::BudgetExhausted, Code::EligibleCountDiffers, Code::RoundTimeout],
        });
    }
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let parting = findings.iter().any(|f| {
        matches!(f.code, Code::Disagreement | Code::KarpenterActed | Code::VersionMismatch | Code::EligibleCountDiffers)
    });
    let agree = !parting && could_not_judge.is_empty();
    let events = snapshot.events.len();
    let series = metrics.samples.len();
    let line = if agree && findings.is_empty() {
        format!("Karpenter's events and metrics agree with the replay ({events} events, {series} metric series read)")
    } else if !could_not_judge.is_empty() && findings.is_empty() {
        let what: Vec<&str> = could_not_judge.iter().map(|n| n.signal).collect();
        format!("could not judge: {} not readable; no finding on what was read", what.join(" and "))
    } else {
        let mut line = format!(
            "{} finding{} ({} critical, {} warning, {} info) from {events} events and {series} metric series",
            findings.len(),
            if findings.len() == 1 { "" } else { "s" },
            count(Severity::Critical),
            count(Severity::Warning),
            count(Severity::Info)
        );
        if !could_not_judge.is_empty() {
            let what: Vec<&str> = could_not_judge.iter().map(|n| n.signal).collect();
            line.push_str(&format!("; could not judge what needs {}", what.join(" and ")));
        } else if agree {
            line.push_str("; no node where Karpenter and the replay part");
        }
        line
    };
    Doctor {
        api_version: API_VERSION,
        kind: "Doctor",
        captured_at: replay.captured_at,
        target: node.map(|n| format!("node/{n}")),
        summary: Summary {
            events,
            metric_series: series,
            critical: count(Severity::Critical),
            warning: count(Severity::Warning),
            info: count(Severity::Info),
            agree,
            line,
        },
        findings,
        could_not_judge,
    }
}

/// The Event reasons on which `doctor` finds Karpenter and the replay part (its `Disagreement`
/// and `KarpenterActed` findings), each with the cause judged most likely: what `explain`
/// shows beside the node's events.
pub(crate) fn parting_reasons(d: &Doctor) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for f in d.findings.iter().filter(|f| matches!(f.code, Code::Disagreement | Code::KarpenterActed)) {
        for e in f.karpenter.iter().filter(|e| e.signal == "event") {
            // `event_evidence` writes `Reason: message`; a reason has no `: ` in it.
            let Some((reason, _)) = e.text.split_once(": ") else { continue };
            if !out.iter().any(|(r, _)| r == reason) {
                out.push((reason.to_owned(), f.cause.clone()));
            }
        }
    }
    out
}

fn unread(snapshot: &Snapshot, kind: &str) -> Option<String> {
    snapshot.info.unread.iter().find(|u| u.kind == kind).map(|u| u.reason.clone())
}

/// The version the replay assumes (`settings.version`, else the snapshot's, else 1.14.0).
fn assumed_version(snapshot: &Snapshot) -> Version {
    let text = snapshot
        .info
        .settings
        .get(crate::snapshot::controller::VERSION)
        .map(|s| s.value.clone())
        .or_else(|| snapshot.info.karpenter_version.clone())
        .unwrap_or_else(|| "v1.14.0".to_owned());
    Version::parse(&text).unwrap_or(Version(1, 14, 0))
}

/// `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Version(u32, u32, u32);

impl Version {
    const MAX: Version = Version(u32::MAX, 0, 0);

    fn parse(text: &str) -> Option<Version> {
        let text = text.trim().trim_start_matches('v');
        let core = text.split(['-', '+']).next()?;
        let mut parts = core.split('.').map(|p| p.parse::<u32>().ok());
        Some(Version(parts.next()??, parts.next()??, parts.next().flatten().unwrap_or(0)))
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if *self == Version::MAX {
            f.write_str("latest")
        } else if self.2 == u32::MAX {
            write!(f, "{}.{}.x", self.0, self.1)
        } else {
            write!(f, "{}.{}.{}", self.0, self.1, self.2)
        }
    }
}

/// A client-go aggregate starts with this (§1.3); matchers strip it.
const COMBINED: &str = "(combined from similar events): ";

fn message(e: &Event) -> &str {
    e.message.strip_prefix(COMBINED).unwrap_or(&e.message)
}

fn object(e: &Event) -> String {
    let o = &e.involved_object;
    match &o.namespace {
        Some(ns) if o.kind == "Pod" => format!("Pod/{ns}/{}", o.name),
        _ => format!("{}/{}", o.kind, o.name),
    }
}

const CONDITIONS: &str = "kubernetes-sigs/karpenter pkg/apis/v1/nodeclaim_status.go";

fn event_evidence(e: &Event) -> Evidence {
    Evidence {
        signal: "event",
        object: object(e),
        text: format!("{}: {}", e.reason, message(e)),
        at: e.seen_at(),
        count: e.count,
        emitter: crate::event_emitter::of(&e.reason, message(e)),
    }
}

fn metric_evidence(name: &str, labels: &str, value: f64, emitter: &str) -> Evidence {
    Evidence {
        signal: "metric",
        object: name.to_owned(),
        text: format!("{labels} {value}"),
        at: None,
        count: None,
        emitter: format!("{CORE} {emitter}"),
    }
}

struct Judge<'a> {
    snapshot: &'a Snapshot,
    replay: &'a Replay,
    now: Timestamp,
    metrics: &'a DisruptionMetrics,
}

impl Judge<'_> {
    /// Events about the node or its NodeClaim.
    fn events_of<'e>(&'e self, v: &'e NodeVerdict) -> impl Iterator<Item = &'e Event> + 'e {
        self.snapshot.events.iter().filter(move |e| {
            let o = &e.involved_object;
            (o.kind == "Node" && o.name == v.name)
                || (o.kind == "NodeClaim" && v.node_claim.as_deref() == Some(&o.name))
        })
    }

    /// Whether an Event still speaks for Karpenter now (§9 "evidence window").
    fn in_window(&self, e: &Event, window: SignedDuration) -> bool {
        e.seen_at().is_some_and(|at| self.now.duration_since(at) <= window + SLACK)
    }

    fn claim(&self, name: Option<&str>) -> Option<&NodeClaim> {
        let name = name?;
        self.snapshot.node_claims.iter().find(|c| c.metadata.name == name)
    }

    /// §9.7: the replay acts where Karpenter says no, or the reverse.
    fn disagreements(&self) -> Vec<Finding> {
        let mut out: Vec<Finding> = Vec::new();
        let acted: Vec<&NodeVerdict> = self.replay.nodes.iter().filter(|v| v.action != Action::None).collect();
        for v in &self.replay.nodes {
            let acts = v.action != Action::None;
            // Node and NodeClaim copies of one call say the same: one finding carries both.
            let mut judged: Vec<((String, String), usize)> = Vec::new();
            for e in self.events_of(v) {
                // `Disrupting Node: …` / `Disrupting NodeClaim: …` are one call's two copies.
                let key = (e.reason.clone(), message(e).replacen("NodeClaim", "Node", 1));
                if let Some((_, i)) = judged.iter().find(|(k, _)| *k == key) {
                    if let Some(f) = out.get_mut(*i) {
                        f.karpenter.push(event_evidence(e));
                    }
                    continue;
                }
                let before = out.len();
                let claim = self.claim(v.node_claim.as_deref());
                match e.reason.as_str() {
                    "Unconsolidatable" | "DisruptionBlocked" if acts => {
                        let window = if e.reason == "Unconsolidatable" { LONG_DEDUPE } else { DEDUPE };
                        if !self.in_window(e, window) {
                            continue;
                        }
                        let (likely, cause, check) = self.cause_of_refusal(e, claim);
                        out.push(Finding {
                            code: Code::Disagreement,
                            severity: Severity::Warning,
                            node: Some(v.name.clone()),
                            node_pool: v.node_pool.clone(),
                            karpenter: vec![event_evidence(e)],
                            replay: replay_side(v),
                            likely: Some(likely),
                            cause,
                            check,
                        });
                    }
                    "ConsolidationRejected" if acts && self.in_window(e, DEDUPE) => out.push(Finding {
                        code: Code::ValidationRejected,
                        severity: Severity::Info,
                        node: Some(v.name.clone()),
                        node_pool: v.node_pool.clone(),
                        karpenter: vec![event_evidence(e)],
                        replay: replay_side(v),
                        likely: Some(Likely::Validation),
                        cause: format!(
                            "Karpenter computed the same kind of command and dropped it in the 15 s validation ({}): \
                             the cluster changed between compute and validation, not a disagreement",
                            rejection_word(message(e)).unwrap_or("reason not given")
                        ),
                        check: "pods that arrived or were nominated on the node in those 15 s (churn), the pool's \
                                budget (budget), or pending pods (scheduling)"
                            .to_owned(),
                    }),
                    // A node already in Karpenter's queue or deleting is where its command went.
                    "DisruptionTerminating" | "ConsolidationCandidate" if !acts && !in_flight(v) => {
                        let window = if e.reason == "DisruptionTerminating" { TERMINATING_WINDOW } else { DEDUPE };
                        if !self.in_window(e, window) {
                            continue;
                        }
                        let word = method_word(message(e));
                        // The node the replay acts on instead: from its verdict, or (in a replay
                        // focused on one node, as `explain`'s) from the round's commands.
                        let other: Option<(String, String)> = acted
                            .iter()
                            .find(|a| word.is_none_or(|w| a.reason.is_some_and(|r| r.as_str() == w)))
                            .map(|o| (o.name.clone(), replay_side(o)))
                            .or_else(|| {
                                self.replay
                                    .commands
                                    .iter()
                                    .filter(|c| word.is_none_or(|w| c.reason.as_str() == w))
                                    .filter(|c| !c.candidates.contains(&v.name))
                                    .find_map(|c| {
                                        let name = c.candidates.first()?;
                                        Some((name.clone(), format!("{} ({})", c.decision.as_str(), c.reason.as_str())))
                                    })
                            });
                        let mut likely = match (&other, word) {
                            (Some(_), _) => Likely::CandidateOrder,
                            (None, Some(_)) => Likely::Gate,
                            (None, None) => Likely::CannotTell,
                        };
                        let cause = match &other {
                            Some((name, side)) => format!(
                                "candidate order or budget: the replay acts on {name} instead ({side}); Karpenter runs \
                                 one method per loop and, for single-node consolidation, the first valid candidate in \
                                 its order"
                            ),
                            None => match word {
                                Some(w) => format!(
                                    "the replay's {w} gate differs from Karpenter's for this node: {}",
                                    first_blocker(v)
                                ),
                                None => format!(
                                    "cannot tell: the event names no method; the replay says {}",
                                    first_blocker(v)
                                ),
                            },
                        };
                        let cause = match Self::changed_since(e, claim) {
                            Some(changed) => {
                                likely = Likely::StateChanged;
                                format!("{changed}; otherwise {cause}")
                            }
                            None => cause,
                        };
                        out.push(Finding {
                            code: Code::KarpenterActed,
                            severity: Severity::Warning,
                            node: Some(v.name.clone()),
                            node_pool: v.node_pool.clone(),
                            karpenter: vec![event_evidence(e)],
                            replay: replay_side(v),
                            likely: Some(likely),
                            cause,
                            check: format!(
                                "`kubectl consolidation explain node/{}` for the replay's steps; the NodePool's \
                                 budgets and consolidateAfter; the Karpenter version assumed",
                                v.name
                            ),
                        });
                    }
                    _ => {}
                }
                if out.len() > before {
                    judged.push((key, before));
                }
            }
        }
        out
    }

    /// Why Karpenter's `Unconsolidatable`/`DisruptionBlocked` text and the replay's action part.
    fn cause_of_refusal(&self, e: &Event, claim: Option<&NodeClaim>) -> (Likely, String, String) {
        let text = message(e);
        if let Some(changed) = Self::changed_since(e, claim) {
            return (
                Likely::StateChanged,
                changed,
                "replay a fresh snapshot; the pods bound to or deleted from the node since the event".to_owned(),
            );
        }
        let price_source = self.snapshot.info.price_source.as_deref().unwrap_or("the snapshot's catalogue");
        if text.starts_with("Can't replace with a cheaper node") {
            let cause = if price_source == "metrics" {
                "cannot tell from prices (the replay used Karpenter's own price metric): in 1.14 busy nodes under \
                 consolidateAfter are no destinations (#3006), which the replay's delete may rely on"
                    .to_owned()
            } else {
                format!(
                    "a price that differs from Karpenter's: the replay's prices come from {price_source}, not \
                     karpenter_cloudprovider_instance_type_offering_price_estimate"
                )
            };
            return (if price_source == "metrics" { Likely::CannotTell } else { Likely::Price }, cause, "karpenter_cloudprovider_instance_type_offering_price_estimate for the node's type and its replacement; NodeOverlays".to_owned());
        }
        // `pretty.Sentence` capitalises it from 1.2.0; 1.0–1.1 publish the scheduler's
        // lower-case `not all pods would schedule, …` (provisioning/scheduling/scheduler.go).
        if text.get(..27).is_some_and(|p| p.eq_ignore_ascii_case("not all pods would schedule")) {
            return (
                Likely::Simulation,
                "the scheduling simulation differs: Karpenter names the pod and its error".to_owned(),
                "the pod named in the event: topology spread, volumes, DRA (IGNORE_DRA_REQUESTS), host ports"
                    .to_owned(),
            );
        }
        if text.starts_with("Can't remove without creating") {
            return (
                Likely::BinPacking,
                "bin packing differs: Karpenter needed more than one replacement".to_owned(),
                "the node's pods' requests and the instance types offered to the pool".to_owned(),
            );
        }
        if text.contains("SpotToSpotConsolidation") || text.contains("minValues") {
            return (
                Likely::Setting,
                "a feature gate or minValues setting differs from the one assumed".to_owned(),
                "FEATURE_GATES and MIN_VALUES_POLICY on the Karpenter Deployment".to_owned(),
            );
        }
        if text.ends_with("has buffer pods") {
            // v1.14.0+ `emptiness.go`: the provisioner's last pass put capacity buffers' virtual
            // pods on the node; the replay runs its own pass (`method/emptiness.rs` `buffer_hosts`).
            return (
                Likely::Setting,
                "Karpenter's provisioner put CapacityBuffer virtual pods on this node; the replay's own provisioning \
                 pass did not (the CapacityBuffer gate is off in the replay, or the buffers have changed since)"
                    .to_owned(),
                "FEATURE_GATES (CapacityBuffer) on the Karpenter Deployment, and the CapacityBuffers' status.replicas"
                    .to_owned(),
            );
        }
        if text.contains("nominated for a pending pod") {
            return (
                Likely::Nomination,
                "a nomination the snapshot cannot see: Karpenter keeps it in memory for pending pods".to_owned(),
                "pending pods and their Nominated events".to_owned(),
            );
        }
        if e.reason == "DisruptionBlocked" {
            return (
                Likely::Gate,
                "a gate the replay does not see in this snapshot (state skew, or the annotation/PDB semantics of \
                 the running version)"
                    .to_owned(),
                "the object the message names (PDB, pod annotation, node state) as it is now".to_owned(),
            );
        }
        (
            Likely::CannotTell,
            "cannot tell: the text names a pool setting or label the snapshot and Karpenter see differently, or \
             another version's rule"
                .to_owned(),
            "the NodePool spec and node labels, and the version findings".to_owned(),
        )
    }

    /// §9 evidence window: a pod event on the NodeClaim after the Event makes it history.
    fn changed_since(e: &Event, claim: Option<&NodeClaim>) -> Option<String> {
        let at = e.seen_at()?;
        let pod_event = claim?.status.last_pod_event_time?;
        (pod_event > at).then(|| {
            format!(
                "state changed since the event: the NodeClaim's lastPodEventTime {pod_event} is after the event's \
                 {at}, so Karpenter has not judged this state yet"
            )
        })
    }

    /// §9.4: commands and NodeClaims that should have finished.
    fn stuck(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        let old_queue = self.version_of_snapshot() < Version(1, 7, 0);
        let limit = if old_queue { RETRY_WINDOW_OLD } else { RETRY_WINDOW };
        for claim in &self.snapshot.node_claims {
            let node_name = claim.status.node_name.clone();
            let node = node_name.as_deref().and_then(|n| self.snapshot.nodes.iter().find(|x| x.metadata.name == n));
            let tainted = node.is_some_and(|n| n.spec.taints.iter().any(|t| t.key == DISRUPTED_TAINT));
            let marked = condition(&claim.status.conditions, "DisruptionReason").filter(|c| c.status == "True");
            if claim.metadata.deletion_timestamp.is_none() {
                if let Some(c) = marked {
                    let since = c.last_transition_time;
                    let age = since.map(|t| self.now.duration_since(t));
                    if age.is_some_and(|a| a > limit) {
                        let mut karpenter = vec![Evidence {
                            signal: "condition",
                            object: format!("NodeClaim/{}", claim.metadata.name),
                            text: format!(
                                "DisruptionReason=True (reason: {})",
                                c.reason.as_deref().unwrap_or_default()
                            ),
                            at: since,
                            count: None,
                            emitter:
                                "kubernetes-sigs/karpenter pkg/controllers/disruption/queue.go Queue.markDisrupted"
                                    .to_owned(),
                        }];
                        if tainted {
                            karpenter.push(Evidence {
                                signal: "taint",
                                object: format!("Node/{}", node_name.clone().unwrap_or_default()),
                                text: format!("{DISRUPTED_TAINT}:NoSchedule"),
                                at: None,
                                count: None,
                                emitter:
                                    "kubernetes-sigs/karpenter pkg/controllers/disruption/queue.go Queue.markDisrupted"
                                        .to_owned(),
                            });
                        }
                        out.push(Finding {
                            code: Code::StuckCommand,
                            severity: Severity::Critical,
                            node: node_name.clone().or_else(|| Some(claim.metadata.name.clone())),
                            node_pool: claim.metadata.labels.get("karpenter.sh/nodepool").cloned(),
                            karpenter,
                            replay:
                                "the replay counts the node as in flight: no candidate, consuming its pool's budget"
                                    .to_owned(),
                            likely: None,
                            cause: format!(
                                "a command has held this node for {} (more than the queue's {} retry window): \
                                 Karpenter should have failed it and removed the taint and condition",
                                human(age.unwrap_or_default()),
                                human(limit)
                            ),
                            check: "Karpenter's logs for `disrupting node(s)` and `failed terminating nodes`; \
                                    karpenter_cluster_state_synced; a controller restart"
                                .to_owned(),
                        });
                    }
                }
            }
            // A replacement the queue waits on (§9.4 "replacement not ready").
            let launched_for = self.snapshot.events.iter().find(|e| {
                e.involved_object.kind == "NodeClaim"
                    && e.involved_object.name == claim.metadata.name
                    && matches!(e.reason.as_str(), "DisruptionLaunching" | "DisruptionWaitingReadiness")
            });
            if let Some(e) = launched_for {
                if !is_true(&claim.status.conditions, "Initialized") {
                    // The first lifecycle step that is not done is the cause.
                    let why = ["Launched", "Registered", "Initialized"]
                        .iter()
                        .find_map(|t| condition(&claim.status.conditions, t).filter(|c| c.status != "True"))
                        .map_or_else(
                            || "Initialized not reported".to_owned(),
                            |c| {
                                format!(
                                    "{}={} ({}: {})",
                                    c.type_,
                                    c.status,
                                    c.reason.as_deref().unwrap_or_default(),
                                    c.message.as_deref().unwrap_or_default()
                                )
                            },
                        );
                    out.push(Finding {
                        code: Code::ReplacementNotInitialized,
                        severity: Severity::Warning,
                        node: Some(claim.metadata.name.clone()),
                        node_pool: claim.metadata.labels.get("karpenter.sh/nodepool").cloned(),
                        karpenter: vec![
                            event_evidence(e),
                            Evidence {
                                signal: "condition",
                                object: format!("NodeClaim/{}", claim.metadata.name),
                                text: why.clone(),
                                at: None,
                                count: None,
                                emitter: CONDITIONS.to_owned(),
                            },
                        ],
                        replay: "the replay does not model commands in flight beyond their nodes' state".to_owned(),
                        likely: None,
                        cause: format!(
                            "the replacement Karpenter launched for a command is not initialized ({why}); the command \
                             waits, then fails at the queue's retry window and releases its candidates"
                        ),
                        check: format!(
                            "`kubectl describe nodeclaim {}`: startup taints, node readiness, registration; \
                             karpenter_voluntary_disruption_queue_failures_total",
                            claim.metadata.name
                        ),
                    });
                }
            }
        }
        // FailedDraining repeating (§3, §9.4).
        for e in self.snapshot.events.iter().filter(|e| e.reason == "FailedDraining" && e.count.unwrap_or(1) >= 2) {
            let pod = message(e).rsplit_once("(Pod=").map(|(_, p)| p.trim_end_matches(')').to_owned());
            out.push(Finding {
                code: Code::DrainBlocked,
                severity: Severity::Warning,
                node: Some(e.involved_object.name.clone()),
                node_pool: None,
                karpenter: vec![event_evidence(e)],
                replay: "a node being drained is in flight for the replay".to_owned(),
                likely: None,
                cause: match &pod {
                    // terminator/eviction.go Queue.Reconcile (1.7.0+): a pod under two PDBs
                    // cannot be evicted at all, whatever the PDBs allow.
                    Some(p) if message(e).contains("multiple PDBs") => format!(
                        "the drain is refused for pod {p}: more than one PDB selects it, and the eviction API \
                         refuses such pods"
                    ),
                    Some(p) => format!("the drain is refused for pod {p} (a PDB allows no eviction)"),
                    None => "pods are still waiting to be evicted (PDBs or do-not-disrupt pods)".to_owned(),
                },
                check: "`kubectl consolidation pdb-audit -A`; the node's NodeClaim terminationGracePeriod \
                        (TerminationGracePeriodExpiring says when pods will be deleted)"
                    .to_owned(),
            });
        }
        out
    }

    /// §9.6: pod churn restarted a node's `consolidateAfter` after Karpenter had found it
    /// consolidatable. `Consolidation.Reconcile` (nodeclaim/disruption/consolidation.go)
    /// removes the `Consolidatable` condition while `IsUnderConsolidateAfter` holds, i.e. until
    /// `consolidateAfter` has passed since `status.lastPodEventTime`, and sets it again after:
    /// the condition is never False, so one snapshot shows a flap as the node back under its
    /// window (a pod event now) with evidence that it was consolidatable before that pod event:
    /// the condition itself still True from before it (not reconciled yet), or an Event only a
    /// node past the `Consolidatable` filter gets. From v1.14.0 the same window also makes the
    /// node no destination for other candidates' pods (#3006, scheduler.go
    /// `calculateExistingNodeClaims`), which the replay applies by its rule set.
    fn flapping(&self, events: bool) -> Vec<Finding> {
        use crate::engine::candidate::{consolidate_after, is_under_consolidate_after};
        use crate::rules::{row, Rule};
        let rules = &self.snapshot.info.rules;
        let destination_rule = rules.has(Rule::DestinationConsolidateAfter);
        let mut out = Vec::new();
        for claim in self.snapshot.node_claims.iter().filter(|c| c.metadata.deletion_timestamp.is_none()) {
            let Some(pool_name) = claim.metadata.labels.get("karpenter.sh/nodepool") else { continue };
            let Some(pool) = self.snapshot.node_pools.iter().find(|p| &p.metadata.name == pool_name) else { continue };
            // `Never` keeps the condition away for good; `0s` has no window to restart.
            let Some(after) = consolidate_after(pool).filter(|a| !a.is_zero()) else { continue };
            // Only a pod event restarts the window (the Initialized fallback is the first one).
            let Some(pod_event) = claim.status.last_pod_event_time else { continue };
            let Some(left) = is_under_consolidate_after(pool, claim, self.now) else { continue };
            let node = claim.status.node_name.clone().unwrap_or_else(|| claim.metadata.name.clone());
            let mut karpenter = Vec::new();
            if let Some(c) = condition(&claim.status.conditions, "Consolidatable").filter(|c| c.status == "True") {
                if let Some(set) = c.last_transition_time.filter(|t| *t < pod_event) {
                    karpenter.push(Evidence {
                        signal: "condition",
                        object: format!("NodeClaim/{}", claim.metadata.name),
                        text: format!(
                            "Consolidatable=True since {set}, before the pod event at {pod_event}: removed at the \
                             NodeClaim's next reconcile"
                        ),
                        at: Some(set),
                        count: None,
                        emitter: format!("{CORE} {} {}", CONSOLIDATABLE.path, CONSOLIDATABLE.function),
                    });
                }
            }
            if events {
                let mut reasons: Vec<&str> = Vec::new();
                let mut about: Vec<&Event> = self
                    .snapshot
                    .events
                    .iter()
                    .filter(|e| {
                        let o = &e.involved_object;
                        (o.kind == "Node" && o.name == node) || (o.kind == "NodeClaim" && o.name == claim.metadata.name)
                    })
                    .filter(|e| was_consolidatable(e))
                    .collect();
                // One copy per reason: the newest before the pod event, the Node's on a tie (the
                // NodeClaim's says the same).
                about.sort_by_key(|e| (std::cmp::Reverse(e.seen_at()), e.involved_object.kind != "Node"));
                for e in about {
                    // A rejection is published after the 15 s validation wait: the node was
                    // judged consolidatable 15 s before it.
                    let judged =
                        e.seen_at().map(|t| if e.reason == "ConsolidationRejected" { t - VALIDATION_WAIT } else { t });
                    if judged.is_some_and(|t| t <= pod_event) && !reasons.contains(&e.reason.as_str()) {
                        reasons.push(&e.reason);
                        karpenter.push(event_evidence(e));
                    }
                }
            }
            if karpenter.is_empty() {
                continue;
            }
            let again = pod_event + after;
            karpenter.push(Evidence {
                signal: "status",
                object: format!("NodeClaim/{}", claim.metadata.name),
                text: format!(
                    "lastPodEventTime {pod_event}: consolidateAfter {} restarts, Consolidatable again at {again} \
                     unless another pod event comes first",
                    human(after)
                ),
                at: Some(pod_event),
                count: None,
                emitter: format!("{CORE} pkg/controllers/nodeclaim/podevents/controller.go Controller.Reconcile"),
            });
            let cite = row(Rule::DestinationConsolidateAfter).cite();
            let replay = if destination_rule {
                format!(
                    "not a candidate for {} more (NotConsolidatableYet), and no destination for other candidates' \
                     pods until {again} by the {cite}",
                    human(left)
                )
            } else {
                format!(
                    "not a candidate for {} more (NotConsolidatableYet); still a destination for other candidates' \
                     pods: the replay runs the rules of {}, before the {cite}",
                    human(left),
                    rules.version
                )
            };
            let destinations = if destination_rule {
                "; and while under the window it takes no moved pods, so another node's delete that needs its room \
                 becomes a replace or `Can't replace with a cheaper node`"
            } else {
                ""
            };
            out.push(Finding {
                code: Code::ConsolidatableFlapping,
                severity: if destination_rule { Severity::Warning } else { Severity::Info },
                node: Some(node.clone()),
                node_pool: Some(pool_name.clone()),
                karpenter,
                replay,
                likely: None,
                cause: format!(
                    "pod churn: a pod was bound to or left the node at {pod_event}, after Karpenter had found it \
                     consolidatable; each such pod event restarts consolidateAfter ({}), so the node is a candidate \
                     only in the quiet windows between them{destinations}. Which pods: cannot tell \
                     (lastPodEventTime names none; DaemonSet pods never move it)",
                    human(after)
                ),
                check: format!(
                    "the pods created or deleted on node/{node} around {pod_event} (Jobs, restarts, a rollout); \
                     nodepool/{pool_name}'s consolidateAfter against that churn; `kubectl consolidation explain \
                     node/{node}`"
                ),
            });
        }
        out
    }

    fn version_of_snapshot(&self) -> Version {
        assumed_version(self.snapshot)
    }

    /// §9.8: interruption and forceful termination named as such.
    fn involuntary(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        for e in &self.snapshot.events {
            if !crate::event_emitter::INTERRUPTION.contains(&e.reason.as_str())
                || e.reason == "SpotRebalanceRecommendation"
            {
                continue;
            }
            let name = e.involved_object.name.clone();
            // A NodeClaim's copy joins its Node's finding.
            let node = if e.involved_object.kind == "NodeClaim" {
                self.snapshot
                    .node_claims
                    .iter()
                    .find(|c| c.metadata.name == name)
                    .and_then(|c| c.status.node_name.clone())
                    .unwrap_or(name)
            } else {
                name
            };
            if let Some(f) = out.iter_mut().find(|f: &&mut Finding| f.node.as_deref() == Some(&node)) {
                f.karpenter.push(event_evidence(e));
                continue;
            }
            if seen.contains(&node) {
                continue;
            }
            seen.push(node.clone());
            let verdict = self.replay.nodes.iter().find(|v| v.name == node);
            out.push(Finding {
                code: Code::InvoluntaryDisruption,
                severity: Severity::Info,
                node: Some(node),
                node_pool: verdict.and_then(|v| v.node_pool.clone()),
                karpenter: vec![event_evidence(e)],
                replay: verdict.map_or_else(|| "the node is no longer in the snapshot".to_owned(), replay_side),
                likely: None,
                cause: "interruption by the cloud provider: the interruption controller deletes the NodeClaim \
                        directly (no budget, no DisruptionReason, pods evicted as `Forceful Termination`); not a \
                        consolidation verdict"
                    .to_owned(),
                check: "karpenter_nodeclaims_disrupted_total by reason; the spot capacity of the pool's \
                        instance types"
                    .to_owned(),
            });
        }
        for s in self.metrics.series("karpenter_nodeclaims_disrupted_total") {
            let reason = s.label("reason");
            let voluntary = ["underutilized", "empty", "drifted", "Underutilized", "Empty", "Drifted"];
            if voluntary.contains(&reason) || s.value <= 0.0 {
                continue;
            }
            let pool = s.label("nodepool").to_owned();
            if out.iter().any(|f| f.node.is_none() && f.node_pool.as_deref() == Some(&pool)) {
                let f = out.iter_mut().find(|f| f.node.is_none() && f.node_pool.as_deref() == Some(&pool));
                if let Some(f) = f {
                    f.karpenter.push(metric_evidence(
                        &s.name,
                        &labels(s),
                        s.value,
                        "pkg/metrics/metrics.go NodeClaimsDisruptedTotal",
                    ));
                }
                continue;
            }
            out.push(Finding {
                code: Code::InvoluntaryDisruption,
                severity: Severity::Info,
                node: None,
                node_pool: Some(pool),
                karpenter: vec![metric_evidence(
                    &s.name,
                    &labels(s),
                    s.value,
                    "pkg/metrics/metrics.go NodeClaimsDisruptedTotal",
                )],
                replay: "the replay judges voluntary disruption only".to_owned(),
                likely: None,
                cause: format!(
                    "NodeClaims of this pool were removed involuntarily ({}) since the controller started: \
                     expiration, repair, interruption, garbage collection or failed launches, not consolidation",
                    involuntary_reasons(self.metrics, s.label("nodepool"))
                ),
                check: "the reasons above; events of the removed nodes are gone after the event TTL".to_owned(),
            });
        }
        out
    }

    /// §9.3: a budget used up now, and which nodes consume it: one finding per pool, naming
    /// every reason whose budget is used up.
    fn budgets(&self, events: bool, metrics: bool) -> Vec<Finding> {
        let mut out = Vec::new();
        for (pool, budgets) in &self.replay.budgets {
            let mut karpenter = Vec::new();
            let mut reasons: Vec<DisruptionReason> = Vec::new();
            for reason in DisruptionReason::ALL {
                let r = reason.as_str();
                let mut exhausted = false;
                if metrics {
                    let metrics = self.metrics;
                    let value = |name: &'static str| {
                        metrics
                            .series(name)
                            .find(|s| s.label("nodepool") == pool && s.label("reason").eq_ignore_ascii_case(r))
                    };
                    let allowed = value("karpenter_nodepools_allowed_disruptions");
                    let consuming = value("karpenter_nodepools_nodes_consuming_budgets");
                    if let Some(a) = allowed {
                        let effective = (a.value - consuming.map_or(0.0, |c| c.value)).max(0.0);
                        if effective == 0.0 {
                            exhausted = true;
                            let emitter = "pkg/controllers/disruption/helpers.go BuildDisruptionBudgetMapping";
                            for s in [Some(a), consuming].into_iter().flatten() {
                                karpenter.push(metric_evidence(&s.name, &labels(s), s.value, emitter));
                            }
                        }
                    }
                }
                if events {
                    let text = format!("No allowed disruptions for disruption reason {r} due to blocking budget");
                    let event = self.snapshot.events.iter().find(|e| {
                        e.involved_object.kind == "NodePool"
                            && &e.involved_object.name == pool
                            && e.reason == "DisruptionBlocked"
                            && message(e) == text
                    });
                    if let Some(e) = event.filter(|e| self.in_window(e, DEDUPE)) {
                        exhausted = true;
                        karpenter.push(event_evidence(e));
                    }
                }
                if exhausted {
                    reasons.push(reason);
                }
            }
            if reasons.is_empty() {
                continue;
            }
            let consumers =
                if budgets.disrupting.is_empty() { "none".to_owned() } else { budgets.disrupting.join(", ") };
            let sides: Vec<String> = reasons
                .iter()
                .map(|reason| match budgets.for_reason(*reason) {
                    Some(b) => format!("{} allowed {}, {} remaining", reason.as_str(), b.allowed, b.remaining),
                    None => format!("{} unlimited", reason.as_str()),
                })
                .collect();
            let replay = format!(
                "{} of {} counted nodes; consuming the budget: {consumers}",
                sides.join("; "),
                budgets.counted_nodes
            );
            let differs: Vec<&str> = reasons
                .iter()
                .filter(|r| budgets.for_reason(**r).is_none_or(|b| b.remaining > 0))
                .map(|r| r.as_str())
                .collect();
            let cause = if differs.is_empty() {
                "the budget is used up now, and the replay agrees".to_owned()
            } else {
                format!(
                    "Karpenter's budget for {} is used up but the replay's is not: the counted nodes differ \
                     (uninitialized or terminating nodes), a schedule window boundary, or the snapshot is older than \
                     the gauge",
                    differs.join(", ")
                )
            };
            let names: Vec<&str> = reasons.iter().map(|r| r.as_str()).collect();
            out.push(Finding {
                code: Code::BudgetExhausted,
                severity: Severity::Warning,
                node: None,
                node_pool: Some(pool.clone()),
                karpenter,
                replay,
                likely: None,
                cause: format!("{} ({})", cause, names.join(", ")),
                check: format!(
                    "`kubectl consolidation budgets nodepool/{pool}`: the schedules and the nodes in flight"
                ),
            });
        }
        out
    }

    /// §9.5: Karpenter's eligible count per method against the replay's.
    fn eligible(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        for s in self.metrics.series("karpenter_voluntary_disruption_eligible_nodes") {
            let Some(reason) =
                DisruptionReason::ALL.into_iter().find(|r| r.as_str().eq_ignore_ascii_case(s.label("reason")))
            else {
                continue;
            };
            let ours: Vec<&NodeVerdict> = self.replay.nodes.iter().filter(|v| eligible_for(v, reason)).collect();
            let theirs = s.value.round() as usize;
            if theirs == ours.len() {
                continue;
            }
            let names: Vec<&str> = ours.iter().map(|v| v.name.as_str()).collect();
            out.push(Finding {
                code: Code::EligibleCountDiffers,
                severity: Severity::Info,
                node: None,
                node_pool: None,
                karpenter: vec![metric_evidence(
                    &s.name,
                    &labels(s),
                    s.value,
                    "pkg/controllers/disruption/controller.go Controller.disrupt (EligibleNodes)",
                )],
                replay: format!(
                    "{} nodes are {} candidates{}",
                    ours.len(),
                    reason.as_str(),
                    if names.is_empty() { String::new() } else { format!(": {}", names.join(", ")) }
                ),
                likely: None,
                cause: "cannot tell which nodes from one scrape: the gauge is a count, written when the method last \
                        ran; the candidate filters differ (version gate, setting, the Consolidatable condition, \
                        nominations) or the snapshot is not the state the gauge saw"
                    .to_owned(),
                check: "scrape again a round later; per-node DisruptionBlocked/Unconsolidatable events; \
                        `kubectl consolidation plan` for the replay's candidates"
                    .to_owned(),
            });
        }
        out
    }

    /// §9.2: a pass stopped at its deadline.
    fn timeouts(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        for s in self.metrics.series("karpenter_voluntary_disruption_consolidation_timeouts_total") {
            if s.value <= 0.0 {
                continue;
            }
            let single = s.label("consolidation_type") == "single";
            let order: Vec<&str> = self
                .replay
                .nodes
                .iter()
                .filter(|v| eligible_for(v, DisruptionReason::Underutilized))
                .map(|v| v.name.as_str())
                .collect();
            out.push(Finding {
                code: Code::RoundTimeout,
                severity: Severity::Warning,
                node: None,
                node_pool: None,
                karpenter: vec![metric_evidence(
                    &s.name,
                    &labels(s),
                    s.value,
                    if single {
                        "pkg/controllers/disruption/singlenodeconsolidation.go SingleNodeConsolidation.ComputeCommands"
                    } else {
                        "pkg/controllers/disruption/multinodeconsolidation.go MultiNodeConsolidation.firstNConsolidationOption"
                    },
                )],
                replay: format!("{} underutilized candidates in the replay", order.len()),
                likely: None,
                cause: format!(
                    "Karpenter's {} pass stopped at its deadline ({}) {} times since the controller started: \
                     candidates late in its order were not reached, which is not a disagreement",
                    if single { "single-node" } else { "multi-node" },
                    if single { "3 min" } else { "1 min" },
                    s.value
                ),
                check: "karpenter_voluntary_disruption_decision_evaluation_duration_seconds; the debug log \
                        `abandoning single-node consolidation due to timeout` (candidates_evaluated)"
                    .to_owned(),
            });
        }
        out
    }

    /// §9.1: the writer's version range from wording and metric names, against the assumed one.
    fn version(&self, assumed: Version) -> Option<Finding> {
        let mut lo = Version(0, 0, 0);
        let mut hi = Version::MAX;
        let mut karpenter = Vec::new();
        let mut narrow = |from: Version, to: Version, evidence: Evidence| {
            lo = lo.max(from);
            hi = hi.min(to);
            if karpenter.len() < 6 {
                karpenter.push(evidence);
            }
        };
        let mut seen: Vec<&'static str> = Vec::new();
        for e in &self.snapshot.events {
            if let Some((rule, from, to)) = fingerprint(e) {
                if !seen.contains(&rule) {
                    seen.push(rule);
                    let mut evidence = event_evidence(e);
                    evidence.text = format!("{} — {rule}", evidence.text);
                    narrow(from, to, evidence);
                }
            }
        }
        for (name, from, to) in METRIC_FINGERPRINTS {
            if let Some(s) = self.metrics.samples.iter().find(|s| s.name.starts_with(name)) {
                narrow(
                    from,
                    to,
                    metric_evidence(&s.name, &format!("exists (from {from} to {to})"), s.value, "pkg/metrics"),
                );
            }
        }
        let built = self.metrics.series("karpenter_build_info").find_map(|s| Version::parse(s.label("version")));
        if let Some(v) = built {
            narrow(
                v,
                v,
                metric_evidence(
                    "karpenter_build_info",
                    &format!("{{version=\"{v}\"}}"),
                    1.0,
                    "pkg/operator/operator.go",
                ),
            );
        }
        if karpenter.is_empty() || (lo <= assumed && assumed <= hi) {
            return None;
        }
        let range = if lo > hi {
            "no single version (events from before an upgrade?)".to_owned()
        } else {
            format!("{lo} to {hi}")
        };
        Some(Finding {
            code: Code::VersionMismatch,
            severity: Severity::Warning,
            node: None,
            node_pool: None,
            karpenter,
            replay: format!("assumes Karpenter {assumed}"),
            likely: None,
            cause: format!("what Karpenter wrote was written by version {range}, not the one the replay assumes"),
            check: "the controller's image tag and karpenter_build_info; replay with --karpenter-version; events \
                    older than the controller pod's start may come from the version before an upgrade"
                .to_owned(),
        })
    }
}

/// A metric family that exists only in some versions (§7, §9.1).
const METRIC_FINGERPRINTS: [(&str, Version, Version); 5] = [
    ("karpenter_pods_pods_drained_total", Version(1, 5, 0), Version(1, 6, 4)),
    ("karpenter_nodes_eviction_requests_total", Version(1, 1, 0), Version(1, 8, 3)),
    ("karpenter_voluntary_disruption_decisions_by_nodepool_total", Version(1, 9, 0), Version::MAX),
    ("karpenter_nodepools_nodes_consuming_budgets", Version(1, 9, 0), Version::MAX),
    ("karpenter_consolidation_moves_total", Version(1, 14, 0), Version::MAX),
];

/// An Event wording only some versions write (§9.1): the rule, and the tag range.
fn fingerprint(e: &Event) -> Option<(&'static str, Version, Version)> {
    let m = message(e);
    let r = e.reason.as_str();
    Some(if m.starts_with("Cannot disrupt Node: ") || m.starts_with("Cannot disrupt NodeClaim: ") {
        ("the `Cannot disrupt …: ` prefix", Version(1, 0, 0), Version(1, 1, 5))
    } else if m == "No allowed disruptions due to blocking budget" {
        ("the budget text without a reason word", Version(1, 0, 0), Version(1, 0, 9))
    } else if matches!(r, "DisruptionTerminating" | "DisruptionLaunching")
        && (m.ends_with("/Replace") || m.ends_with("/Delete"))
    {
        ("the `<Reason>/<Decision>` suffix", Version(1, 0, 0), Version(1, 5, 5))
    } else if r == "Evicted" && m == "Evicted pod" {
        ("the bare `Evicted pod`", Version(1, 0, 0), Version(1, 1, 5))
    } else if m.contains("has non-empty consolidation disabled") {
        ("the WhenEmpty text of 1.13 and before", Version(1, 0, 0), Version(1, 13, u32::MAX))
    } else if m.contains("has consolidation policy WhenEmpty, but node is not empty") {
        ("the WhenEmpty text of 1.14", Version(1, 14, 0), Version::MAX)
    } else if r == "ConsolidationApproved" {
        ("the ConsolidationApproved reason", Version(1, 14, 0), Version::MAX)
    } else if matches!(r, "ConsolidationCandidate" | "ConsolidationRejected") {
        ("the ConsolidationCandidate/Rejected reasons", Version(1, 9, 0), Version::MAX)
    } else if matches!(r, "DoNotDisruptUntil" | "DoNotDisruptGracePeriodElapsed" | "InvalidDoNotDisruptAnnotation") {
        ("the do-not-disrupt duration events", Version(1, 12, 0), Version::MAX)
    } else if m.contains("(PodDisruptionBudget=[") || m.starts_with("Eviction does not support multiple PDBs") {
        ("the bracketed PDB list", Version(1, 7, 0), Version::MAX)
    } else if m.contains("(PodDisruptionBudget=") {
        ("the unbracketed PDB suffix", Version(1, 5, 0), Version(1, 6, 4))
    } else if r == "AwaitingVolumeDetachment" {
        ("the AwaitingVolumeDetachment reason", Version(1, 6, 0), Version::MAX)
    } else {
        return None;
    })
}

/// Where the `Consolidatable` condition is set and removed.
const CONSOLIDATABLE: crate::upstream::Upstream = crate::upstream::CONSOLIDATABLE_CONDITION;

/// How long the validation waits before it re-checks a command (v1.14.0
/// `pkg/controllers/disruption/consolidation.go` `commandValidationDelay`).
const VALIDATION_WAIT: SignedDuration = SignedDuration::from_secs(15);

/// Whether Karpenter publishes this Event only for a node that passed the `Consolidatable`
/// filter (v1.14.0 `consolidation.go` `ShouldDisrupt` returns the condition last; the Events
/// after it come from `computeConsolidation`, `computeSpotToSpotConsolidation`, the validation
/// and the Balanced approval). The `ShouldDisrupt` texts (pool, labels, WhenEmpty, buffer pods)
/// come before the condition is read, so they say nothing about it.
fn was_consolidatable(e: &Event) -> bool {
    let m = message(e);
    match e.reason.as_str() {
        "ConsolidationCandidate" | "ConsolidationRejected" | "ConsolidationApproved" => true,
        "Unconsolidatable" => {
            m.starts_with("Can't replace with a cheaper node")
                || m.starts_with("Can't remove without creating")
                || m.starts_with("Filtering by price")
                || m.starts_with("SpotToSpotConsolidation")
                || m.to_ascii_lowercase().starts_with("not all pods would schedule")
        }
        _ => false,
    }
}

/// `Consolidation rejected: …, reason: churn (savings …)` → `churn`.
fn rejection_word(m: &str) -> Option<&str> {
    let rest = m.rsplit_once("reason: ")?.1;
    rest.split([' ', ')']).next().filter(|w| !w.is_empty())
}

/// `Disrupting Node: Underutilized` (1.6+) or `…: Underutilized/Delete` → `Underutilized`.
fn method_word(m: &str) -> Option<&str> {
    let rest = m.rsplit_once(": ")?.1;
    let word = rest.split('/').next()?;
    DisruptionReason::ALL.iter().map(|r| r.as_str()).find(|r| *r == word)
}

fn eligible_for(v: &NodeVerdict, reason: DisruptionReason) -> bool {
    v.reason == Some(reason)
        && v.steps.iter().find(|s| s.step == crate::engine::StepKind::Candidate).is_none_or(|s| s.ok)
        && !matches!(v.verdict, Verdict::Safe)
}

fn in_flight(v: &NodeVerdict) -> bool {
    v.blockers
        .iter()
        .any(|c| matches!(c, crate::reason::Code::AlreadyDisrupting | crate::reason::Code::MarkedForDeletion))
}

fn replay_side(v: &NodeVerdict) -> String {
    let action = match v.action {
        Action::Delete => "delete",
        Action::Replace => "replace",
        Action::None => "no action",
    };
    let method = v.reason.map(|r| format!(" ({})", r.as_str())).unwrap_or_default();
    match v.action {
        Action::None => format!("{action}: {}", first_blocker(v)),
        _ => format!("{action}{method}"),
    }
}

fn first_blocker(v: &NodeVerdict) -> String {
    let verdict = match v.verdict {
        Verdict::Empty => "Empty",
        Verdict::Drifted => "Drifted",
        Verdict::Underutilized => "Underutilized",
        Verdict::Blocked => "Blocked",
        Verdict::Safe => "Safe",
    };
    match v.reasons.iter().find(|r| v.blockers.contains(&r.code)).or_else(|| v.reasons.first()) {
        Some(r) => format!("{verdict} — {}", r.message),
        None => verdict.to_owned(),
    }
}

fn labels(s: &crate::snapshot::MetricSample) -> String {
    let inner: Vec<String> = s.labels.iter().map(|(k, v)| format!("{k}=\"{v}\"")).collect();
    format!("{{{}}}", inner.join(","))
}

fn involuntary_reasons(m: &DisruptionMetrics, pool: &str) -> String {
    let voluntary = ["underutilized", "empty", "drifted", "Underutilized", "Empty", "Drifted"];
    let words: Vec<String> = m
        .series("karpenter_nodeclaims_disrupted_total")
        .filter(|s| s.label("nodepool") == pool && !voluntary.contains(&s.label("reason")) && s.value > 0.0)
        .map(|s| format!("{} {}", s.label("reason"), s.value))
        .collect();
    words.join(", ")
}

fn human(d: SignedDuration) -> String {
    let mins = d.as_secs() / 60;
    match (mins / 60, mins % 60) {
        (0, m) => format!("{m} min"),
        (h, 0) => format!("{h} h"),
        (h, m) => format!("{h} h {m} min"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_order() {
        assert_eq!(Version::parse("v1.14.0"), Some(Version(1, 14, 0)));
        assert_eq!(Version::parse("1.0.9-rc.1"), Some(Version(1, 0, 9)));
        assert_eq!(Version::parse("v1.7"), Some(Version(1, 7, 0)));
        assert!(Version(1, 13, u32::MAX) < Version(1, 14, 0));
        assert_eq!(Version::parse("main"), None);
    }

    #[test]
    fn reads_the_words_inside_messages() {
        assert_eq!(
            rejection_word("Consolidation rejected: delete: [a], reason: churn (savings: $0.10)"),
            Some("churn")
        );
        assert_eq!(method_word("Disrupting Node: Underutilized"), Some("Underutilized"));
        assert_eq!(method_word("Disrupting Node: Underutilized/Delete"), Some("Underutilized"));
        assert_eq!(method_word("Waiting on readiness to continue disruption"), None);
    }

    #[test]
    fn fingerprints_name_the_tag_range() {
        let e =
            |reason: &str, message: &str| Event { reason: reason.into(), message: message.into(), ..Event::default() };
        let range = |e: Event| fingerprint(&e).map(|(_, a, b)| (a, b));
        assert_eq!(
            range(e("DisruptionBlocked", "Cannot disrupt Node: state node isn't initialized")),
            Some((Version(1, 0, 0), Version(1, 1, 5)))
        );
        assert_eq!(
            range(e("DisruptionTerminating", "Disrupting Node: Underutilized/Delete")),
            Some((Version(1, 0, 0), Version(1, 5, 5)))
        );
        assert_eq!(range(e("DisruptionTerminating", "Disrupting Node: Underutilized")), None);
        assert_eq!(
            range(e(
                "DisruptionBlocked",
                "(combined from similar events): No allowed disruptions due to blocking budget"
            )),
            Some((Version(1, 0, 0), Version(1, 0, 9)))
        );
    }

    mod matchers {
        use serde_json::json;

        use super::super::*;
        use crate::testing::{managed_node, node_pool, now, pod, snapshot};

        fn with_event(reason: &str, message: &str, count: i32) -> Snapshot {
            let [a, ca] = managed_node("node-a");
            let [b, cb] = managed_node("node-b");
            let ev = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "node-a.1", "namespace": "default"},
                   "involvedObject": {"kind": "Node", "name": "node-a"}, "reason": reason, "message": message,
                   "lastTimestamp": "2026-11-29T09:59:00Z", "count": count, "source": {"component": "karpenter"}});
            snapshot(vec![node_pool("default"), a, ca, b, cb, pod("p1", "node-a"), pod("p2", "node-b"), ev])
        }

        fn finding(s: &Snapshot, code: Code) -> Option<Finding> {
            let replay = crate::engine::replay(s, now());
            doctor(s, &replay, now(), None)
                .findings
                .into_iter()
                .find(|f| f.code == code && f.node.as_deref() == Some("node-a"))
        }

        #[test]
        fn the_lower_case_scheduling_text_of_1_0_and_1_1_is_a_simulation_difference() {
            for text in [
                "not all pods would schedule, default/p1 => no room",
                "Not all pods would schedule, default/p1 => no room",
            ] {
                let s = with_event("Unconsolidatable", text, 1);
                let replay = crate::engine::replay(&s, now());
                let acts = replay.nodes.iter().find(|v| v.name == "node-a").is_some_and(|v| v.action != Action::None);
                // The replay must act on node-a for a disagreement to exist at all.
                assert!(
                    acts,
                    "node-a is not acted on: {:?}",
                    replay.nodes.iter().map(|v| (&v.name, v.action)).collect::<Vec<_>>()
                );
                let f = finding(&s, Code::Disagreement).expect("a disagreement on node-a");
                assert_eq!(f.likely, Some(Likely::Simulation), "{text}: {f:?}");
            }
        }

        #[test]
        fn buffer_pods_karpenter_saw_and_the_replay_did_not_point_at_the_gate() {
            let s = with_event("Unconsolidatable", "Node \"node-a\" has buffer pods", 1);
            let f = finding(&s, Code::Disagreement).expect("a disagreement on node-a");
            assert_eq!(f.likely, Some(Likely::Setting), "{f:?}");
            assert!(f.check.contains("CapacityBuffer"), "{f:?}");
        }

        #[test]
        fn a_pod_under_two_pdbs_is_named_as_such_in_a_blocked_drain() {
            let text = "Failed to drain node, eviction does not support multiple PDBs (Pod=default/p1)";
            let f = finding(&with_event("FailedDraining", text, 3), Code::DrainBlocked).expect("a blocked drain");
            assert!(f.cause.contains("more than one PDB"), "{f:?}");
            assert!(f.karpenter[0].emitter.ends_with("terminator/eviction.go Queue.Reconcile"), "{f:?}");
        }
    }

    mod flapping {
        use serde_json::json;

        use super::super::*;
        use crate::rules::{CoreVersion, RuleSet};
        use crate::testing::{managed_node, node_pool, now, set, snapshot};

        /// node-b: pool `consolidateAfter` 10m, a pod event 2 min before the snapshot;
        /// `consolidatable` keeps its `Consolidatable=True` condition from 08:00.
        fn churned(consolidate_after: &str, consolidatable: bool, events: Vec<serde_json::Value>) -> Snapshot {
            let pool = set(node_pool("default"), "/spec/disruption/consolidateAfter", json!(consolidate_after));
            let [node, claim] = managed_node("node-b");
            let claim = set(claim, "/status/lastPodEventTime", json!("2026-11-29T09:58:00Z"));
            let claim = if consolidatable {
                claim
            } else {
                set(
                    claim,
                    "/status/conditions",
                    json!([{"type": "Initialized", "status": "True", "lastTransitionTime": "2026-11-29T08:00:00Z"}]),
                )
            };
            let mut objects = vec![pool, node, claim];
            objects.extend(events);
            snapshot(objects)
        }

        fn event(kind: &str, name: &str, reason: &str, message: &str, at: &str) -> serde_json::Value {
            json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": format!("{name}.1"), "namespace": "default"},
                   "involvedObject": {"kind": kind, "name": name}, "reason": reason, "message": message,
                   "lastTimestamp": at, "firstTimestamp": at, "count": 1, "source": {"component": "karpenter"}})
        }

        fn flaps(s: &Snapshot) -> Vec<Finding> {
            let replay = crate::engine::replay(s, now());
            doctor(s, &replay, now(), None)
                .findings
                .into_iter()
                .filter(|f| f.code == Code::ConsolidatableFlapping)
                .collect()
        }

        #[test]
        fn a_stale_consolidatable_condition_is_a_flap_and_v1_14_withholds_the_destination() {
            let found = flaps(&churned("10m", true, Vec::new()));
            assert_eq!(found.len(), 1, "{found:?}");
            let f = &found[0];
            assert_eq!((f.node.as_deref(), f.severity), (Some("node-b"), Severity::Warning));
            assert!(f.karpenter[0].text.starts_with("Consolidatable=True since 2026-11-29T08:00:00Z"), "{f:?}");
            assert!(f.replay.contains("no destination for other candidates' pods until 2026-11-29T10:08:00Z"), "{f:?}");
        }

        #[test]
        fn before_v1_14_the_flapping_node_stays_a_destination() {
            let mut s = churned("10m", true, Vec::new());
            s.info.rules = RuleSet::at(CoreVersion::new(1, 13, 0));
            let found = flaps(&s);
            assert_eq!(found.len(), 1, "{found:?}");
            assert_eq!(found[0].severity, Severity::Info);
            assert!(found[0].replay.contains("still a destination"), "{:?}", found[0]);
            assert!(found[0].replay.contains("rules of v1.13.0"), "{:?}", found[0]);
        }

        #[test]
        fn an_event_only_a_consolidatable_node_gets_before_the_pod_event_is_a_flap() {
            let rejected = event(
                "Node",
                "node-b",
                "ConsolidationRejected",
                "Consolidation rejected: delete: [node-b], reason: churn (savings: $0.20)",
                "2026-11-29T09:58:10Z",
            );
            let found = flaps(&churned("10m", false, vec![rejected]));
            assert_eq!(found.len(), 1, "the rejection was judged 15 s earlier, before 09:58: {found:?}");
            assert_eq!(found[0].karpenter[0].signal, "event");
        }

        #[test]
        fn no_evidence_of_an_earlier_consolidatable_state_is_no_flap() {
            // ShouldDisrupt publishes the pool text before it reads the condition: no evidence.
            let disabled = event(
                "Node",
                "node-b",
                "Unconsolidatable",
                "NodePool \"default\" has consolidation policy WhenEmpty, but node is not empty",
                "2026-11-29T09:50:00Z",
            );
            assert!(flaps(&churned("10m", false, vec![disabled])).is_empty());
            // An event after the pod event says nothing about the state before it.
            let later = event(
                "Node",
                "node-b",
                "Unconsolidatable",
                "Can't replace with a cheaper node",
                "2026-11-29T09:59:00Z",
            );
            assert!(flaps(&churned("10m", false, vec![later])).is_empty());
            // No window to restart, or none at all.
            assert!(flaps(&churned("0s", true, Vec::new())).is_empty());
            assert!(flaps(&churned("Never", true, Vec::new())).is_empty());
            // The window has passed: consolidatable again, nothing flaps now.
            assert!(flaps(&churned("1m", true, Vec::new())).is_empty());
        }
    }
}
