use super::clock::Delays;
use super::{forecast, Limits, Stop};
use crate::testing::{demo, now};

#[test]
fn demo_debug() {
    let f = forecast(demo(), now(), &Delays::default(), Limits::default());
    eprintln!("{f:#?}");
    assert_eq!(f.stop, Stop::Settled);
}
