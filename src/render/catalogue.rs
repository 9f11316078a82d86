//! `instance-types nodepool/P` as a kubectl-style table (or Markdown).

use super::table::{kubectl, price};
use crate::report::instance_types::Catalogue;

pub(super) fn table(c: &Catalogue, wide: bool, markdown: bool, no_headers: bool, width: Option<usize>) -> String {
    let mut headers = vec!["INSTANCE-TYPE", "CPU", "MEMORY", "PODS", "OFFERINGS", "CHEAPEST/H", "SOURCES"];
    if wide {
        headers.extend(["CAPACITY-CPU", "CAPACITY-MEMORY", "ZONES"]);
    }
    let rows: Vec<Vec<String>> = c
        .instance_types
        .iter()
        .map(|t| {
            let get = |m: &std::collections::BTreeMap<String, String>, k: &str| {
                m.get(k).cloned().unwrap_or_else(|| "-".into())
            };
            let available: Vec<_> = t.offerings.iter().filter(|o| o.available).collect();
            let cheapest = available.iter().filter_map(|o| o.price).min_by(f64::total_cmp);
            let mut sources: Vec<String> = if wide {
                t.sources.iter().map(|(k, v)| format!("{k}:{v}")).collect()
            } else {
                let mut distinct: Vec<&str> = t.sources.values().map(String::as_str).collect();
                distinct.sort_unstable();
                distinct.dedup();
                if distinct.is_empty() {
                    Vec::new()
                } else {
                    vec![format!("figures:{}", distinct.join("+"))]
                }
            };
            let mut offer_sources: Vec<&str> = t.offerings.iter().filter_map(|o| o.source.as_deref()).collect();
            offer_sources.sort_unstable();
            offer_sources.dedup();
            if !offer_sources.is_empty() {
                sources.push(format!("price:{}", offer_sources.join("+")));
            }
            let mut row = vec![
                t.name.clone(),
                get(&t.allocatable, "cpu"),
                get(&t.allocatable, "memory"),
                t.pods.clone().unwrap_or_else(|| "-".into()),
                format!("{}/{}", available.len(), t.offerings.len()),
                price(cheapest),
                if sources.is_empty() { "document".into() } else { sources.join(" ") },
            ];
            if wide {
                let mut zones: Vec<&str> = t.offerings.iter().map(|o| o.zone.as_str()).collect();
                zones.dedup();
                row.extend([get(&t.capacity, "cpu"), get(&t.capacity, "memory"), zones.join(",")]);
            }
            row
        })
        .collect();
    let title = format!(
        "nodepool/{}{}: {} instance type(s), cheapest first (allocatable cpu, memory, pods)\n",
        c.node_pool,
        c.node_class.as_ref().map(|n| format!(" (nodeclass {n})")).unwrap_or_default(),
        c.instance_types.len()
    );
    let body = if markdown {
        markdown_table(&headers, &rows)
    } else {
        kubectl(&headers, rows, no_headers, super::table::Fit { width, drop: &[] })
    };
    let mut out = if no_headers { body } else { format!("{title}{body}") };
    for e in &c.estimated {
        out.push_str(&format!("estimated: {e}\n"));
    }
    out
}

fn markdown_table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut out =
        format!("| {} |\n|{}|\n", headers.join(" | "), headers.iter().map(|_| "---").collect::<Vec<_>>().join("|"));
    for r in rows {
        out.push_str(&format!("| {} |\n", r.join(" | ")));
    }
    out
}
