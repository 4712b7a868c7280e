/** The playground page: wires the editor, the plugins panel, the plan of the round shown, the next-round controls and the timeline. */

import './style.css';
import { InputError, SessionError, type ReconcileInput as ContractInput, type Relay } from '@slotwise/reconciler';
import { loadedReconciler, type Syntax } from './components.ts';
import type { Plan, ReconcileInput } from './contract.ts';
import { EXAMPLES } from './examples.ts';
import { loadCatalog, type BundledPlugin, type Loadable } from './plugins/catalog.ts';
import { PluginSet } from './plugins/plugin-set.ts';
import { applyScenarioPlugins, type Entry } from './plugins/scenario-plugins.ts';
import { inputAfter, type Outcome, type Round } from './rounds.ts';
import { readScenario, type Scenario } from './scenario.ts';
import { decodeShared, encodeShared } from './share.ts';
import { clock, STEPS } from './time.ts';
import { h } from './view/dom.ts';
import { Editor } from './view/editor.ts';
import { renderOutcome } from './view/plan-view.ts';
import { renderPluginsPanel } from './view/plugins-panel.ts';
import { renderTimeline } from './view/timeline.ts';

const DEFAULT_EXAMPLE = 'docs/examples/canary-rollout/round-1-new-version.yaml';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const state = {
  catalog: [] as BundledPlugin[],
  /** The plugins the scenario asks for, in its order: found, or refused and why. */
  scenarioPlugins: [] as Entry[],
  scenario: null as Scenario | null,
  rounds: [] as Round[],
  current: 0,
};

const editor = new Editor($('editor-host'), () => scheduleCheck(), () => void run());
const syntaxSelect = $<HTMLSelectElement>('syntax');
const exampleSelect = $<HTMLSelectElement>('example');
const status = $('status');

function setStatus(text: string): void {
  status.textContent = text;
}

function fillExamples(): void {
  const sections = new Map<string, HTMLOptGroupElement>();
  exampleSelect.append(h('option', { value: '' }, 'Choose an example…'));
  for (const example of EXAMPLES) {
    let group = sections.get(example.section);
    if (group === undefined) {
      group = h('optgroup', { label: example.section });
      sections.set(example.section, group);
      exampleSelect.append(group);
    }
    group.append(h('option', { value: example.path }, example.name));
  }
  exampleSelect.addEventListener('change', () => {
    const example = EXAMPLES.find((e) => e.path === exampleSelect.value);
    if (example === undefined) return;
    load(example.text, example.syntax);
    void run();
  });
}

function fillRoundControls(): void {
  const step = $<HTMLSelectElement>('step');
  for (const [label] of STEPS) step.append(h('option', { value: label, selected: label === '30s' }, label));
  $('next').addEventListener('click', () => void next());
}

function load(text: string, syntax: Syntax): void {
  editor.value = text;
  syntaxSelect.value = syntax;
  editor.showError(null);
}

let checkTimer: ReturnType<typeof setTimeout> | undefined;

/** Checks the text shortly after typing stops, so errors show at their line as one writes. */
function scheduleCheck(): void {
  clearTimeout(checkTimer);
  checkTimer = setTimeout(async () => {
    const read = await readScenario(editor.value, syntaxSelect.value as Syntax);
    editor.showError('error' in read ? read.error : null);
  }, 300);
}

/** Who answers for the plugins the next reconcile consults: the scenario's script, the scenario's plugins in its order, then those the user switched on. */
function relays(): Relay[] {
  const out: Relay[] = [];
  const scripted = state.scenario?.scripted;
  if (scripted) out.push(scripted);
  const entries: Entry[] = [
    ...state.scenarioPlugins.filter((e) => 'refused' in e || (e.plugin.enabled && e.plugin.fromScenario)),
    ...state.catalog
      .filter((p): p is Loadable => p.enabled && !p.fromScenario && 'name' in p.metadata)
      .map((plugin) => ({ plugin })),
  ];
  if (entries.length > 0) out.push(new PluginSet(entries));
  return out;
}

/**
 * Reconciles `input`: on the package's encoded path when no plugin is consulted, through the
 * reconciler's session with the relays otherwise. The page's body tells which ran (`data-path`),
 * for the tests that drive it.
 */
async function outcomeOf(input: ReconcileInput): Promise<Outcome> {
  const consulted = relays();
  const path = consulted.length === 0 ? 'encoded' : 'session';
  document.body.dataset.path = path;
  try {
    const reconciler = await loadedReconciler();
    const plan = path === 'encoded' ? reconciler.reconcile(input as unknown as ContractInput) : await reconciler.reconcileThrough(input as unknown as ContractInput, consulted);
    return { plan: plan as unknown as Plan };
  } catch (e) {
    if (e instanceof InputError) return { inputError: { field: e.field, message: e.reason } };
    if (e instanceof SessionError) return { sessionError: { plugin: e.plugin, group: e.group, slot: e.slot, message: e.reason } };
    // The package's ComponentError says which component failed, and how.
    return { hostError: e instanceof Error ? e.message : `the reconciler failed: ${String(e)}` };
  }
}

/** The run under way; the next waits for it, since plugin workers serve one reconcile at a time. */
let running: Promise<void> = Promise.resolve();

function busy(what: string, work: () => Promise<void>): Promise<void> {
  const buttons = [$<HTMLButtonElement>('run'), $<HTMLButtonElement>('next')];
  const task = async () => {
    for (const b of buttons) b.disabled = true;
    setStatus(what);
    try {
      await work();
    } finally {
      for (const b of buttons) b.disabled = false;
      // Counts the runs done, so that a test driving the page knows when one is.
      document.body.dataset.settled = String(Number(document.body.dataset.settled ?? 0) + 1);
    }
  };
  // A run that failed does not stop the next.
  running = running.then(task, task);
  return running;
}

