//! Generated clusters for the system job properties: nodes in every state, allocations of several versions, deployments at every stage, and how plans are read against them.

use proptest::prelude::*;
use slotwise_reconciler::*;

pub const NOW: i64 = 1_767_225_600_000_000_000;
pub const HOUR: i64 = 3_600_000_000_000;

// ---------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------

/// A group's variable parts.
#[derive(Clone, Debug)]
pub struct GroupDraft {
    pub count: u32,
    /// Max-parallel and canary percentage, when the group has a strategy.
    pub update: Option<(u32, u32)>,
    pub lost_after: Option<i64>,
}

/// An allocation's variable parts; its node is the node it is drafted on.
#[derive(Clone, Debug)]
pub struct AllocDraft {
    pub group: usize,
    pub index: u32,
    pub older: bool,
    /// 0: current definition; 1: changed in place; 2: changed destructively.
    pub outdated: u8,
    pub client: ClientStatus,
    pub desired: DesiredStatus,
    pub migrate: bool,
    pub canary: bool,
    pub healthy: Option<bool>,
    pub in_deployment: bool,
    pub unknown_since: Option<i64>,
    pub ran_successfully: bool,
}

/// How the scheduler sees a ready, undrained node.
#[derive(Clone, Copy, Debug)]
pub enum Standing {
    Eligible,
    Ineligible,
    NotTargeted,
}

#[derive(Clone, Debug)]
pub struct NodeDraft {
    pub status: NodeStatus,
    pub draining: bool,
    pub standing: Standing,
    pub allocs: Vec<AllocDraft>,
}

/// The deployment: its status, whether it deploys the job's version,
/// whether the canaries were promoted, the desired canaries and the healthy
/// allocations per group.
pub type DeploymentDraft = Option<(DeploymentStatus, bool, bool, u32, u32)>;

pub fn group_draft(sysbatch: bool, rollout: bool) -> impl Strategy<Value = GroupDraft> {
    let counts = if sysbatch { 0u32..4 } else { 0u32..2 };
    let percent = prop_oneof![Just(10u32), Just(30), Just(50), Just(100)];
    let update = if rollout {
        (1u32..5, percent).prop_map(Some).boxed()
    } else {
        prop_oneof![
            Just(None),
            (0u32..4, prop_oneof![Just(0u32), percent]).prop_map(Some),
        ]
        .boxed()
    };
    let lost_after = prop_oneof![Just(None), Just(Some(0)), Just(Some(HOUR))];
    (counts, update, lost_after).prop_map(|(count, update, lost_after)| GroupDraft {
        count,
        update,
        lost_after,
    })
}

pub fn alloc_draft(groups: usize, rollout: bool) -> impl Strategy<Value = AllocDraft> {
    let outdated = if rollout {
        prop_oneof![1 => Just(0u8), 3 => Just(2u8)].boxed()
    } else {
        (0u8..3).boxed()
    };
    let client = prop_oneof![
        1 => Just(ClientStatus::Pending),
        5 => Just(ClientStatus::Running),
        1 => Just(ClientStatus::Complete),
        1 => Just(ClientStatus::Failed),
        1 => Just(ClientStatus::Lost),
        1 => Just(ClientStatus::Unknown),
    ];
    let desired = prop_oneof![
        8 => Just(DesiredStatus::Run),
        1 => Just(DesiredStatus::Stop),
        1 => Just(DesiredStatus::Evict),
    ];
    let unknown_since = prop_oneof![3 => Just(None), 1 => Just(Some(NOW - 60_000_000_000)), 1 => Just(Some(NOW - 10 * HOUR))];
    (
        (
            0..groups,
            prop_oneof![4 => Just(0u32), 1 => 1u32..4],
            any::<bool>(),
            outdated,
        ),
        (client, desired, any::<bool>(), any::<bool>()),
        (
            prop_oneof![Just(None), any::<bool>().prop_map(Some)],
            any::<bool>(),
            unknown_since,
            any::<bool>(),
        ),
    )
        .prop_map(
            |(
                (group, index, older, outdated),
                (client, desired, migrate, canary),
                (healthy, in_deployment, unknown_since, ran_successfully),
            )| AllocDraft {
                group,
                index,
                older,
                outdated,
                client,
                desired,
                migrate: migrate && index % 2 == 0,
                canary,
                healthy,
                in_deployment,
                unknown_since,
                ran_successfully,
            },
        )
}

