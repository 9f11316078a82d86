//! `forecast`: rounds after rounds until Karpenter settles (`forecast/`); with `--compare`, a
//! second run on the snapshot as it was read, before the `--set` what-ifs.

use super::{Context, Failure, Outcome};
use crate::cli::{Cli, Command, ForecastArgs};
use crate::forecast::clock::{Delays, Figure};
use crate::forecast::{forecast, forecast_observed, Limits};
use crate::report::{self, Report};
use crate::snapshot::Snapshot;

/// The snapshot before the what-ifs, when `forecast --compare` needs it.
pub(crate) fn baseline(cli: &Cli, snapshot: &Snapshot) -> Option<Snapshot> {
    match &cli.command {
        Command::Forecast(args) if args.compare => Some(snapshot.clone()),
        _ => None,
    }
}

pub(super) fn run(
    ctx: &Context<'_>,
    args: &ForecastArgs,
    snapshot: Snapshot,
    baseline: Option<Snapshot>,
) -> Result<Outcome, Failure> {
    if baseline.is_some() && ctx.overrides.is_empty() {
        return Err(Failure::Usage("forecast --compare needs at least one --set KEY=VALUE to compare".into()));
    }
    let delays = delays(args, ctx.cli.input.pod_startup.0);
    let unread = snapshot.info.unread.clone();
    let limits = Limits { rounds: args.rounds, until: args.until };
    // `--fixes` replays the forecast on copies of the snapshot as it was before this one.
    let read = args.fixes.then(|| snapshot.clone());
    let observed = forecast_observed(snapshot, ctx.now, &delays, limits, ctx.observer);
    let mut with = report::forecast::document(&observed, ctx.overrides, &unread);
    if let Some(read) = read {
        let fixes =
            crate::prescription::forecast::for_forecast(&read, &observed, ctx.now, &delays, limits, ctx.observer);
        report::forecast::attach_prescriptions(&mut with, &fixes);
    }
    with.fixes_asked = args.fixes;
    with.placements = report::placement::views(ctx.placements);
    let report = match baseline {
        None => Report::Forecast(Box::new(with)),
        Some(base) => {
            let without = report::forecast::document(&forecast(base, ctx.now, &delays, limits), &[], &unread);
            Report::ForecastComparison(Box::new(report::forecast::comparison(without, with, ctx.overrides)))
        }
    };
    Ok(Outcome::ok(report))
}

/// The default delays, with the global `--pod-startup` (`diff --forecast`).
pub(crate) fn default_delays(pod_startup: jiff::SignedDuration) -> Delays {
    let d = Delays::default();
    Delays { pod_startup: Figure { value: pod_startup, default: pod_startup == d.pod_startup.value }, ..d }
}

/// The forecast's delays: each flag over its default, the default marked as such.
fn delays(args: &ForecastArgs, pod_startup: jiff::SignedDuration) -> Delays {
    let d = Delays::default();
    Delays {
        launch: d.launch.or_flag(args.launch_delay),
        validation: d.validation.or_flag(args.validation_delay),
        // `--pod-startup` is global (explain and plan read it too); its default is stated there.
        pod_startup: Figure { value: pod_startup, default: pod_startup == d.pod_startup.value },
        termination_grace: d.termination_grace.or_flag(args.termination_grace),
        ..d
    }
}
