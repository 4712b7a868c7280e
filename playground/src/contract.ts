/** The reconciler's input and plan in slotwise's JSON rendering (the CLI's), as far as the playground reads them. */

// Integers beyond 2^53 (times in nanoseconds) are BigInt in this rendering;
// smaller ones may be either, so arithmetic goes through BigInt.
export type Int = number | bigint;

export type NodeStatus = 'ready' | 'initializing' | 'down' | 'disconnected' | 'unknown';
export type ClientStatus = 'pending' | 'running' | 'complete' | 'failed' | 'lost' | 'unknown';
export type DesiredStatus = 'run' | 'stop' | 'evict';
export type DeploymentStatus =
  | 'running'
  | 'paused'
  | 'failed'
  | 'successful'
  | 'cancelled'
  | 'initializing'
  | 'pending'
  | 'blocked'
  | 'unblocking';

export interface Fingerprint {
  destructive: Int;
  'in-place': Int;
}

export interface TaskGroup {
  name: string;
  count: number;
  update: { 'max-parallel': number; canary: number; 'auto-promote': boolean } | null;
  fingerprint: Fingerprint;
  [field: string]: unknown;
}

export interface Job {
  id: string;
  version: Int;
  'create-index': Int;
  stopped: boolean;
  groups: TaskGroup[];
  history: { version: Int; groups: TaskGroup[] }[];
  [field: string]: unknown;
}

export interface ClusterNode {
  id: string;
  status: NodeStatus;
  draining: boolean;
  meta: [string, string][];
}

export interface DeploymentHealth {
  healthy: boolean | null;
  canary: boolean;
  'changed-at': Int | null;
}

export interface Allocation {
  spec: {
    id: string;
    'name-index': number;
    'job-version': Int;
    'job-create-index': Int;
    node: number;
    deployment: string | null;
    'previous-allocation': string | null;
    'next-allocation': string | null;
    'create-index': Int;
    fingerprint: Fingerprint;
    'placement-score': number | null;
  };
  observed: {
    'desired-status': DesiredStatus;
    'client-status': ClientStatus;
    'desired-transition': Record<string, boolean> | null;
    health: DeploymentHealth | null;
    reschedule: { events: { at: Int; delay: Int }[]; 'last-failed': boolean } | null;
    'followup-eval': string | null;
    'client-states': { status: ClientStatus; at: Int }[] | null;
    tasks: unknown[] | null;
    'modify-time': Int;
    meta: [string, string][] | null;
  };
  update: string | null;
}

export interface DeploymentGroup {
  group: string;
  promoted: boolean;
  'placed-canaries': string[];
  'desired-canaries': number;
  'desired-total': number;
  'placed-allocs': number;
  'healthy-allocs': number;
  'unhealthy-allocs': number;
  'auto-promote': boolean;
  'auto-revert': boolean;
  'progress-deadline': Int;
}

export interface Deployment {
  id: string;
  'job-id': string;
  'job-version': Int;
  'job-create-index': Int;
  status: DeploymentStatus;
  description: string;
  groups: DeploymentGroup[];
}

export interface SlotExt {
  plugin: string;
  group: string;
  slot: number;
  /** For a node slot of a system job: the node's id. */
  node: string | null;
  data: number[];
}

export interface ReconcileInput {
  'job-id': string;
  job: Job | null;
  nodes: ClusterNode[];
  allocations: { group: string; allocations: Allocation[] }[];
  deployment: Deployment | null;
  eval: { id: string; priority: number };
  now: Int;
  explain: boolean;
  ext: SlotExt[];
  /** For system and sysbatch jobs: the nodes they run on, by position in `nodes`. */
  system: SystemNodes | null;
}

/** The nodes a system job runs on, as the scheduler computed them. */
export interface SystemNodes {
  eligible: number[];
  'not-ready': number[];
}

/** What every decision of a plan carries. */
export interface Decision {
  reason: string;
  message: string;
}

export interface Placement extends Decision {
  'name-index': number;
  canary: boolean;
  'previous-allocation': string | null;
  reschedule: boolean;
  'previous-lost': boolean;
  'downgrade-non-canary': boolean;
  'min-job-version': Int;
  /** Where it goes, for system jobs: a position in the input's nodes. */
  node: number | null;
}

export interface Stop extends Decision {
  allocation: string;
  'name-index': number;
  'client-status': ClientStatus | null;
  'followup-eval': string | null;
}

export interface AllocationUpdate extends Decision {
  allocation: string;
  'name-index': number;
  'followup-eval': string | null;
}

export interface DestructiveUpdate extends Decision {
  allocation: string;
  'name-index': number;
}

export interface FollowupEval extends Decision {
  id: string;
  trigger: string;
  'wait-until': Int;
  description: string;
}

export interface CandidateReport {
  allocation: string;
  classification: string | null;
  rule: string;
  outcome: string;
}

export interface SlotReport {
  index: number;
  'within-count': boolean;
  candidates: CandidateReport[];
  decision: string;
  policy: string[];
  /** The slot's node, for system jobs. */
  node: number | null;
}

export interface GroupPlan {
  group: string;
  counters: Record<string, number>;
  placements: Placement[];
  stops: Stop[];
  'in-place-updates': AllocationUpdate[];
  'destructive-updates': DestructiveUpdate[];
  'attribute-updates': AllocationUpdate[];
  'disconnect-updates': AllocationUpdate[];
  'reconnect-updates': AllocationUpdate[];
  'followup-evals': FollowupEval[];
  slots: SlotReport[];
}

/** The deployment a plan creates: a deployment, with the reason it is created. */
export interface NewDeployment extends Deployment, Decision {}

export interface DeploymentUpdate extends Decision {
  deployment: string;
  status: DeploymentStatus;
  description: string;
}

export interface PromotionOutcome extends Decision {
  deployment: string;
  group: string;
  promoted: boolean;
}

export interface PolicyAction {
  plugin: string;
  group: string;
  slot: number | null;
  /** For a node slot of a system job: a position in the input's nodes. */
  node: number | null;
  verdict: string;
  reason: string;
  applied: boolean;
}

export interface PluginFailure {
  plugin: string;
  hook: string;
  group: string | null;
  slot: number | null;
  /** For a node slot of a system job: a position in the input's nodes. */
  node: number | null;
  cause: string;
}

export interface StepReport {
  step: string;
  group: string | null;
  status: 'done' | 'skipped' | 'waiting';
  message: string;
}

export interface Plan {
  groups: GroupPlan[];
  deployment: NewDeployment | null;
  'deployment-updates': DeploymentUpdate[];
  promotions: PromotionOutcome[];
  'policy-actions': PolicyAction[];
  'plugin-failures': PluginFailure[];
  steps: StepReport[];
  ext: SlotExt[];
  'plugin-logs': PluginLog[];
}

/** A line a plugin logged, with where it was asked. */
export interface PluginLog {
  plugin: string;
  hook: string;
  group: string | null;
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
}
