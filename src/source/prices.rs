//! Prices and capacities for `--prices` and for live mode's metrics scrape.
//!
//! Owns reading two shapes into [`InstanceType`]s: our own `InstanceTypes` document (YAML or
//! JSON, several documents or a `List` allowed) and Karpenter's Prometheus exposition text. The
//! metric names and labels are the AWS provider's (`pkg/controllers/metrics/metrics.go`,
//! `pkg/providers/instancetype/metrics.go`), see docs/PRICING.md §1. Must not decide anything about
//! prices: it only reads them. The result is sorted (types by name, offerings by zone, then
//! capacity type), so the same input always gives the same catalogue.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::Error;
use crate::quantity::Quantity;
use crate::snapshot::{InstanceType, Offering, API_VERSION};

/// USD per hour of one offering; labels `instance_type`, `capacity_type`, `zone`.
pub const PRICE_METRIC: &str = "karpenter_cloudprovider_instance_type_offering_price_estimate";
/// `1` when the offering can be launched, `0` when not; same labels as the price.
pub const AVAILABLE_METRIC: &str = "karpenter_cloudprovider_instance_type_offering_available";
/// vCPUs of an instance type; label `instance_type`.
pub const CPU_METRIC: &str = "karpenter_cloudprovider_instance_type_cpu_cores";
/// Memory of an instance type in bytes (the raw EC2 figure); label `instance_type`.
pub const MEMORY_METRIC: &str = "karpenter_cloudprovider_instance_type_memory_bytes";

/// The source tag of every figure read from metrics (`catalogue::Source::Metrics`).
const METRICS_SOURCE: &str = "metrics";

/// Reads prices from an `InstanceTypes` document or from Karpenter's `/metrics` text.
///
/// `path` names the input in diagnostics.
/// What `--prices FILE` held: the two shapes are applied differently (`prepare::apply_prices`).
#[derive(Debug, Clone)]
pub enum PricesFile {
    /// Our own `InstanceTypes` document: the whole catalogue (README, `--prices`).
    Document(Vec<InstanceType>),
    /// Karpenter's `/metrics` text: prices and availability, merged as a scrape is.
    Metrics(Vec<InstanceType>),
}

/// Reads `--prices FILE`: an `InstanceTypes` document or Karpenter's metrics text.
pub fn read_prices_file(path: &std::path::Path) -> Result<PricesFile, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io { path: path.to_path_buf(), source: e })?;
    let types = parse_prices(&text, &path.display().to_string())?;
    Ok(if looks_like_metrics(&text) { PricesFile::Metrics(types) } else { PricesFile::Document(types) })
}

pub fn parse_prices(text: &str, path: &str) -> Result<Vec<InstanceType>, Error> {
    let mut types = if looks_like_metrics(text) { from_metrics(text, path)? } else { from_documents(text, path)? };
    sort(&mut types);
    Ok(types)
}

/// Whether the text is Prometheus exposition: a sample or a `# HELP`/`# TYPE` line of one of
/// Karpenter's instance-type series. A YAML document never has such a line.
pub fn looks_like_metrics(text: &str) -> bool {
    text.lines().map(str::trim_start).any(|line| {
        let line = line.strip_prefix("# HELP ").or_else(|| line.strip_prefix("# TYPE ")).unwrap_or(line);
        line.starts_with("karpenter_cloudprovider_instance_type_")
    })
}

/// Whether a metrics text carries at least one price sample (a standby replica's does not).
pub fn has_price_series(text: &str) -> bool {
    text.lines().any(|line| {
        line.trim_start().strip_prefix(PRICE_METRIC).is_some_and(|rest| rest.starts_with('{') || rest.starts_with(' '))
    })
}

