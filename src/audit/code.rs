//! The `pdb-audit` finding codes (docs/DESIGN.md's pdb-audit table): each code's severity and the
//! upstream function it is about. Codes are an interface: never rename one. Each code's rule
//! lives in `rules/<code in snake_case>.rs`.

use std::fmt;

use super::finding::Severity;
use crate::upstream::{self, Upstream};

/// A `pdb-audit` finding code. The variant order is the tie-break order of findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FindingCode {
    SingleReplicaEvictable,
    MultiplePdbs,
    DrainBlocked,
    CurrentlyBlocking,
    Crowded,
    LooserThanIntended,
    NoMatchingPods,
    NoPdb,
    GracePeriodOverrides,
}

impl FindingCode {
    /// Every code, in table order.
    pub const ALL: [FindingCode; 9] = [
        FindingCode::SingleReplicaEvictable,
        FindingCode::MultiplePdbs,
        FindingCode::DrainBlocked,
        FindingCode::CurrentlyBlocking,
        FindingCode::Crowded,
        FindingCode::LooserThanIntended,
        FindingCode::NoMatchingPods,
        FindingCode::NoPdb,
        FindingCode::GracePeriodOverrides,
    ];

    pub fn severity(self) -> Severity {
        match self {
            FindingCode::SingleReplicaEvictable | FindingCode::MultiplePdbs => Severity::Critical,
            FindingCode::DrainBlocked | FindingCode::CurrentlyBlocking | FindingCode::Crowded => Severity::Warning,
            FindingCode::LooserThanIntended
            | FindingCode::NoMatchingPods
            | FindingCode::NoPdb
            | FindingCode::GracePeriodOverrides => Severity::Info,
        }
    }

    /// The upstream function whose behaviour the finding is about.
    pub fn upstream(self) -> Upstream {
        match self {
            FindingCode::SingleReplicaEvictable
            | FindingCode::DrainBlocked
            | FindingCode::Crowded
            | FindingCode::LooserThanIntended
            | FindingCode::NoMatchingPods => upstream::PDB_DISRUPTIONS,
            FindingCode::CurrentlyBlocking | FindingCode::MultiplePdbs | FindingCode::NoPdb => upstream::CAN_EVICT_PODS,
            FindingCode::GracePeriodOverrides => upstream::DELETE_EXPIRING_PODS,
        }
    }

    /// The code as documents spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            FindingCode::SingleReplicaEvictable => "SingleReplicaEvictable",
            FindingCode::MultiplePdbs => "MultiplePDBs",
            FindingCode::DrainBlocked => "DrainBlocked",
            FindingCode::CurrentlyBlocking => "CurrentlyBlocking",
            FindingCode::Crowded => "Crowded",
            FindingCode::LooserThanIntended => "LooserThanIntended",
            FindingCode::NoMatchingPods => "NoMatchingPods",
            FindingCode::NoPdb => "NoPDB",
            FindingCode::GracePeriodOverrides => "GracePeriodOverrides",
        }
    }
}

impl fmt::Display for FindingCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
