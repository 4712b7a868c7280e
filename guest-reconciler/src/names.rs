//! The WIT names of the contract's enums, for messages and explanations.

use crate::{Classification, PolicyVerdict, Reason};

impl Reason {
    /// The reason's name, as in the WIT.
    pub fn name(self) -> &'static str {
        match self {
            Reason::FillSlot => "fill-slot",
            Reason::RescheduleNow => "reschedule-now",
            Reason::RescheduleLater => "reschedule-later",
            Reason::Lost => "lost",
            Reason::Migrate => "migrate",
            Reason::Canary => "canary",
            Reason::ScaleDown => "scale-down",
            Reason::JobStopped => "job-stopped",
            Reason::GroupRemoved => "group-removed",
            Reason::GroupScaledToZero => "group-scaled-to-zero",
            Reason::InPlaceUpdate => "in-place-update",
            Reason::DestructiveUpdate => "destructive-update",
            Reason::CanaryCancelled => "canary-cancelled",
            Reason::CanaryPromoted => "canary-promoted",
            Reason::ReconnectFailed => "reconnect-failed",
            Reason::ReconnectUnwanted => "reconnect-unwanted",
            Reason::ReconnectSuperseded => "reconnect-superseded",
            Reason::ReplacementSuperseded => "replacement-superseded",
            Reason::Reconnect => "reconnect",
            Reason::Disconnect => "disconnect",
            Reason::DisconnectTimeout => "disconnect-timeout",
            Reason::StopOnClientAfter => "stop-on-client-after",
            Reason::DeploymentCreated => "deployment-created",
            Reason::DeploymentInitializing => "deployment-initializing",
            Reason::DeploymentJobStopped => "deployment-job-stopped",
            Reason::DeploymentSuperseded => "deployment-superseded",
            Reason::DeploymentComplete => "deployment-complete",
            Reason::DeploymentBlocked => "deployment-blocked",
            Reason::DeploymentPending => "deployment-pending",
            Reason::CanariesPromoted => "canaries-promoted",
            Reason::PromotionRefused => "promotion-refused",
            Reason::DeploymentFailedByPolicy => "deployment-failed-by-policy",
            Reason::DeferredByPolicy => "deferred-by-policy",
            Reason::NodeNotTargeted => "node-not-targeted",
            Reason::NodeNotReady => "node-not-ready",
            Reason::Duplicate => "duplicate",
            Reason::ReplacedByCanary => "replaced-by-canary",
            Reason::DeploymentRecounted => "deployment-recounted",
        }
    }
}

impl Classification {
    /// The classification's name, as in the WIT.
    pub fn name(self) -> &'static str {
        match self {
            Classification::Untainted => "untainted",
            Classification::Migrate => "migrate",
            Classification::Lost => "lost",
            Classification::Disconnecting => "disconnecting",
            Classification::Reconnecting => "reconnecting",
            Classification::Ignore => "ignore",
            Classification::Expiring => "expiring",
        }
    }
}

impl PolicyVerdict {
    /// The verdict's name, as in the WIT.
    pub fn name(self) -> &'static str {
        match self {
            PolicyVerdict::Held => "held",
            PolicyVerdict::Adjusted => "adjusted",
            PolicyVerdict::Vetoed => "vetoed",
            PolicyVerdict::Deferred => "deferred",
            PolicyVerdict::Promoted => "promoted",
            PolicyVerdict::Waited => "waited",
            PolicyVerdict::Failed => "failed",
        }
    }
}