fn from_documents(text: &str, path: &str) -> Result<Vec<InstanceType>, Error> {
    let documents = super::file::parse_documents(text, path)?;
    let mut found = false;
    let mut types: Vec<InstanceType> = Vec::new();
    let mut pending = documents;
    while let Some(document) = pending.pop() {
        let api_version = document.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
        let kind = document.get("kind").and_then(Value::as_str).unwrap_or_default();
        match kind {
            "InstanceTypes" if api_version == API_VERSION => {
                found = true;
                let items = document.get("items").cloned().unwrap_or(Value::Array(Vec::new()));
                let parsed: Vec<InstanceType> = serde_path_to_error::deserialize(items).map_err(|e| {
                    let field = e.path().to_string();
                    Error::Prices { path: path.to_owned(), message: format!("items{}: {}", dotted(&field), e.inner()) }
                })?;
                merge(&mut types, parsed);
            }
            "InstanceTypes" => {
                return Err(Error::Prices {
                    path: path.to_owned(),
                    message: format!("InstanceTypes needs `apiVersion: {API_VERSION}`, found `{api_version}`"),
                })
            }
            _ if kind.ends_with("List") => {
                if let Some(Value::Array(items)) = document.get("items") {
                    pending.extend(items.iter().rev().cloned());
                }
            }
            _ => {}
        }
    }
    if !found {
        return Err(Error::Prices {
            path: path.to_owned(),
            message: format!("no `kind: InstanceTypes` document (apiVersion {API_VERSION}) and no Karpenter metrics"),
        });
    }
    Ok(types)
}

/// `[3].capacity.cpu` stays, `3.capacity` becomes `[3].capacity`.
fn dotted(field: &str) -> String {
    if field.is_empty() || field == "." {
        String::new()
    } else if field.starts_with('[') {
        field.to_owned()
    } else {
        let (head, tail) = field.split_once('.').unwrap_or((field, ""));
        if head.parse::<usize>().is_ok() {
            if tail.is_empty() {
                format!("[{head}]")
            } else {
                format!("[{head}].{tail}")
            }
        } else {
            format!(".{field}")
        }
    }
}

/// Later documents win for the same instance type, as `Snapshot::merge_instance_types` does.
fn merge(types: &mut Vec<InstanceType>, extra: Vec<InstanceType>) {
    for it in extra {
        match types.iter_mut().find(|t| t.name == it.name) {
            Some(existing) => *existing = it,
            None => types.push(it),
        }
    }
}

fn from_metrics(text: &str, path: &str) -> Result<Vec<InstanceType>, Error> {
    let lines = text.lines().map(|l| Ok(l.to_owned()));
    let scrape = prometheus_parse::Scrape::parse(lines)
        .map_err(|e| Error::Prices { path: path.to_owned(), message: e.to_string() })?;
    let mut types: BTreeMap<String, InstanceType> = BTreeMap::new();
    let mut series = 0usize;
    for sample in &scrape.samples {
        let (prometheus_parse::Value::Gauge(value)
        | prometheus_parse::Value::Untyped(value)
        | prometheus_parse::Value::Counter(value)) = sample.value
        else {
            continue;
        };
        let labels: BTreeMap<&str, &str> = sample.labels.iter().map(|(k, v)| (k.trim(), v.trim())).collect();
        let Some(name) = labels.get("instance_type").copied().filter(|n| !n.is_empty()) else { continue };
        let metric = sample.metric.as_str();
        if ![PRICE_METRIC, AVAILABLE_METRIC, CPU_METRIC, MEMORY_METRIC].contains(&metric) {
            continue;
        }
        series += 1;
        let it = types
            .entry(name.to_owned())
            .or_insert_with(|| InstanceType { name: name.to_owned(), ..InstanceType::default() });
        match metric {
            CPU_METRIC if value.is_finite() && value >= 0.0 => {
                it.capacity.insert("cpu".to_owned(), Quantity::from_milli((value * 1000.0).round() as i128));
                it.sources.insert("cpu".to_owned(), METRICS_SOURCE.to_owned());
            }
            MEMORY_METRIC if value.is_finite() && value >= 0.0 => {
                it.capacity.insert("memory".to_owned(), Quantity::from_units(value.round() as i128));
                it.sources.insert("memory".to_owned(), METRICS_SOURCE.to_owned());
            }
            PRICE_METRIC | AVAILABLE_METRIC => {
                let zone = labels.get("zone").copied().unwrap_or_default();
                let capacity_type = labels.get("capacity_type").copied().unwrap_or_default();
                if zone.is_empty() || capacity_type.is_empty() {
                    continue;
                }
                let offering = offering(it, zone, capacity_type);
                if metric == PRICE_METRIC {
                    offering.price = (value.is_finite() && value >= 0.0).then_some(value);
                } else {
                    offering.available = value > 0.0;
                }
            }
            _ => {}
        }
    }
    if series == 0 {
        return Err(Error::Prices {
            path: path.to_owned(),
            message: format!("no `{PRICE_METRIC}` series (is this the leader replica's /metrics?)"),
        });
    }
    Ok(types.into_values().collect())
}