pub fn node_draft(groups: usize, rollout: bool) -> impl Strategy<Value = NodeDraft> {
    let status = prop_oneof![
        6 => Just(NodeStatus::Ready),
        1 => Just(NodeStatus::Down),
        1 => Just(NodeStatus::Disconnected),
        1 => Just(NodeStatus::Initializing),
        1 => Just(NodeStatus::Unknown),
    ];
    let standing = prop_oneof![
        8 => Just(Standing::Eligible),
        1 => Just(Standing::Ineligible),
        1 => Just(Standing::NotTargeted),
    ];
    (
        status,
        prop::bool::weighted(0.15),
        standing,
        prop::collection::vec(alloc_draft(groups, rollout), 0..3),
    )
        .prop_map(|(status, draining, standing, allocs)| NodeDraft {
            status,
            draining,
            standing,
            allocs,
        })
}

pub fn deployment_draft() -> impl Strategy<Value = DeploymentDraft> {
    let status = prop_oneof![
        4 => Just(DeploymentStatus::Running),
        1 => Just(DeploymentStatus::Paused),
        1 => Just(DeploymentStatus::Failed),
        1 => Just(DeploymentStatus::Successful),
        1 => Just(DeploymentStatus::Cancelled),
    ];
    prop_oneof![
        1 => Just(None),
        2 => (status, any::<bool>(), any::<bool>(), 0u32..4, 0u32..6).prop_map(Some),
    ]
}

/// A system or sysbatch job on a generated cluster.
pub fn input() -> impl Strategy<Value = ReconcileInput> {
    cluster(false)
}

/// A job version rolling out under canaries: every group has a strategy
/// with canaries, and the deployment, if any, deploys the version and has
/// not promoted them.
pub fn rollout_input() -> impl Strategy<Value = ReconcileInput> {
    cluster(true)
}

pub fn cluster(rollout: bool) -> impl Strategy<Value = ReconcileInput> {
    (any::<bool>(), 1usize..4).prop_flat_map(move |(sysbatch, groups)| {
        let deployment = if rollout {
            (0u32..4, 0u32..6)
                .prop_map(|(c, h)| Some((DeploymentStatus::Running, true, false, c, h)))
                .boxed()
        } else {
            deployment_draft().boxed()
        };
        let (versions, stop_chance) = if rollout {
            (1u64..3, 0.0)
        } else {
            (0u64..3, 0.1)
        };
        (
            Just(sysbatch),
            prop::collection::vec(group_draft(sysbatch, rollout), groups),
            prop::collection::vec(node_draft(groups, rollout), 0..24),
            deployment,
            (
                versions,
                prop::bool::weighted(stop_chance),
                prop::bool::weighted(stop_chance / 2.0),
            ),
        )
            .prop_map(
                |(sysbatch, groups, nodes, deployment, (version, stopped, absent))| {
                    build(
                        sysbatch, &groups, &nodes, deployment, version, stopped, absent,
                    )
                },
            )
    })
}

/// A system or sysbatch job that was stopped, or purged.
pub fn stopped_input() -> impl Strategy<Value = ReconcileInput> {
    (input(), prop::bool::weighted(0.2)).prop_map(|(mut input, purged)| {
        match &mut input.job {
            Some(_) if purged => input.job = None,
            Some(job) => job.stopped = true,
            None => {}
        }
        input
    })
}

