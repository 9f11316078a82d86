//! [`FitKey`]: what a pod's static fit is computed and memoised from. Apart from `world.rs`
//! so that the forecast's memo (`world_memo.rs`), which keeps fit keys across rounds, names it
//! without importing the world.

use std::rc::Rc;

use crate::engine::scheduling::requirements::Requirements;
use crate::engine::state::Cluster;
use crate::snapshot::Pod;

/// A pod's node requirements and the fingerprint pods that fit alike share (with its
/// tolerations): what a static fit is computed and memoised from.
#[derive(Debug)]
pub(crate) struct FitKey {
    pub(super) requirements: Rc<[Requirements]>,
    pub(super) fingerprint: String,
    /// Whether every alternative pins `kubernetes.io/hostname` (`PodFit::pins_hostname`).
    pub(super) pins_hostname: bool,
}

impl FitKey {
    pub(super) fn new(pod: &Pod, cluster: &Cluster<'_>) -> Self {
        let requirements = crate::engine::scheduling::pod_data::node_requirements(pod, cluster);
        let fingerprint = format!("{requirements:?}|{:?}", pod.spec.tolerations);
        let pins_hostname = super::pins_hostname(&requirements);
        FitKey { requirements: requirements.into(), fingerprint, pins_hostname }
    }
}
