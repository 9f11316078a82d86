//! `budgets`' week view: per NodePool and reason, one calendar row of the seven days from the
//! start of the snapshot's day, marking when the budgets let a disruption through. Hours are
//! UTC, the zone Karpenter evaluates every schedule in, and the title says so. The columns are
//! the finest hours that fit the width (an hour each when piped). Only layout.

use super::fit::visible_width;
use super::Styles;
use crate::report::budgets::{Budgets, Week, WEEK_STEP_MINUTES};

/// Hours a column may cover, finest first (each divides a day).
const COLUMN_HOURS: [usize; 8] = [1, 2, 3, 4, 6, 8, 12, 24];

/// The calendar, with its title and legend; empty without a week or a row.
pub(super) fn week(b: &Budgets, styles: &Styles, width: Option<usize>) -> String {
    let Some(week) = &b.week else { return String::new() };
    if week.rows.is_empty() {
        return String::new();
    }
    let pool_width = week.rows.iter().map(|r| visible_width(&r.node_pool)).max().unwrap_or(0);
    let reason_width = week.rows.iter().map(|r| r.reason.len()).max().unwrap_or(0);
    let label_width = pool_width + 2 + reason_width;
    let room = width.map_or(usize::MAX, |w| w.saturating_sub(label_width + 2));
    let hours = COLUMN_HOURS.iter().copied().find(|h| 7 * 24 / h <= room).unwrap_or(24);
    let (open, partly, closed) = if styles.blocks { ('█', '▌', '·') } else { ('#', '+', '.') };
    let mut out = format!(
        "\nWeek from {}, {hours}h a column (Karpenter evaluates budget schedules in UTC)\n\
         {open} lets a disruption through   {partly} for part of the column   {closed} lets none\n",
        week.starts.strftime("%a %Y-%m-%d %H:%M UTC"),
    );
    out.push_str(&format!("{}  {}\n", " ".repeat(label_width), ruler(week, hours)));
    let mut last_pool = "";
    for row in &week.rows {
        let pool = if row.node_pool == last_pool { String::new() } else { row.node_pool.clone() };
        last_pool = &row.node_pool;
        let steps_per_column = hours * 60 / WEEK_STEP_MINUTES as usize;
        let marks: Vec<(char, owo_colors::Style)> = row
            .open
            .chunks(steps_per_column)
            .map(|c| {
                let n = c.iter().filter(|o| **o).count();
                if n == c.len() {
                    (open, styles.ok)
                } else if n > 0 {
                    (partly, styles.warning)
                } else {
                    (closed, styles.dim)
                }
            })
            .collect();
        // One escape code per run of equal marks, not per column.
        let cells: String = marks
            .chunk_by(|a, b| a.0 == b.0)
            .map(|run| Styles::paint(run[0].1, run.iter().map(|m| m.0).collect::<String>()))
            .collect();
        let label = format!("{pool}{}  {}", " ".repeat(pool_width - visible_width(&pool)), row.reason);
        out.push_str(&format!("{label}{}  {cells}\n", " ".repeat(label_width - visible_width(&label))));
    }
    out
}

/// The days over their columns: `Sun 29` when a day is wide enough, `Sun`, or its first letter.
fn ruler(week: &Week, hours: usize) -> String {
    let per_day = 24 / hours;
    let mut out = String::new();
    for d in 0..7 {
        let day = week.starts + jiff::SignedDuration::from_hours(24 * d);
        let label: String = match per_day {
            7.. => day.strftime("%a %d").to_string(),
            4..=6 => day.strftime("%a").to_string(),
            _ => day.strftime("%a").to_string().chars().take(per_day).collect(),
        };
        out.push_str(&format!("{label:<per_day$}"));
    }
    out.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::{ruler, week};
    use crate::render::Styles;
    use crate::report::budgets::{Budgets, Week, WeekRow, WEEK_STEPS};

    fn budgets(open: Vec<bool>) -> Budgets {
        let starts: jiff::Timestamp = "2026-11-29T00:00:00Z".parse().unwrap();
        Budgets {
            api_version: "v",
            kind: "Budgets",
            captured_at: starts,
            node_pools: Vec::new(),
            uncertain: Vec::new(),
            selection: None,
            week: Some(Week { starts, rows: vec![WeekRow { node_pool: "default".into(), reason: "Drifted", open }] }),
        }
    }

    #[test]
    fn a_window_every_day_from_nine_to_eleven_shows_in_each_day() {
        let open: Vec<bool> = (0..WEEK_STEPS).map(|i| (36..44).contains(&(i % 96))).collect();
        let text = week(&budgets(open), &Styles::plain(), None);
        let row = text.lines().find(|l| l.starts_with("default")).expect("row");
        let cells = row.split("  ").last().unwrap();
        assert_eq!(cells.len(), 168, "an hour a column when piped: {row}");
        assert_eq!(&cells[..24], ".........##.............", "{row}");
        assert!(text.contains("UTC"), "{text}");
    }

    #[test]
    fn a_narrow_screen_groups_hours_and_marks_a_part_open_column() {
        let open: Vec<bool> = (0..WEEK_STEPS).map(|i| (36..44).contains(&(i % 96))).collect();
        let text = week(&budgets(open), &Styles::plain(), Some(80));
        let row = text.lines().find(|l| l.starts_with("default")).expect("row");
        assert!(row.chars().count() <= 80, "{row}");
        let cells = row.split("  ").last().unwrap();
        assert_eq!(cells.len(), 56, "three hours a column: {row}");
        assert_eq!(&cells[..8], "...+....", "09-12 holds 09-11 open: {row}");
    }

    #[test]
    fn the_ruler_names_each_day() {
        let starts: jiff::Timestamp = "2026-11-29T00:00:00Z".parse().unwrap();
        let w = Week { starts, rows: Vec::new() };
        assert!(ruler(&w, 3).starts_with("Sun 29  Mon 30  Tue 01"), "{}", ruler(&w, 3));
        assert!(ruler(&w, 6).starts_with("Sun Mon Tue"), "{}", ruler(&w, 6));
    }
}
