//! kubectl's `-l` label-selector syntax (`a=b,c!=d,e in (x,y),f notin (z),g,!h`) parsed into a
//! `LabelSelector`, so that matching stays in one place ([`crate::engine::labels::selector_matches`]),
//! and a `LabelSelector` written back in that syntax for messages and fixes.
//!
//! Mirrors apimachinery `pkg/labels/selector.go` `Parse` for the forms kubectl documents.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};

/// Parses a kubectl label selector. An empty string selects everything.
pub(crate) fn parse_selector(text: &str) -> Result<LabelSelector, String> {
    let mut expressions = Vec::new();
    for term in split_terms(text)? {
        expressions.push(parse_term(&term)?);
    }
    Ok(LabelSelector { match_labels: None, match_expressions: Some(expressions) })
}

/// A selector in kubectl's `-l` syntax (`app=web,tier in (a,b)`).
pub(super) fn selector_text(selector: Option<&LabelSelector>) -> String {
    let Some(selector) = selector else { return "<none>".to_owned() };
    let mut terms: Vec<String> = selector.match_labels.iter().flatten().map(|(k, v)| format!("{k}={v}")).collect();
    for e in selector.match_expressions.iter().flatten() {
        let values = e.values.as_deref().unwrap_or_default().join(",");
        terms.push(match e.operator.as_str() {
            "In" => format!("{} in ({values})", e.key),
            "NotIn" => format!("{} notin ({values})", e.key),
            "Exists" => e.key.clone(),
            "DoesNotExist" => format!("!{}", e.key),
            other => format!("{} {other} ({values})", e.key),
        });
    }
    if terms.is_empty() {
        "<everything>".to_owned()
    } else {
        terms.join(",")
    }
}

/// Splits on commas outside parentheses; empty terms are ignored.
fn split_terms(text: &str) -> Result<Vec<String>, String> {
    let mut terms = Vec::new();
    let mut current = String::new();
    let mut depth = 0_u32;
    for c in text.chars() {
        match c {
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth = depth.checked_sub(1).ok_or_else(|| format!("unbalanced `)` in selector `{text}`"))?;
                current.push(c);
            }
            ',' if depth == 0 => terms.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    if depth != 0 {
        return Err(format!("unbalanced `(` in selector `{text}`"));
    }
    terms.push(current);
    Ok(terms.into_iter().map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()).collect())
}

fn parse_term(term: &str) -> Result<LabelSelectorRequirement, String> {
    let requirement = |key: &str, operator: &str, values: Vec<String>| -> Result<LabelSelectorRequirement, String> {
        let key = key.trim();
        if key.is_empty() || key.contains(char::is_whitespace) {
            return Err(format!("invalid label key in selector term `{term}`"));
        }
        Ok(LabelSelectorRequirement {
            key: key.to_owned(),
            operator: operator.to_owned(),
            values: if values.is_empty() { None } else { Some(values) },
        })
    };
    if let Some(key) = term.strip_prefix('!') {
        return requirement(key, "DoesNotExist", Vec::new());
    }
    if let Some((key, value)) = term.split_once("!=") {
        return requirement(key, "NotIn", vec![value.trim().to_owned()]);
    }
    if let Some((key, value)) = term.split_once("==").or_else(|| term.split_once('=')) {
        return requirement(key, "In", vec![value.trim().to_owned()]);
    }
    for (word, operator) in [(" notin ", "NotIn"), (" in ", "In")] {
        if let Some((key, rest)) = term.split_once(word) {
            let values = rest
                .trim()
                .strip_prefix('(')
                .and_then(|r| r.strip_suffix(')'))
                .ok_or_else(|| format!("expected `({}…)` after `{}` in `{term}`", "value,", word.trim()))?;
            let values: Vec<String> =
                values.split(',').map(|v| v.trim().to_owned()).filter(|v| !v.is_empty()).collect();
            if values.is_empty() {
                return Err(format!("empty value set in selector term `{term}`"));
            }
            return requirement(key, operator, values);
        }
    }
    requirement(term, "Exists", Vec::new())
}

#[cfg(test)]
mod tests {
    use super::parse_selector;
    use crate::engine::labels::selector_matches;
    use crate::snapshot::StringMap;

    fn labels(pairs: &[(&str, &str)]) -> StringMap {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn parses_every_kubectl_form() {
        let selector = parse_selector("app=web, tier!=db,env in (prod, staging),zone notin (c),team,!legacy").unwrap();
        let ok = labels(&[("app", "web"), ("env", "prod"), ("zone", "a"), ("team", "x")]);
        assert!(selector_matches(Some(&selector), &ok));
        let mut db = ok.clone();
        db.insert("tier".into(), "db".into());
        assert!(!selector_matches(Some(&selector), &db));
        let mut legacy = ok.clone();
        legacy.insert("legacy".into(), "true".into());
        assert!(!selector_matches(Some(&selector), &legacy));
        assert!(!selector_matches(Some(&selector), &labels(&[("app", "web"), ("env", "dev"), ("team", "x")])));
    }

    #[test]
    fn empty_selects_all_and_errors_name_the_term() {
        assert!(selector_matches(Some(&parse_selector("").unwrap()), &labels(&[])));
        assert!(parse_selector("env in (a").unwrap_err().contains("unbalanced"));
        assert!(parse_selector("env in ()").unwrap_err().contains("empty value set"));
        assert!(parse_selector("=x").unwrap_err().contains("invalid label key"));
    }
}
