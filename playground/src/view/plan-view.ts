/** The plan of a round: per group a slot table with candidates, decisions and what plugins changed, the counters, the deployment, follow-ups and the step report. */

import type { Allocation, ClusterNode, GroupPlan, Plan, ReconcileInput, SlotReport } from '../contract.ts';
import type { Outcome } from '../rounds.ts';
import { clock, relative } from '../time.ts';
import { h } from './dom.ts';

/** One change a plan makes in a slot, as the CLI's table lists it. */
interface Change {
  kind: string;
  slot: number;
  /** The slot's node, for system jobs, whose slots are a node and an index. */
  node: number | null;
  allocation: string | null;
  reason: string;
  message: string;
}

/**
 * Every change of a group's plan, in the CLI table's order of lists. `nodeOf`
 * gives, for a system job, the node of an allocation the plan names.
 */
function changesOf(group: GroupPlan, nodeOf: (allocation: string) => number | null): Change[] {
  const of = (kind: string, list: { 'name-index': number; allocation?: string; reason: string; message: string }[]) =>
    list.map((d) => ({
      kind,
      slot: d['name-index'],
      node: d.allocation === undefined ? null : nodeOf(d.allocation),
      allocation: d.allocation ?? null,
      reason: d.reason,
      message: d.message,
    }));
  return [
    ...group.placements.map((p) => ({
      kind: p.canary ? 'place canary' : 'place',
      slot: p['name-index'],
      node: p.node,
      allocation: p['previous-allocation'],
      reason: p.reason,
      message: p.message,
    })),
    ...of('stop', group.stops),
    ...of('in-place', group['in-place-updates']),
    ...of('replace', group['destructive-updates']),
    ...of('attach follow-up', group['attribute-updates']),
    ...of('disconnect', group['disconnect-updates']),
    ...of('reconnect', group['reconnect-updates']),
  ];
}

export function renderOutcome(input: ReconcileInput, outcome: Outcome): HTMLElement {
  if ('inputError' in outcome) {
    return errorCard('The reconciler refused the input', `${outcome.inputError.field}: ${outcome.inputError.message}`);
  }
  if ('sessionError' in outcome) {
    const e = outcome.sessionError;
    const where = [e.plugin && `plugin ${e.plugin}`, e.group && `group ${e.group}`, e.slot !== null && `slot ${e.slot}`]
      .filter(Boolean)
      .join(', ');
    return errorCard('The reconcile ended without a plan', `${where ? `${where}: ` : ''}${e.message}`);
  }
  if ('hostError' in outcome) {
    return errorCard('The reconcile could not run', outcome.hostError);
  }
  return renderPlan(input, outcome.plan);
}

function errorCard(title: string, message: string): HTMLElement {
  return h('section', { class: 'card error-card', role: 'alert', 'data-testid': 'outcome-error' }, h('h3', {}, title), h('p', {}, message));
}

function renderPlan(input: ReconcileInput, plan: Plan): HTMLElement {
  const allocations = new Map<string, Allocation>();
  for (const g of input.allocations) for (const a of g.allocations) allocations.set(a.spec.id, a);
  return h(
    'div',
    { class: 'plan', 'data-testid': 'plan' },
    plan.groups.map((g) => renderGroup(input, plan, g, allocations)),
    renderDeployment(input, plan),
    renderPolicy(plan, input.nodes),
    renderSteps(plan),
  );
}

/** A row of a group's table: a slot, or for a system job a node's slot. */
interface Row {
  index: number;
  node: number | null;
  report: SlotReport | null;
}

/** The key of a row: the slot, and for a system job its node. */
function rowKey(node: number | null, index: number): string {
  return node === null ? `${index}` : `${node}/${index}`;
}

function renderGroup(input: ReconcileInput, plan: Plan, group: GroupPlan, allocations: Map<string, Allocation>): HTMLElement {
  const count = input.job?.groups.find((g) => g.name === group.group)?.count;
  const system = input.system !== null;
  const changes = changesOf(group, (id) => (system ? (allocations.get(id)?.spec.node ?? null) : null));
  const slots = new Map<string, Row>(
    group.slots.map((s) => [rowKey(system ? s.node : null, s.index), { index: s.index, node: system ? s.node : null, report: s }]),
  );
  for (const c of changes) {
    const key = rowKey(c.node, c.slot);
    if (!slots.has(key)) slots.set(key, { index: c.slot, node: c.node, report: null });
  }
  // A system job's rows go by node id, as the reconciler orders nodes.
  const nodeId = (r: Row) => (r.node === null ? '' : (input.nodes[r.node]?.id ?? ''));
  const rows = [...slots.values()].sort((a, b) => (nodeId(a) === nodeId(b) ? a.index - b.index : nodeId(a) < nodeId(b) ? -1 : 1));
  const counters = Object.entries(group.counters).filter(([, n]) => n > 0);
  return h(
    'section',
    { class: 'card group', 'data-group': group.group, 'aria-label': `group ${group.group}` },
    h('h3', {}, group.group, count === undefined ? ' (no longer in the job)' : ` · count ${count}`),
    h(
      'p',
      { class: 'counters', 'data-testid': 'counters' },
      counters.length === 0
        ? 'nothing to change'
        : counters.map(([name, n], i) => [i > 0 ? ' · ' : '', h('span', { 'data-counter': name }, `${name} ${n}`)]),
    ),
    h(
      'table',
      { class: 'slots' },
      h('caption', { class: 'visually-hidden' }, `Slots of ${group.group}`),
      h(
        'thead',
        {},
        h('tr', {}, h('th', { scope: 'col' }, system ? 'Node' : 'Slot'), h('th', { scope: 'col' }, 'Candidates'), h('th', { scope: 'col' }, 'Decision'), h('th', { scope: 'col' }, 'Plugins')),
      ),
      h(
        'tbody',
        {},
        rows.map((row) =>
          renderSlot(
            row,
            changes.filter((c) => c.slot === row.index && c.node === row.node),
            plan,
            group.group,
            allocations,
            input.nodes,
          ),
        ),
      ),
    ),
    renderFollowups(input, group),
  );
}