fn offering<'a>(it: &'a mut InstanceType, zone: &str, capacity_type: &str) -> &'a mut Offering {
    if let Some(index) = it.offerings.iter().position(|o| o.zone == zone && o.capacity_type == capacity_type) {
        return &mut it.offerings[index];
    }
    it.offerings.push(Offering {
        zone: zone.to_owned(),
        capacity_type: capacity_type.to_owned(),
        source: Some(METRICS_SOURCE.to_owned()),
        ..Offering::default()
    });
    let last = it.offerings.len() - 1;
    &mut it.offerings[last]
}

fn sort(types: &mut [InstanceType]) {
    types.sort_by(|a, b| a.name.cmp(&b.name));
    for it in types {
        it.offerings.sort_by(|a, b| (&a.zone, &a.capacity_type).cmp(&(&b.zone, &b.capacity_type)));
    }
}

#[cfg(test)]
mod tests {
    use super::{has_price_series, looks_like_metrics, parse_prices};
    use crate::error::Error;
    use crate::quantity::Quantity;

    const METRICS: &str = r#"# HELP karpenter_cloudprovider_instance_type_offering_price_estimate Instance type offering estimated hourly price.
# TYPE karpenter_cloudprovider_instance_type_offering_price_estimate gauge
karpenter_cloudprovider_instance_type_offering_price_estimate{capacity_type="spot",instance_type="m5.large",zone="us-east-1b"} 0.0351
karpenter_cloudprovider_instance_type_offering_price_estimate{capacity_type="on-demand",instance_type="m5.large",zone="us-east-1b"} 0.096
karpenter_cloudprovider_instance_type_offering_price_estimate{capacity_type="on-demand",instance_type="m5.large",zone="us-east-1a"} 0.096
karpenter_cloudprovider_instance_type_offering_price_estimate{capacity_type="on-demand",instance_type="c5.large",zone="us-east-1a"} 0.085
# TYPE karpenter_cloudprovider_instance_type_offering_available gauge
karpenter_cloudprovider_instance_type_offering_available{capacity_type="spot",instance_type="m5.large",zone="us-east-1b"} 0
karpenter_cloudprovider_instance_type_offering_available{capacity_type="on-demand",instance_type="m5.large",zone="us-east-1a"} 1
# TYPE karpenter_cloudprovider_instance_type_cpu_cores gauge
karpenter_cloudprovider_instance_type_cpu_cores{instance_type="m5.large"} 2
# TYPE karpenter_cloudprovider_instance_type_memory_bytes gauge
karpenter_cloudprovider_instance_type_memory_bytes{instance_type="m5.large"} 8.589934592e+09
# TYPE go_goroutines gauge
go_goroutines 312
"#;

