//! Outcomes that exercise every part of the plan the hand-written reader and writer take, for their tests.

use crate::*;

/// What a reconcile answers.
pub(super) type Outcome = Result<Plan, InputError>;

/// A plan with an item in every list the reader takes by hand, every
/// option of theirs set once and once not, and integers that take
/// multi-byte varints.
fn full() -> Plan {
    let update = |followup: Option<&str>| AllocationUpdate {
        allocation: "a-é".into(),
        name_index: 300,
        followup_eval: followup.map(Into::into),
        reason: Reason::Reconnect,
        message: "m".into(),
    };
    Plan {
        groups: vec![GroupPlan {
            group: "web".into(),
            counters: DesiredUpdates {
                ignore: 1,
                place: 2,
                migrate: 3,
                stop: 4,
                in_place: 5,
                destructive: 6,
                canary: 7,
                reschedule_now: 8,
                reschedule_later: 9,
                disconnect: 10,
                reconnect: u32::MAX,
            },
            placements: vec![
                Placement {
                    name_index: u32::MAX,
                    canary: true,
                    previous_allocation: Some("p".into()),
                    reschedule: true,
                    previous_lost: false,
                    downgrade_non_canary: true,
                    min_job_version: u64::MAX,
                    reason: Reason::RescheduleNow,
                    message: "replaces p".into(),
                    node: Some(70_000),
                },
                Placement {
                    name_index: 0,
                    canary: false,
                    previous_allocation: None,
                    reschedule: false,
                    previous_lost: true,
                    downgrade_non_canary: false,
                    min_job_version: 0,
                    reason: Reason::FillSlot,
                    message: String::new(),
                    node: None,
                },
            ],
            stops: vec![Stop {
                allocation: "s".into(),
                name_index: 128,
                client_status: Some(ClientStatus::Lost),
                followup_eval: Some("f".into()),
                reason: Reason::Lost,
                message: "node down".into(),
            }],
            in_place_updates: vec![update(None)],
            destructive_updates: vec![DestructiveUpdate {
                allocation: "d".into(),
                name_index: 1,
                reason: Reason::DestructiveUpdate,
                message: "replaced".into(),
            }],
            attribute_updates: vec![update(Some("f"))],
            disconnect_updates: vec![update(None)],
            reconnect_updates: vec![update(Some("g"))],
            followup_evals: vec![FollowupEval {
                id: "f".into(),
                trigger: EvalTrigger::MaxDisconnectTimeout,
                wait_until: -5,
                description: "later".into(),
                priority: 50,
                job_modify_index: 1 << 40,
                reason: Reason::RescheduleLater,
                message: "m".into(),
            }],
            slots: Vec::new(),
        }],
        deployment: None,
        deployment_updates: Vec::new(),
        promotions: Vec::new(),
        policy_actions: Vec::new(),
        plugin_failures: Vec::new(),
        steps: vec![
            StepReport {
                step: "validate".into(),
                group: None,
                status: StepStatus::Done,
                message: "1 allocation".into(),
            },
            StepReport {
                step: "rollout".into(),
                group: Some("web".into()),
                status: StepStatus::Waiting,
                message: String::new(),
            },
        ],
        ext: Vec::new(),
        plugin_logs: Vec::new(),
    }
}

pub(super) fn outcomes() -> [Outcome; 2] {
    [
        Ok(full()),
        Err(InputError {
            field: "now".into(),
            message: "m".into(),
        }),
    ]
}