function renderSlot(
  { index, node, report }: Row,
  changes: Change[],
  plan: Plan,
  group: string,
  allocations: Map<string, Allocation>,
  nodes: ClusterNode[],
): HTMLElement {
  const here = (e: { group: string | null; slot: number | null; node: number | null }) =>
    e.group === group && e.slot === index && (e.node ?? null) === node;
  const actions = plan['policy-actions'].filter(here);
  const failures = plan['plugin-failures'].filter(here);
  const surplus = report !== null && !report['within-count'];
  const label = node === null ? `${index}` : `${nodes[node]?.id ?? node}${index === 0 ? '' : `[${index}]`}`;
  return h(
    'tr',
    { class: surplus ? 'surplus' : null, 'data-slot': index, 'data-node': node === null ? null : (nodes[node]?.id ?? null) },
    h('th', { scope: 'row' }, label, surplus ? h('span', { class: 'muted' }, ' surplus') : null),
    h(
      'td',
      {},
      report === null || report.candidates.length === 0
        ? h('span', { class: 'muted' }, 'empty')
        : h(
            'ul',
            { class: 'candidates' },
            report.candidates.map((c) =>
              h(
                'li',
                {},
                h('code', {}, c.allocation),
                ' ',
                badges(allocations.get(c.allocation), nodes, c.classification),
                h('div', { class: 'outcome', title: `rule: ${c.rule}` }, c.outcome),
              ),
            ),
          ),
    ),
    h(
      'td',
      {},
      // With changes listed, the slot's decision sentence only says them again.
      report && changes.length === 0 ? h('div', { class: 'decision' }, report.decision) : null,
      changes.length === 0
        ? null
        : h(
            'ul',
            { class: 'changes' },
            changes.map((c) =>
              h(
                'li',
                {
                  'data-change': c.kind,
                  'data-slot': c.slot,
                  'data-allocation': c.allocation ?? '',
                  'data-reason': c.reason,
                },
                h('span', { class: `change change-${c.kind.split(' ')[0]}` }, c.kind),
                c.allocation ? [' ', h('code', {}, c.allocation)] : null,
                ' ',
                h('span', { class: 'reason' }, c.reason),
                h('div', { class: 'why' }, c.message),
              ),
            ),
          ),
    ),
    h(
      'td',
      {},
      // The slot's explanation already words what policies did; without one, their actions do.
      report !== null ? report.policy.map((p) => h('div', { class: 'policy' }, p)) : null,
      report === null &&
        actions.map((a) =>
          h('div', { class: a.applied ? 'policy' : 'policy not-applied' }, `${a.plugin}: ${a.verdict}${a.applied ? '' : ' (not applied)'} — ${a.reason}`),
        ),
      failures.map((f) => h('div', { class: 'policy failure' }, `${f.plugin} failed at ${f.hook}: ${f.cause}`)),
    ),
  );
}

/** The badges of a candidate: what its client, its node, the deployment watcher and the classification say of it. */
function badges(alloc: Allocation | undefined, nodes: ClusterNode[], classification: string | null): HTMLElement[] {
  const out: [string, string][] = [];
  if (alloc !== undefined) {
    const o = alloc.observed;
    const node = nodes[alloc.spec.node];
    if (node !== undefined && node.status !== 'ready') out.push([`node ${node.id} ${node.status}`, `node-${node.status}`]);
    if (node?.draining) out.push([`node ${node.id} draining`, 'migrating']);
    out.push([o['client-status'], `client-${o['client-status']}`]);
    if (o['desired-status'] !== 'run') out.push([`desired ${o['desired-status']}`, 'stopping']);
    if (o.health?.canary) out.push(['canary', 'canary']);
    if (o.health?.healthy === true) out.push(['healthy', 'healthy']);
    if (o.health?.healthy === false) out.push(['unhealthy', 'unhealthy']);
    if (o['desired-transition']?.migrate) out.push(['migrating', 'migrating']);
    out.push([`v${alloc.spec['job-version']}`, 'version']);
  }
  if (classification !== null && classification !== 'untainted') {
    out.push([classification === 'migrate' ? 'migrating' : classification, `class-${classification}`]);
  }
  const seen = new Set<string>();
  return out
    .filter(([text]) => !seen.has(text) && seen.add(text))
    .map(([text, kind]) => h('span', { class: `badge badge-${kind}` }, text));
}