/** Reads the editor's scenario and plays its first round. */
async function run(): Promise<void> {
  await busy('Reconciling…', async () => {
    const read = await readScenario(editor.value, syntaxSelect.value as Syntax);
    if ('error' in read) {
      editor.showError(read.error);
      setStatus('The scenario has an error; see the editor.');
      return;
    }
    editor.showError(null);
    state.scenario = read.scenario;
    $('description').textContent = read.scenario.description ?? '';
    if (read.scenario.plugins.length > 0) await catalogReady;
    state.scenarioPlugins = applyScenarioPlugins(state.catalog, read.scenario);
    renderPlugins();
    const input = { ...read.scenario.input, explain: true };
    state.rounds = [{ number: 1, input, outcome: await outcomeOf(input), waiting: [] }];
    state.current = 0;
    show();
  });
}

/** Plays the round after the one shown; later rounds are replaced. */
async function next(): Promise<void> {
  const round = state.rounds[state.current];
  if (round === undefined) return;
  await busy('Playing the next round…', async () => {
    const stepLabel = $<HTMLSelectElement>('step').value;
    const nodeDown = $<HTMLSelectElement>('node-down').value;
    const after = inputAfter(round, {
      duration: STEPS.find(([label]) => label === stepLabel)?.[1] ?? STEPS[1][1],
      failCanaries: $<HTMLInputElement>('fail-canaries').checked,
      promote: $<HTMLInputElement>('promote').checked,
      nodesDown: nodeDown === '' ? [] : [nodeDown],
    });
    if (after === null) {
      setStatus('This round has no plan to commit.');
      return;
    }
    state.rounds = state.rounds.slice(0, state.current + 1);
    state.rounds.push({ number: round.number + 1, input: after.input, outcome: await outcomeOf(after.input), waiting: after.waiting });
    state.current = state.rounds.length - 1;
    show();
  });
}

/** Reconciles the round shown again, with the plugins as the panel now sets them. */
async function rerun(): Promise<void> {
  renderPlugins();
  const round = state.rounds[state.current];
  if (round === undefined) return;
  await busy('Reconciling with the plugins changed…', async () => {
    round.outcome = await outcomeOf(round.input);
    show();
  });
}

function renderPlugins(): void {
  const notes = state.scenarioPlugins.flatMap((e) =>
    'refused' in e
      ? [`The scenario asks for plugin ${e.refused.plugin}, which cannot be loaded: ${e.refused.cause}${e.refused.failOpen ? ' (it fails open, so it is left out)' : ''}.`]
      : [],
  );
  renderPluginsPanel($('plugins-panel'), state.catalog, notes, () => void rerun());
}

function show(): void {
  const round = state.rounds[state.current];
  if (round === undefined) return;
  $('round-header').replaceChildren(
    h('p', { 'data-testid': 'round' }, h('strong', {}, `Round ${round.number}`), ` · job ${round.input['job-id']} · now ${clock(round.input.now)} · evaluation ${round.input.eval.id || '(none)'}`),
  );
  $('plan-host').replaceChildren(renderOutcome(round.input, round.outcome));
  const nodeDown = $<HTMLSelectElement>('node-down');
  nodeDown.replaceChildren(
    h('option', { value: '' }, 'none'),
    ...round.input.nodes.filter((n) => n.status !== 'down').map((n) => h('option', { value: n.id }, n.id)),
  );
  renderTimeline($('timeline-host'), state.rounds, state.current, (i) => {
    state.current = i;
    show();
  });
  setStatus(`Round ${round.number} shown${'plan' in round.outcome ? '' : ' (no plan)'}.`);
}

async function share(): Promise<void> {
  const link = await encodeShared({
    text: editor.value,
    syntax: syntaxSelect.value as Syntax,
    plugins: state.catalog
      .filter((p) => p.enabled)
      .map((p) => ({ file: p.file, settings: p.settings, monitor: p.monitor, failOpen: p.failOpen, deadlineMs: p.deadlineMs })),
  });
  const url = `${location.origin}${location.pathname}${link}`;
  history.replaceState(null, '', link);
  const out = $<HTMLInputElement>('share-link');
  out.value = url;
  out.focus();
  out.select();
  setStatus('The share link is in the address bar and beside the button.');
}

/** The catalog of bundled plugins, once loaded; the test plugins are listed only with `?test-plugins`. */
let catalogReady: Promise<void> = Promise.resolve();

async function start(): Promise<void> {
  fillExamples();
  fillRoundControls();
  $('run').addEventListener('click', () => void run());
  $('share').addEventListener('click', () => void share());
  syntaxSelect.addEventListener('change', () => scheduleCheck());
  // The plugins load in their workers while the first plan is made: a scenario that needs none
  // does not wait for them.
  const withTests = new URLSearchParams(location.search).has('test-plugins');
  catalogReady = loadCatalog(withTests).then((catalog) => {
    state.catalog = catalog;
  });
  const shared = await decodeShared(location.hash);
  if (shared !== null) {
    load(shared.text, shared.syntax);
    await catalogReady;
    for (const p of state.catalog) {
      const wanted = shared.plugins.find((s) => s.file === p.file);
      Object.assign(p, wanted ? { ...wanted, enabled: true } : { enabled: false });
    }
  } else {
    const example = EXAMPLES.find((e) => e.path === DEFAULT_EXAMPLE) ?? EXAMPLES[0];
    if (example) {
      exampleSelect.value = example.path;
      load(example.text, example.syntax);
    }
  }
  await run();
  setStatus('Loading the plugins…');
  await catalogReady;
  renderPlugins();
  show();
  document.body.dataset.ready = 'true';
}

void start();
