//! Where the pods a what-if added went, one line per pod, for `plan`, `explain` and `forecast`.

use super::format::duration;
use crate::report::placement::PlacementView;

/// `new pod NS/NAME → NODE (...)`, one line per placement, without a leading marker.
pub(super) fn lines(placements: &[PlacementView]) -> Vec<String> {
    placements.iter().map(line).collect()
}

fn line(p: &PlacementView) -> String {
    let clock = p
        .consolidatable_in_seconds
        .filter(|s| *s > 0)
        .map(|s| format!("; the pod event restarts its consolidateAfter: consolidatable in {}", duration(s)))
        .unwrap_or_default();
    let node = p.node.as_deref().unwrap_or_default();
    match (&p.launch, &p.why) {
        (Some(l), _) => {
            let price = l.price.map_or_else(|| "price unknown".to_owned(), |v| format!("${v:.4}/h"));
            format!(
                "new pod {} → {node} (launched: NodePool {}, {} {} {}, {price}{clock})",
                p.pod, l.node_pool, l.instance_type, l.capacity_type, l.zone
            )
        }
        (None, Some(why)) => format!("new pod {} stays pending: {why}", p.pod),
        (None, None) => format!("new pod {} → {node} (existing node{clock})", p.pod),
    }
}

#[cfg(test)]
mod tests {
    use super::lines;
    use crate::report::placement::{LaunchView, PlacementView};

    fn view(placed: &'static str, node: Option<&str>) -> PlacementView {
        PlacementView {
            pod: "ns/web-whatif-0".into(),
            placed,
            node: node.map(Into::into),
            launch: None,
            consolidatable_in_seconds: None,
            why: None,
            reference: crate::upstream::PROVISIONER_SCHEDULE,
        }
    }

    #[test]
    fn each_kind_of_placement_reads_as_one_line() {
        let existing = PlacementView { consolidatable_in_seconds: Some(300), ..view("existing", Some("node-0")) };
        let launched = PlacementView {
            launch: Some(LaunchView {
                node_pool: "default".into(),
                instance_type: "m.large".into(),
                zone: "zone-a".into(),
                capacity_type: "on-demand".into(),
                price: Some(0.1),
            }),
            ..view("launched", Some("default-whatif-0"))
        };
        let pending = PlacementView { why: Some("0/3 nodes are available".into()), ..view("pending", None) };
        assert_eq!(
            lines(&[existing, launched, pending]),
            [
                "new pod ns/web-whatif-0 → node-0 (existing node; the pod event restarts its consolidateAfter: consolidatable in 5m)",
                "new pod ns/web-whatif-0 → default-whatif-0 (launched: NodePool default, m.large on-demand zone-a, $0.1000/h)",
                "new pod ns/web-whatif-0 stays pending: 0/3 nodes are available",
            ]
        );
    }
}