pub fn build(
    sysbatch: bool,
    groups: &[GroupDraft],
    drafts: &[NodeDraft],
    deployment: DeploymentDraft,
    version: u64,
    stopped: bool,
    absent: bool,
) -> ReconcileInput {
    let task_groups: Vec<TaskGroup> = groups
        .iter()
        .enumerate()
        .map(|(g, d)| TaskGroup {
            name: format!("g{g}"),
            count: d.count,
            update: d.update.map(|(max_parallel, canary)| UpdateStrategy {
                max_parallel,
                canary,
                auto_promote: false,
                auto_revert: false,
                progress_deadline: HOUR,
            }),
            reschedule: None,
            disconnect: d.lost_after.map(|lost_after| DisconnectPolicy {
                lost_after,
                replace: true,
                reconcile: ReconnectStrategy::BestScore,
                stop_on_client_after: None,
            }),
            tasks: vec![Task {
                name: "main".into(),
                leader: false,
                kill_timeout: 5_000_000_000,
            }],
            fingerprint: Fingerprint {
                destructive: 2,
                in_place: 2,
            },
        })
        .collect();
    let mut nodes = Vec::new();
    let mut system = SystemNodes {
        eligible: Vec::new(),
        not_ready: Vec::new(),
    };
    let mut allocations: Vec<GroupAllocations> = task_groups
        .iter()
        .map(|g| GroupAllocations {
            group: g.name.clone(),
            allocations: Vec::new(),
        })
        .collect();
    for (k, d) in drafts.iter().enumerate() {
        let position = k as u32;
        nodes.push(Node {
            id: format!("n{k:02}"),
            status: d.status,
            draining: d.draining,
            meta: Vec::new(),
        });
        let ready = d.status == NodeStatus::Ready && !d.draining;
        match (ready, d.standing) {
            (true, Standing::Eligible) => system.eligible.push(position),
            (true, Standing::NotTargeted) => {}
            (_, _) if d.status == NodeStatus::Unknown => {}
            _ => system.not_ready.push(position),
        }
        for (j, a) in d.allocs.iter().enumerate() {
            let id = format!("g{}-n{k:02}-{j}", a.group);
            allocations[a.group]
                .allocations
                .push(allocation(id, position, a, version));
        }
    }
    let job = Job {
        id: "job".into(),
        kind: if sysbatch {
            JobType::Sysbatch
        } else {
            JobType::System
        },
        version,
        create_index: 42,
        modify_index: 99,
        job_modify_index: 99,
        priority: 50,
        stopped,
        multiregion: false,
        groups: task_groups.clone(),
        history: Vec::new(),
    };
    let deployment = deployment.map(
        |(status, current, promoted, canaries, healthy)| Deployment {
            id: "deployment-1".into(),
            job_id: "job".into(),
            job_version: if current { version } else { version + 1 },
            job_create_index: 42,
            status,
            description: String::new(),
            groups: task_groups
                .iter()
                .map(|g| DeploymentGroup {
                    group: g.name.clone(),
                    promoted,
                    placed_canaries: Vec::new(),
                    desired_canaries: canaries,
                    desired_total: 0,
                    placed_allocs: 0,
                    healthy_allocs: healthy,
                    unhealthy_allocs: 0,
                    auto_promote: false,
                    auto_revert: false,
                    progress_deadline: HOUR,
                })
                .collect(),
        },
    );
    ReconcileInput {
        job_id: "job".into(),
        job: (!absent).then_some(job),
        nodes,
        allocations,
        deployment,
        eval: Evaluation {
            id: "eval".into(),
            priority: 50,
        },
        now: NOW,
        explain: false,
        ext: Vec::new(),
        system: Some(system),
    }
}

