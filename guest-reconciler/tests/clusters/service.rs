//! Generated service and batch jobs for the property tests: groups, nodes, allocations of every status and a deployment, built the way the server would leave them.

use proptest::prelude::*;
use slotwise_reconciler::*;

const NOW: i64 = 1_767_225_600_000_000_000;
const SECOND: i64 = 1_000_000_000;

fn update() -> impl Strategy<Value = Option<UpdateStrategy>> {
    prop_oneof![
        Just(None),
        (0u32..5, 0u32..4, any::<bool>()).prop_map(|(max_parallel, canary, auto_promote)| {
            Some(UpdateStrategy {
                max_parallel,
                canary,
                auto_promote,
                auto_revert: false,
                progress_deadline: 600 * SECOND,
            })
        }),
    ]
}

fn reschedule() -> impl Strategy<Value = Option<ReschedulePolicy>> {
    prop_oneof![
        Just(None),
        (
            0u32..4,
            any::<bool>(),
            prop_oneof![
                Just(DelayFunction::Constant),
                Just(DelayFunction::Exponential),
                Just(DelayFunction::Fibonacci)
            ]
        )
            .prop_map(
                |(attempts, unlimited, delay_function)| Some(ReschedulePolicy {
                    attempts,
                    interval: 3_600 * SECOND,
                    delay: 90 * SECOND,
                    delay_function,
                    max_delay: 600 * SECOND,
                    unlimited,
                })
            ),
    ]
}

fn disconnect() -> impl Strategy<Value = Option<DisconnectPolicy>> {
    prop_oneof![
        Just(None),
        (
            prop_oneof![Just(0), Just(300 * SECOND)],
            any::<bool>(),
            prop_oneof![
                Just(ReconnectStrategy::BestScore),
                Just(ReconnectStrategy::LongestRunning),
                Just(ReconnectStrategy::KeepOriginal),
                Just(ReconnectStrategy::KeepReplacement)
            ],
            prop_oneof![Just(None), Just(Some(60 * SECOND))]
        )
            .prop_map(
                |(lost_after, replace, reconcile, stop_on_client_after)| Some(DisconnectPolicy {
                    lost_after,
                    replace,
                    reconcile,
                    stop_on_client_after,
                })
            ),
    ]
}

fn group(name: &'static str) -> impl Strategy<Value = TaskGroup> {
    (0u32..12, update(), reschedule(), disconnect(), 1u64..3).prop_map(
        move |(count, update, reschedule, disconnect, fingerprint)| TaskGroup {
            name: name.to_string(),
            count,
            update,
            reschedule,
            disconnect,
            tasks: vec![Task {
                name: "main".into(),
                leader: false,
                kill_timeout: 5 * SECOND,
            }],
            fingerprint: Fingerprint {
                destructive: fingerprint,
                in_place: fingerprint,
            },
        },
    )
}

fn node_status() -> impl Strategy<Value = NodeStatus> {
    prop_oneof![
        4 => Just(NodeStatus::Ready),
        1 => Just(NodeStatus::Down),
        1 => Just(NodeStatus::Disconnected),
        1 => Just(NodeStatus::Unknown),
        1 => Just(NodeStatus::Initializing),
    ]
}

fn client_status() -> impl Strategy<Value = ClientStatus> {
    prop_oneof![
        1 => Just(ClientStatus::Pending),
        3 => Just(ClientStatus::Running),
        1 => Just(ClientStatus::Complete),
        1 => Just(ClientStatus::Failed),
        1 => Just(ClientStatus::Lost),
        1 => Just(ClientStatus::Unknown),
    ]
}

fn desired_status() -> impl Strategy<Value = DesiredStatus> {
    prop_oneof![6 => Just(DesiredStatus::Run), 1 => Just(DesiredStatus::Stop), 1 => Just(DesiredStatus::Evict)]
}

/// One allocation's variable parts, before ids and links are assigned.
#[derive(Clone, Debug)]
struct Draft {
    index: u32,
    older: bool,
    fingerprint: u64,
    node: usize,
    desired: DesiredStatus,
    client: ClientStatus,
    transition: Option<(bool, bool, bool, bool)>,
    health: Option<(Option<bool>, bool)>,
    in_deployment: bool,
    unknown_since: Option<i64>,
    failed_at: Option<i64>,
    events: Option<u8>,
    followup_is_eval: bool,
    next: Option<usize>,
    score: Option<u8>,
}