function renderFollowups(input: ReconcileInput, group: GroupPlan): HTMLElement | null {
  if (group['followup-evals'].length === 0) return null;
  return h(
    'div',
    { class: 'followups' },
    h('h4', {}, 'Follow-up evaluations'),
    h(
      'ul',
      {},
      group['followup-evals'].map((f) =>
        h('li', {}, h('code', {}, f.id.slice(0, 8)), ` ${f.trigger}, ${relative(f['wait-until'], input.now)} (${clock(f['wait-until'])}): ${f.message}`),
      ),
    ),
  );
}

function renderDeployment(input: ReconcileInput, plan: Plan): HTMLElement {
  const created = plan.deployment;
  const existing = input.deployment;
  const shown = created ?? existing;
  const body: (HTMLElement | string)[] = [];
  if (shown === null) {
    body.push(h('p', { class: 'muted' }, 'No deployment, and none created.'));
  } else {
    body.push(
      h('p', {}, h('code', {}, shown.id.slice(0, 8)), ` · version ${shown['job-version']} · `, h('span', { class: `badge badge-deploy-${shown.status}` }, shown.status), created ? ' · created by this plan' : ''),
      h('p', { class: 'muted' }, shown.description),
      h(
        'table',
        { class: 'deployment-groups' },
        h('thead', {}, h('tr', {}, ['group', 'promoted', 'canaries', 'placed', 'healthy', 'unhealthy', 'total'].map((c) => h('th', { scope: 'col' }, c)))),
        h(
          'tbody',
          {},
          shown.groups.map((g) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, g.group),
              h('td', {}, g.promoted ? 'yes' : 'no'),
              h('td', {}, `${g['placed-canaries'].length} of ${g['desired-canaries']}`),
              h('td', {}, g['placed-allocs']),
              h('td', {}, g['healthy-allocs']),
              h('td', {}, g['unhealthy-allocs']),
              h('td', {}, g['desired-total']),
            ),
          ),
        ),
      ),
    );
  }
  for (const u of plan['deployment-updates']) {
    body.push(h('p', { 'data-testid': 'deployment-update' }, `→ ${u.status}: ${u.description} (${u.message})`));
  }
  for (const p of plan.promotions) {
    body.push(h('p', {}, `${p.group}: ${p.promoted ? 'promoted' : 'not promoted'} — ${p.message}`));
  }
  return h('section', { class: 'card deployment', 'data-testid': 'deployment' }, h('h3', {}, 'Deployment'), body);
}

function renderPolicy(plan: Plan, nodes: ClusterNode[]): HTMLElement | null {
  // A node slot is named by its node's id, as the plan's rows are.
  const where = (e: { slot: number | null; node: number | null }) =>
    e.node !== null && e.node !== undefined ? `@${nodes[e.node]?.id ?? e.node}` : e.slot === null ? '' : `/${e.slot}`;
  const actions = plan['policy-actions'];
  const failures = plan['plugin-failures'];
  const logs = plan['plugin-logs'];
  if (actions.length === 0 && failures.length === 0 && logs.length === 0) return null;
  return h(
    'section',
    { class: 'card', 'data-testid': 'policy' },
    h('h3', {}, 'Plugins'),
    h(
      'ul',
      {},
      actions.map((a) =>
        h('li', { 'data-testid': 'policy-action' }, `${a.plugin}: ${a.verdict} ${a.group}${where(a)}${a.applied ? '' : ' (not applied)'} — ${a.reason}`),
      ),
      failures.map((f) =>
        h('li', { class: 'failure', 'data-testid': 'plugin-failure' }, `${f.plugin} failed at ${f.hook}${f.group ? ` on ${f.group}${where(f)}` : ''}: ${f.cause}`),
      ),
    ),
    logs.length === 0
      ? null
      : h(
          'details',
          { open: true },
          h('summary', {}, `What the plugins logged (${logs.length} ${logs.length === 1 ? 'line' : 'lines'})`),
          h(
            'ul',
            { class: 'plugin-logs' },
            logs.map((l) =>
              h(
                'li',
                { class: `log-${l.level}`, 'data-testid': 'plugin-log' },
                `${l.plugin} at ${l.hook}${l.group === null ? '' : ` on ${l.group}`} (${l.level}): ${l.message}`,
              ),
            ),
          ),
        ),
  );
}

function renderSteps(plan: Plan): HTMLElement {
  return h(
    'details',
    { class: 'card steps' },
    h('summary', {}, `Step report (${plan.steps.length} steps)`),
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, ['step', 'group', 'status', 'message'].map((c) => h('th', { scope: 'col' }, c)))),
      h(
        'tbody',
        {},
        plan.steps.map((s) =>
          h('tr', { class: `step-${s.status}` }, h('td', {}, s.step), h('td', {}, s.group ?? ''), h('td', {}, s.status), h('td', {}, s.message)),
        ),
      ),
    ),
  );
}
