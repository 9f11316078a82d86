//! No upstream twin: every snapshot pod's requests computed once, shared between the pods of
//! one controller (Karpenter recomputes `RequestsForPods` per pod).

use std::collections::BTreeSet;
use std::rc::Rc;

use foldhash::HashMap;

use crate::engine::pod;
use crate::snapshot::{Pod, Resources};

/// `(kind, namespace, name)` of a pod's controller.
type Family<'p> = (&'p str, &'p str, &'p str);

/// Every snapshot pod's requests, by position in `snapshot.pods` (a dense table: looking a pod
/// up costs an address subtraction, not a hash).
#[derive(Debug)]
pub(in crate::engine) struct PodRequests<'a> {
    pods: &'a [Pod],
    requests: Rc<RequestTable>,
    /// How the version sizes a pod (#2383 pod-level resources, #3065 status resources).
    sizing: pod::Sizing,
}

/// Per pod, by position in `snapshot.pods`, its requests: what [`PodRequests`] reads, kept by
/// a forecast from one round to the next. A pod's requests come from its containers and
/// overhead, which a forecast never changes; it only appends pods, so the table is extended.
pub(crate) type RequestTable = Vec<Rc<Resources>>;

impl<'a> PodRequests<'a> {
    pub(in crate::engine) fn new(pods: &'a [Pod], sizing: pod::Sizing) -> Self {
        PodRequests { pods, requests: Rc::new(compute(pods, sizing)), sizing }
    }

    /// The same, from `kept` (a table built for a prefix of these pods in an earlier round),
    /// extended to every pod; `kept` then holds the extended table for the next round.
    pub(in crate::engine) fn reusing(
        pods: &'a [Pod],
        kept: &mut Option<Rc<RequestTable>>,
        sizing: pod::Sizing,
    ) -> Self {
        let mut table = kept.take().filter(|t| t.len() <= pods.len()).unwrap_or_default();
        if table.len() < pods.len() {
            let more = compute(&pods[table.len()..], sizing);
            Rc::make_mut(&mut table).extend(more);
        }
        *kept = Some(Rc::clone(&table));
        PodRequests { pods, requests: table, sizing }
    }

    /// The requests of a pod outside the snapshot (a pending pod a what-if adds), under the
    /// same rule.
    pub(in crate::engine) fn compute(&self, pod: &Pod) -> Resources {
        pod::requests(pod, self.sizing)
    }

    /// The requests of a pod of the snapshot; `None` for any other pod.
    pub(in crate::engine) fn get(&self, pod: &Pod) -> Option<&Rc<Resources>> {
        let (base, at, size) = (self.pods.as_ptr() as usize, address(pod), std::mem::size_of::<Pod>());
        let i = at.checked_sub(base)? / size.max(1);
        std::ptr::eq(self.pods.get(i)?, pod).then(|| &self.requests[i])
    }
}

/// Pods of one controller with the same container resources share one map (and skip computing
/// it); other equal maps are shared too.
fn compute(pods: &[Pod], sizing: pod::Sizing) -> RequestTable {
    let mut distinct: BTreeSet<Rc<Resources>> = BTreeSet::new();
    let mut by_controller: HashMap<Family<'_>, Vec<(&Pod, Rc<Resources>)>> = HashMap::default();
    // The snapshot lists pods by namespace and name, so a controller's pods mostly come one
    // after another: the previous pod answers most lookups without hashing.
    let mut previous: Option<(Family<'_>, &Pod, Rc<Resources>)> = None;
    let mut requests = Vec::with_capacity(pods.len());
    for p in pods {
        let family = p.metadata.controller().map(|o| (o.kind.as_str(), p.metadata.namespace(), o.name.as_str()));
        let adjacent = previous
            .as_ref()
            .filter(|(f, other, _)| family.as_ref() == Some(f) && same_request_inputs(p, other))
            .map(|(_, _, r)| Rc::clone(r));
        let sibling = adjacent.or_else(|| {
            let f = family.as_ref()?;
            by_controller.get(f)?.iter().find(|(other, _)| same_request_inputs(p, other)).map(|(_, r)| Rc::clone(r))
        });
        let shared = sibling.unwrap_or_else(|| {
            let r = pod::requests(p, sizing);
            let shared = distinct.get(&r).cloned().unwrap_or_else(|| {
                let r = Rc::new(r);
                distinct.insert(Rc::clone(&r));
                r
            });
            if let Some(f) = family {
                by_controller.entry(f).or_default().push((p, Rc::clone(&shared)));
            }
            shared
        });
        previous = family.map(|f| (f, p, Rc::clone(&shared)));
        requests.push(shared);
    }
    requests
}

/// Whether two pods' requests are computed from the same inputs: their containers' and init
/// containers' resources (and sidecar restart policies), and the pod overhead.
fn same_request_inputs(a: &Pod, b: &Pod) -> bool {
    fn inputs(p: &Pod) -> impl Iterator<Item = (&crate::snapshot::ContainerResources, Option<&str>)> {
        let main = p.spec.containers.iter().map(|c| (&c.resources, None));
        main.chain(p.spec.init_containers.iter().map(|c| (&c.resources, c.restart_policy.as_deref())))
    }
    // A pod resized in place is sized by its own statuses (kept only where they matter).
    let resized = |p: &Pod| p.status.has_container_statuses();
    !resized(a)
        && !resized(b)
        && a.spec.containers.len() == b.spec.containers.len()
        && a.spec.init_containers.len() == b.spec.init_containers.len()
        && a.spec.overhead == b.spec.overhead
        && a.spec.resources == b.spec.resources
        && inputs(a).eq(inputs(b))
}

pub(in crate::engine) fn address(pod: &Pod) -> usize {
    std::ptr::from_ref(pod) as usize
}