fn draft() -> impl Strategy<Value = Draft> {
    (
        (
            0u32..16,
            any::<bool>(),
            1u64..3,
            0usize..6,
            desired_status(),
            client_status(),
        ),
        (
            prop::option::weighted(
                0.2,
                (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
            ),
            prop::option::weighted(0.4, (prop::option::of(any::<bool>()), any::<bool>())),
            any::<bool>(),
            prop::option::weighted(0.3, -600i64..60),
            prop::option::weighted(0.4, -3_600i64..0),
        ),
        (
            prop::option::weighted(0.3, 0u8..4),
            any::<bool>(),
            prop::option::weighted(0.2, 0usize..12),
            prop::option::of(0u8..4),
        ),
    )
        .prop_map(
            |(
                (index, older, fingerprint, node, desired, client),
                (transition, health, in_deployment, unknown_since, failed_at),
                (events, followup_is_eval, next, score),
            )| Draft {
                index,
                older,
                fingerprint,
                node,
                desired,
                client,
                transition,
                health,
                in_deployment,
                unknown_since,
                failed_at,
                events,
                followup_is_eval,
                next,
                score,
            },
        )
}

fn deployment() -> impl Strategy<Value = Option<(DeploymentStatus, bool, bool, u32)>> {
    prop::option::weighted(
        0.6,
        (
            prop_oneof![
                Just(DeploymentStatus::Running),
                Just(DeploymentStatus::Paused),
                Just(DeploymentStatus::Failed),
                Just(DeploymentStatus::Successful),
                Just(DeploymentStatus::Cancelled),
                Just(DeploymentStatus::Pending),
            ],
            any::<bool>(),
            any::<bool>(),
            0u32..3,
        ),
    )
}

/// Any input; `stopped` and `deployment` narrow it down for properties about
/// stopped jobs and held-back deployments.
pub fn input() -> impl Strategy<Value = ReconcileInput> {
    inputs(prop::bool::weighted(0.15).boxed(), deployment().boxed())
}

/// Inputs whose job is stopped, or gone.
pub fn stopped_input() -> impl Strategy<Value = ReconcileInput> {
    inputs(Just(true).boxed(), deployment().boxed())
}

/// Inputs whose current deployment holds new work back.
pub fn held_back_input() -> impl Strategy<Value = ReconcileInput> {
    let held = (
        prop_oneof![
            Just(DeploymentStatus::Paused),
            Just(DeploymentStatus::Failed),
            Just(DeploymentStatus::Pending)
        ],
        Just(true),
        any::<bool>(),
        0u32..3,
    );
    inputs(Just(false).boxed(), held.prop_map(Some).boxed())
}

prop_compose! {
    fn inputs(
        stopped: BoxedStrategy<bool>,
        deployment: BoxedStrategy<Option<(DeploymentStatus, bool, bool, u32)>>,
    )(
        batch in any::<bool>(),
        stopped in stopped,
        absent in prop::bool::weighted(0.05),
        web in group("web"),
        api in prop::option::of(group("api")),
        nodes in prop::collection::vec((node_status(), any::<bool>()), 1..6),
        web_drafts in prop::collection::vec(draft(), 0..14),
        api_drafts in prop::collection::vec(draft(), 0..8),
        removed_drafts in prop::collection::vec(draft(), 0..3),
        deployment in deployment,
        eval in prop_oneof![Just(""), Just("eval-1")],
    ) -> ReconcileInput {
        build(batch, stopped, absent, web, api, nodes, [web_drafts, api_drafts, removed_drafts], deployment, eval)
    }
}

#[allow(clippy::too_many_arguments)]
fn build(
    batch: bool,
    stopped: bool,
    absent: bool,
    web: TaskGroup,
    api: Option<TaskGroup>,
    nodes: Vec<(NodeStatus, bool)>,
    drafts: [Vec<Draft>; 3],
    deployment: Option<(DeploymentStatus, bool, bool, u32)>,
    eval: &str,
) -> ReconcileInput {
    let version = 3;
    let mut groups = vec![web];
    groups.extend(api);
    let names: Vec<String> = groups
        .iter()
        .map(|g| g.name.clone())
        .chain(["gone".to_string()])
        .collect();
    let nodes: Vec<Node> = nodes
        .into_iter()
        .enumerate()
        .map(|(i, (status, draining))| Node {
            id: format!("n{i}"),
            status,
            draining,
            meta: Vec::new(),
        })
        .collect();
    let deployment_id = "d-current";
    let mut allocations = Vec::new();
    let mut canaries = Vec::new();
    for (g, drafts) in drafts.iter().enumerate() {
        let name = &names[g.min(names.len() - 1)];
        if g == 1 && groups.len() < 2 {
            continue;
        }
        let ids: Vec<String> = (0..drafts.len()).map(|i| format!("{name}-a{i}")).collect();
        let list = drafts
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let health = d.health.map(|(healthy, canary)| DeploymentHealth {
                    healthy,
                    canary,
                    changed_at: Some(NOW - 60 * SECOND),
                });
                if health.as_ref().is_some_and(|h| h.canary) && d.in_deployment {
                    canaries.push(ids[i].clone());
                }
                Allocation {
                    spec: AllocationSpec {
                        id: ids[i].clone(),
                        name_index: d.index,
                        job_version: if d.older { version - 1 } else { version },
                        job_create_index: 42,
                        node: (d.node % nodes.len()) as u32,
                        deployment: d.in_deployment.then(|| deployment_id.to_string()),
                        previous_allocation: None,
                        next_allocation: d
                            .next
                            .filter(|&n| n < ids.len() && n != i)
                            .map(|n| ids[n].clone()),
                        create_index: 100 + i as u64,
                        fingerprint: Fingerprint {
                            destructive: d.fingerprint,
                            in_place: d.fingerprint,
                        },
                        placement_score: d.score.map(f64::from),
                    },
                    observed: ObservedState {
                        desired_status: d.desired,
                        client_status: d.client,
                        desired_transition: d.transition.map(
                            |(migrate, reschedule, force_reschedule, migrate_disable_placement)| {
                                DesiredTransition {
                                    migrate,
                                    reschedule,
                                    force_reschedule,
                                    migrate_disable_placement,
                                }
                            },
                        ),
                        health,
                        reschedule: d.events.map(|n| RescheduleTracker {
                            events: (0..n)
                                .map(|k| RescheduleEvent {
                                    at: NOW - i64::from(k + 1) * 600 * SECOND,
                                    delay: 90 * SECOND,
                                })
                                .collect(),
                            last_failed: n == 3,
                        }),
                        followup_eval: d
                            .followup_is_eval
                            .then(|| eval.to_string())
                            .filter(|_| d.index % 3 == 0),
                        client_states: d.unknown_since.map(|s| {
                            vec![ClientStateChange {
                                status: Some(ClientStatus::Unknown),
                                at: NOW + s * SECOND,
                            }]
                        }),
                        tasks: d.failed_at.map(|at| {
                            vec![TaskState {
                                name: "main".into(),
                                state: TaskLifecycle::Dead,
                                failed: d.client == ClientStatus::Failed,
                                started_at: Some(NOW - 7_200 * SECOND),
                                finished_at: Some(NOW + at * SECOND),
                                restarts: 0,
                                last_restart: None,
                            }]
                        }),
                        modify_time: NOW - 3_600 * SECOND,
                        meta: None,
                    },
                    update: None,
                }
            })
            .collect();
        allocations.push(GroupAllocations {
            group: name.clone(),
            allocations: list,
        });
    }
    let job = Job {
        id: "job".into(),
        kind: if batch {
            JobType::Batch
        } else {
            JobType::Service
        },
        version,
        create_index: 42,
        modify_index: 99,
        job_modify_index: 99,
        priority: 50,
        stopped,
        multiregion: false,
        groups: groups.clone(),
        history: Vec::new(),
    };
    let deployment = deployment.map(|(status, current, promoted, desired_canaries)| Deployment {
        id: deployment_id.into(),
        job_id: "job".into(),
        job_version: if current { version } else { version - 1 },
        job_create_index: 42,
        status,
        description: String::new(),
        groups: groups
            .iter()
            .map(|g| DeploymentGroup {
                group: g.name.clone(),
                promoted,
                placed_canaries: canaries
                    .iter()
                    .filter(|c| c.starts_with(&g.name))
                    .cloned()
                    .collect(),
                desired_canaries,
                desired_total: g.count,
                placed_allocs: 0,
                healthy_allocs: 0,
                unhealthy_allocs: 0,
                auto_promote: false,
                auto_revert: false,
                progress_deadline: 0,
            })
            .collect(),
    });
    ReconcileInput {
        job_id: "job".into(),
        job: (!absent).then_some(job),
        nodes,
        allocations,
        deployment,
        eval: Evaluation {
            id: eval.into(),
            priority: 50,
        },
        now: NOW,
        explain: true,
        ext: Vec::new(),
        system: None,
    }
}