pub fn allocation(id: String, node: u32, a: &AllocDraft, version: u64) -> Allocation {
    let fingerprint = match a.outdated {
        0 => Fingerprint {
            destructive: 2,
            in_place: 2,
        },
        1 => Fingerprint {
            destructive: 2,
            in_place: 3,
        },
        _ => Fingerprint {
            destructive: 3,
            in_place: 2,
        },
    };
    Allocation {
        spec: AllocationSpec {
            id,
            name_index: a.index,
            job_version: if a.older {
                version.saturating_sub(1)
            } else {
                version
            },
            job_create_index: 42,
            node,
            deployment: a.in_deployment.then(|| "deployment-1".to_string()),
            previous_allocation: None,
            next_allocation: None,
            create_index: 100,
            fingerprint,
            placement_score: None,
        },
        observed: ObservedState {
            desired_status: a.desired,
            client_status: a.client,
            desired_transition: a.migrate.then_some(DesiredTransition {
                migrate: true,
                reschedule: false,
                force_reschedule: false,
                migrate_disable_placement: false,
            }),
            health: (a.canary || a.healthy.is_some()).then_some(DeploymentHealth {
                healthy: a.healthy,
                canary: a.canary,
                changed_at: None,
            }),
            reschedule: None,
            followup_eval: None,
            client_states: a.unknown_since.map(|at| {
                vec![ClientStateChange {
                    status: Some(ClientStatus::Unknown),
                    at,
                }]
            }),
            tasks: a.ran_successfully.then(|| {
                vec![TaskState {
                    name: "main".into(),
                    state: TaskLifecycle::Dead,
                    failed: false,
                    started_at: None,
                    finished_at: Some(NOW - HOUR),
                    restarts: 0,
                    last_restart: None,
                }]
            }),
            modify_time: 0,
            meta: None,
        },
        update: None,
    }
}

// ---------------------------------------------------------------------------
// Reading plans
// ---------------------------------------------------------------------------

pub fn plan(input: &ReconcileInput) -> Plan {
    match reconcile(input) {
        Ok(plan) => plan,
        Err(e) => panic!("generated input refused: {}: {}", e.field, e.message),
    }
}

pub fn is_live(a: &Allocation) -> bool {
    let o = &a.observed;
    matches!(o.desired_status, DesiredStatus::Run)
        && !matches!(
            o.client_status,
            ClientStatus::Complete | ClientStatus::Failed | ClientStatus::Lost
        )
}

pub fn eligible(input: &ReconcileInput) -> &[u32] {
    input.system.as_ref().map_or(&[], |s| &s.eligible)
}

/// Whether a node is tainted: down, disconnected, gone or draining.
pub fn tainted(node: &Node) -> bool {
    node.draining
        || matches!(
            node.status,
            NodeStatus::Down | NodeStatus::Disconnected | NodeStatus::Unknown
        )
}

/// The canaries a group's strategy allows on `slots` slots: the percentage
/// of them, rounded up, and at most max-parallel.
pub fn canary_bound(update: &UpdateStrategy, slots: usize) -> u32 {
    let rounded_up = (u64::from(update.canary) * slots as u64).div_ceil(100);
    rounded_up.min(u64::from(update.max_parallel)) as u32
}

/// Checks that after `plan`, every node runs at most one live allocation of
/// a group per slot.
pub fn at_most_one_live_per_slot(input: &ReconcileInput, plan: &Plan) -> Result<(), TestCaseError> {
    for (group, g) in input.allocations.iter().zip(&plan.groups) {
        prop_assert_eq!(&group.group, &g.group);
        let stopped: Vec<&str> = g.stops.iter().map(|s| s.allocation.as_str()).collect();
        let mut live: std::collections::BTreeMap<(u32, u32), u32> = Default::default();
        for a in group.allocations.iter().filter(|a| is_live(a)) {
            if !stopped.contains(&a.spec.id.as_str()) {
                *live.entry((a.spec.node, a.spec.name_index)).or_default() += 1;
            }
        }
        for p in &g.placements {
            let node = p.node.expect("a system placement names its node");
            *live.entry((node, p.name_index)).or_default() += 1;
        }
        for ((node, index), n) in live {
            prop_assert!(
                n <= 1,
                "{} allocations of {} in slot {} on node {}",
                n,
                g.group,
                index,
                node
            );
        }
    }
    Ok(())
}