    #[test]
    fn reads_karpenter_metrics_sorted() {
        let types = parse_prices(METRICS, "metrics.txt").unwrap();
        let names: Vec<_> = types.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["c5.large", "m5.large"]);
        let m5 = &types[1];
        assert_eq!(m5.capacity["cpu"], Quantity::from_milli(2000));
        assert_eq!(m5.capacity["memory"], "8Gi".parse::<Quantity>().unwrap());
        let offerings: Vec<_> =
            m5.offerings.iter().map(|o| (o.zone.as_str(), o.capacity_type.as_str(), o.price, o.available)).collect();
        assert_eq!(
            offerings,
            [
                ("us-east-1a", "on-demand", Some(0.096), true),
                ("us-east-1b", "on-demand", Some(0.096), true),
                ("us-east-1b", "spot", Some(0.0351), false),
            ]
        );
        assert!(types[0].capacity.is_empty(), "no capacity series for c5.large");
    }

    #[test]
    fn same_input_same_output_whatever_the_line_order() {
        let mut lines: Vec<&str> = METRICS.lines().filter(|l| !l.starts_with('#')).collect();
        lines.reverse();
        let reversed = lines.join("\n");
        assert_eq!(parse_prices(&reversed, "m").unwrap(), parse_prices(METRICS, "m").unwrap());
    }

    #[test]
    fn metrics_without_price_series_is_an_error() {
        let text = "# TYPE go_goroutines gauge\ngo_goroutines 3\nkarpenter_cloudprovider_instance_type_offering_price_estimate_bogus 1\n";
        assert!(matches!(parse_prices(text, "m"), Err(Error::Prices { .. })));
        assert!(!has_price_series(text));
        assert!(has_price_series(METRICS));
    }

    #[test]
    fn nan_price_is_unknown_and_garbage_lines_are_skipped() {
        let text = "karpenter_cloudprovider_instance_type_offering_price_estimate{capacity_type=\"spot\",instance_type=\"x\",zone=\"z\"} NaN\nthis is not { a metric\nkarpenter_cloudprovider_instance_type_cpu_cores{instance_type=\"x\"} lots\n";
        let types = parse_prices(text, "m").unwrap();
        assert_eq!(types.len(), 1);
        assert_eq!(types[0].offerings[0].price, None);
        assert!(types[0].capacity.is_empty());
    }

    #[test]
    fn reads_instance_types_yaml() {
        let text = "apiVersion: kubectl-consolidation/v1alpha1\nkind: InstanceTypes\nitems:\n- name: m5.xlarge\n  capacity: {cpu: \"4\", memory: 16Gi}\n  offerings:\n  - {zone: b, capacityType: spot, price: 0.07}\n  - {zone: a, capacityType: on-demand, price: 0.192}\n- name: m5.large\n  capacity: {cpu: 2, memory: 8Gi}\n  offerings: []\n";
        let types = parse_prices(text, "prices.yaml").unwrap();
        assert_eq!(types.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["m5.large", "m5.xlarge"]);
        assert_eq!(types[1].offerings[0].zone, "a");
        assert_eq!(types[0].capacity["cpu"], Quantity::from_milli(2000));
    }

    #[test]
    fn reads_instance_types_json_inside_a_list() {
        let text = r#"{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"kubectl-consolidation/v1alpha1","kind":"InstanceTypes","items":[{"name":"t3.small","capacity":{"cpu":"2"},"offerings":[{"zone":"a","capacityType":"spot","price":0.01}]}]}]}"#;
        let types = parse_prices(text, "prices.json").unwrap();
        assert_eq!(types[0].name, "t3.small");
        assert_eq!(types[0].offerings[0].price, Some(0.01));
    }

    #[test]
    fn bad_quantity_names_the_field() {
        let text = "apiVersion: kubectl-consolidation/v1alpha1\nkind: InstanceTypes\nitems:\n- name: x\n  capacity: {cpu: lots}\n";
        match parse_prices(text, "p.yaml").unwrap_err() {
            Error::Prices { path, message } => {
                assert_eq!(path, "p.yaml");
                assert!(message.starts_with("items[0].capacity.cpu"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn other_documents_are_not_prices() {
        let text = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n";
        assert!(matches!(parse_prices(text, "n.yaml"), Err(Error::Prices { .. })));
        assert!(!looks_like_metrics(text));
        assert!(matches!(parse_prices("a: [b\n", "bad.yaml"), Err(Error::Syntax { .. })));
    }
}
