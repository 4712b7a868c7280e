// The playground end to end, in Debian's Chromium driven by playwright-core: served by
// `slotwise playground`, it plans bundled examples exactly as `slotwise reconcile --json` does,
// runs plugins with the host's effect, plays rounds, opens share links, places errors at their
// line, and asks for nothing beyond 127.0.0.1. Leaves a screenshot in target/playground/.

import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, promisify } from 'node:util';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const slotwise = process.env.SLOTWISE || path.join(root, 'target/debug/slotwise');
const CHROMIUM = '/usr/bin/chromium';
const WAIT = { timeout: 60_000 };

let server;
let url;
let userDataDir;
let context;
let page;
const external = [];

/** Debian's Chromium, installed when it is missing. */
function ensureChromium() {
  if (existsSync(CHROMIUM)) return;
  for (const args of [['update'], ['install', '-y', 'chromium']]) {
    const run = spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    assert.equal(run.status, 0, `apt-get ${args.join(' ')} failed`);
  }
}

/** `slotwise playground` on a free port; resolves to the address it prints. */
function startServer() {
  return new Promise((resolve, reject) => {
    server = spawn(slotwise, ['playground', '--port', '0', '--dir', path.join(root, 'playground/dist')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    server.on('error', reject);
    let out = '';
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const found = /http:\/\/127\.0\.0\.1:\d+\//.exec(out);
      if (found) resolve(found[0]);
    });
    server.on('exit', (code) => reject(new Error(`slotwise playground exited (${code}): ${out}`)));
  });
}

/** The plan `slotwise reconcile --json` prints for `file`, with `extra` arguments. */
async function hostPlan(file, ...extra) {
  const { stdout } = await promisify(execFile)(slotwise, ['reconcile', path.join(root, file), '--json', ...extra], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout);
}

/** What a plan decides, as the page shows it: per group the counters that are not zero and each change. */
function decisionsOf(plan) {
  const kinds = [
    ['stops', 'stop'],
    ['in-place-updates', 'in-place'],
    ['destructive-updates', 'replace'],
    ['attribute-updates', 'attach follow-up'],
    ['disconnect-updates', 'disconnect'],
    ['reconnect-updates', 'reconnect'],
  ];
  return plan.groups.map((g) => ({
    group: g.group,
    counters: Object.fromEntries(Object.entries(g.counters).filter(([, n]) => n > 0)),
    changes: sorted([
      ...g.placements.map((p) => ({
        kind: p.canary ? 'place canary' : 'place',
        slot: p['name-index'],
        allocation: p['previous-allocation'] ?? '',
        reason: p.reason,
      })),
      ...kinds.flatMap(([list, kind]) =>
        g[list].map((d) => ({ kind, slot: d['name-index'], allocation: d.allocation, reason: d.reason })),
      ),
    ]),
  }));
}

function sorted(changes) {
  const key = (c) => `${String(c.slot).padStart(8, '0')} ${c.kind} ${c.allocation} ${c.reason}`;
  return changes.sort((a, b) => key(a).localeCompare(key(b)));
}

/** What the page shows of the plan: per group its counters and the changes of its slot table. */
async function shownDecisions(p = page) {
  const groups = await p.$$eval('section.group', (sections) =>
    sections.map((s) => ({
      group: s.dataset.group,
      counters: Object.fromEntries(
        [...s.querySelectorAll('[data-counter]')].map((e) => [e.dataset.counter, Number(e.textContent.split(' ').pop())]),
      ),
      changes: [...s.querySelectorAll('[data-change]')].map((e) => ({
        kind: e.dataset.change,
        slot: Number(e.dataset.slot),
        allocation: e.dataset.allocation,
        reason: e.dataset.reason,
      })),
    })),
  );
  return groups.map((g) => ({ ...g, changes: sorted(g.changes) }));
}

/** Does `action`, then waits until the page has finished the run it started. */
async function andWaitForRun(action, p = page) {
  const before = Number((await p.getAttribute('body', 'data-settled')) ?? 0);
  await action();
  await p.waitForFunction((n) => Number(document.body.dataset.settled ?? 0) > n, before, WAIT);
}

async function openExample(file) {
  await andWaitForRun(() => page.selectOption('#example', file));
}

async function newPage() {
  const p = await context.newPage();
  p.on('pageerror', (e) => assert.fail(`the page threw: ${e.message}`));
  return p;
}

before(async () => {
  ensureChromium();
  assert.ok(existsSync(path.join(root, 'playground/dist/index.html')), 'playground/dist is missing: run `npm run build`');
  url = await startServer();
  userDataDir = await mkdtemp(path.join(tmpdir(), 'slotwise-playground-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
    viewport: { width: 1440, height: 900 },
  });
  await context.route('**/*', (route) => {
    const target = route.request().url();
    if (target.startsWith('http://127.0.0.1:') || target.startsWith('data:') || target.startsWith('blob:')) {
      return route.continue();
    }
    external.push(target);
    return route.abort();
  });
  page = await newPage();
  await page.goto(url);
  await page.waitForSelector('body[data-ready]', WAIT);
});

after(async () => {
  await context?.close();
  server?.kill();
  if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
});

test('every bundled example shows the counters and decisions slotwise reconcile --json gives, or its error', async () => {
  const examples = JSON.parse(await readFile(path.join(root, 'playground/generated/examples.json'), 'utf8'));
  assert.ok(examples.length > 200, `only ${examples.length} examples are bundled`);
  const differing = [];
  for (const { path: file } of examples) {
    const host = await hostPlan(file).catch((e) => ({ error: String(e.stderr) }));

    await openExample(file);

    const pageError = await errorShown();
    if ('error' in host) {
      if (pageError === null) differing.push(`${file}: slotwise refuses it (${host.error.trim()}), the page plans it`);
    } else if (pageError !== null) {
      differing.push(`${file}: the page refuses it (${pageError}), slotwise plans it`);
    } else if (!isDeepStrictEqual(await shownDecisions(), decisionsOf(host))) {
      differing.push(`${file}: the decisions differ`);
    }
  }
  assert.deepEqual(differing, []);
});

/** The error the page shows instead of a plan, the scenario's or the reconcile's; null when it shows a plan. */
async function errorShown() {
  const outcome = page.locator('[data-testid="outcome-error"]');
  if ((await outcome.count()) > 0) return outcome.innerText();
  const scenario = (await page.locator('#scenario-error').innerText()).trim();
  return scenario === '' ? null : scenario;
}

/** Switches the bundled plugin `file` on with `settings`, failing open or closed, with a deadline in ms. */
async function switchOn(file, settings, { failOpen = false, deadlineMs = 500 } = {}) {
  const id = `#plugin-${file}`;
  // The card may still be open from an earlier switch.
  if (!(await page.locator(`[data-plugin-card="${file}"] details`).evaluate((settings) => settings.open))) {
    await page.click(`[data-plugin-card="${file}"] summary`);
  }
  await page.fill(`${id}-settings`, JSON.stringify(settings));
  await page.dispatchEvent(`${id}-settings`, 'change');
  await page.setChecked(`${id}-fail-open`, failOpen);
  await page.fill(`${id}-deadline`, String(deadlineMs));
  await page.dispatchEvent(`${id}-deadline`, 'change');
  await andWaitForRun(() => page.check(`${id}-on`));
}

test('switching a plugin on changes the plan as the host changes it with the same plugin', async () => {
  const file = 'docs/examples/rolling-update.yaml';
  await openExample(file);
  const without = await shownDecisions();
  const dir = await mkdtemp(path.join(tmpdir(), 'slotwise-plugins-'));
  const plugins = path.join(dir, 'plugins.json');
  await writeFile(plugins, JSON.stringify({ plugins: [{ plugin: 'max-disruption', settings: { limit: 1 } }] }));
  const expected = decisionsOf(await hostPlan(file, '--plugins', plugins));
  await rm(dir, { recursive: true, force: true });

  await switchOn('max-disruption', { limit: 1 });

  const withPlugin = await shownDecisions();
  assert.deepEqual(withPlugin, expected);
  assert.notDeepEqual(withPlugin, without);
  assert.match(await page.locator('[data-testid="policy"]').innerText(), /max-disruption: vetoed/);
  await andWaitForRun(() => page.uncheck('#plugin-max-disruption-on'));
  assert.deepEqual(await shownDecisions(), without);
});

test('with no plugin the page plans on the encoded path, and through the session the same plan', async () => {
  const file = 'docs/examples/rolling-update.yaml';
  await openExample(file);
  const encoded = await shownDecisions();
  assert.equal(await page.getAttribute('body', 'data-path'), 'encoded');
  assert.deepEqual(encoded, decisionsOf(await hostPlan(file)));

  // A limit no plan of the example reaches: the plugin is consulted and changes nothing.
  await switchOn('max-disruption', { limit: 1000 });

  assert.equal(await page.getAttribute('body', 'data-path'), 'session');
  assert.deepEqual(await shownDecisions(), encoded);
  await andWaitForRun(() => page.uncheck('#plugin-max-disruption-on'));
  assert.equal(await page.getAttribute('body', 'data-path'), 'encoded');
});

test('the page opens on a bundled example with its plan shown, and offers no test plugin', async () => {
  const fresh = await newPage();
  await fresh.goto(url);
  await fresh.waitForSelector('body[data-ready]', WAIT);
  const example = await fresh.inputValue('#example');
  assert.notEqual(example, '', 'no example is chosen');
  assert.notEqual((await fresh.inputValue('#scenario-text')).trim(), '', 'the editor is empty');
  assert.deepEqual(await shownDecisions(fresh), decisionsOf(await hostPlan(example)));
  assert.equal(await fresh.locator('[data-plugin-card="hostile"]').count(), 0, 'the hostile test plugin is offered');
  assert.ok((await fresh.locator('[data-plugin-card="max-disruption"]').count()) > 0, 'the shipped plugins are not offered');
  await fresh.close();
});

test('what plugins log is shown with the plugin, the hook and the group, as the host reports it', async () => {
  const file = 'tests/policy/logs/lines-are-reported-with-plugin-hook-and-group-in-order.yaml';
  const host = await hostPlan(file);
  assert.ok(host['plugin-logs'].length > 0, 'the scenario logs nothing');

  await openExample(file);

  const shown = await page.locator('[data-testid="plugin-log"]').allInnerTexts();
  const expected = host['plugin-logs'].map(
    (l) => `${l.plugin} at ${l.hook}${l.group === null ? '' : ` on ${l.group}`} (${l.level}): ${l.message}`,
  );
  assert.deepEqual(shown, expected);
});

const hostileBuilt = existsSync(path.join(root, 'playground/generated/plugins/hostile'));

test(
  'a test plugin that overruns its deadline is stopped and reported as the host reports it',
  { skip: !hostileBuilt && 'the hostile test plugin was not bundled' },
  async () => {
    const file = 'docs/examples/node-down.yaml';
    const settings = { behaviour: 'loop', hooks: ['post-slot'] };
    const dir = await mkdtemp(path.join(tmpdir(), 'slotwise-plugins-'));
    const plugins = path.join(dir, 'plugins.json');
    // Fuel enough that the host, too, stops the loop by its deadline: a browser has no fuel.
    const limits = { deadline: '200ms', fuel: 1e15 };
    const entry = { plugin: 'hostile', settings, 'on-error': 'fail-open', limits };
    await writeFile(plugins, JSON.stringify({ plugins: [entry] }));
    const host = await hostPlan(file, '--plugins', plugins);
    await rm(dir, { recursive: true, force: true });
    const [failure] = host['plugin-failures'];
    assert.equal(failure.cause, 'overran its deadline of 200ms per call');
    // Test plugins are listed only for tests.
    const previous = page;
    page = await newPage();
    await page.goto(`${url}?test-plugins`);
    await page.waitForSelector('body[data-ready]', WAIT);
    try {
      await openExample(file);

      await switchOn('hostile', settings, { failOpen: true, deadlineMs: 200 });

      assert.deepEqual(await shownDecisions(), decisionsOf(host));
      const reported = await page.locator('[data-testid="plugin-failure"]').allInnerTexts();
      const where = `${failure.group}${failure.slot === null ? '' : `/${failure.slot}`}`;
      assert.deepEqual(reported, [`hostile failed at post-slot on ${where}: ${failure.cause}`]);
    } finally {
      await page.close();
      page = previous;
    }
  },
);

test('two next rounds take a canary rollout forward, and the first round can be reopened', async () => {
  await openExample('docs/examples/canary-rollout/round-1-new-version.yaml');
  const first = await shownDecisions();
  await page.check('#promote');

  await andWaitForRun(() => page.click('#next'));
  await andWaitForRun(() => page.click('#next'));

  assert.equal(await page.locator('.timeline li').count(), 3);
  assert.match(await page.locator('[data-testid="round"]').innerText(), /Round 3 · .* now 2026-01-01 00:01:00Z/);
  const plan = page.locator('[data-testid="plan"]');
  assert.ok((await plan.locator('.badge-canary').count()) >= 2, 'the canaries are not shown');
  assert.equal(await plan.locator('.badge-healthy').count(), 2, 'the canaries are not healthy by round 3');
  assert.match(await page.locator('[data-testid="deployment"]').innerText(), /web\s+yes/);
  assert.ok(
    (await shownDecisions())[0].changes.some((c) => c.reason === 'canary-promoted'),
    'promoted canaries do not retire the old allocations of their slots',
  );

  await mkdir(path.join(root, 'target/playground'), { recursive: true });
  await page.locator('#plan-panel').screenshot({ path: path.join(root, 'target/playground/plan-view.png') });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(root, 'target/playground/page.png') });

  await page.click('[data-round="1"]');
  assert.match(await page.locator('[data-testid="round"]').innerText(), /^Round 1/);
  assert.deepEqual(await shownDecisions(), first);
});

test('both system examples plan with a plugin on as the host does, name node slots, and play round by round', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'slotwise-plugins-'));
  const plugins = path.join(dir, 'plugins.json');
  await writeFile(plugins, JSON.stringify({ plugins: [{ plugin: 'max-disruption', settings: { limit: 0 } }] }));
  try {
    for (const file of ['docs/examples/system/node-drains-during-canaries.yaml', 'docs/examples/system/node-joins-during-canaries.yaml']) {
      const host = await hostPlan(file, '--plugins', plugins);
      await openExample(file);

      await switchOn('max-disruption', { limit: 0 });

      assert.deepEqual(await shownDecisions(), decisionsOf(host), `${file}: the decisions differ from the host's`);
      const shown = await page.locator('[data-testid="policy-action"]').allInnerTexts();
      assert.equal(shown.length, host['policy-actions'].length, `${file}: not every policy action is shown`);
      if (file.includes('drains')) {
        // Limit 0: the migration off the draining node is the one disruption, vetoed on its node.
        assert.match(shown.join('\n'), /max-disruption: vetoed shipper@node-5/);
      }
      await andWaitForRun(() => page.click('#next'));
      await andWaitForRun(() => page.click('#next'));
      assert.equal(await page.locator('.timeline li').count(), 3, `${file}: the rounds did not play`);
      assert.equal(await errorShown(), null, `${file}: a round ended in an error`);
      assert.match(await page.locator('[data-testid="round"]').innerText(), /^Round 3/);
      await andWaitForRun(() => page.uncheck('#plugin-max-disruption-on'));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a share link opens the same scenario, with the same plan', async () => {
  await openExample('docs/examples/node-down.yaml');
  const text = await page.inputValue('#scenario-text');
  const decisions = await shownDecisions();
  await page.click('#share');
  await page.waitForFunction(() => document.querySelector('#share-link').value.includes('#scenario='), null, WAIT);
  const link = await page.inputValue('#share-link');

  const other = await newPage();
  await other.goto(link);
  await other.waitForSelector('body[data-ready]', WAIT);

  assert.equal(await other.inputValue('#scenario-text'), text);
  assert.deepEqual(await shownDecisions(other), decisions);
  await other.close();
});

test('an unknown field is shown at its line', async () => {
  await openExample('docs/examples/node-down.yaml');
  const text = await page.inputValue('#scenario-text');
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith('nodes:'));
  lines.splice(at + 1, 0, '  - {id: n9, colour: red}');

  await page.fill('#scenario-text', lines.join('\n'));
  await page.click('#run');

  const marked = page.locator('.gutter .line.error');
  await marked.waitFor(WAIT);
  assert.equal(await marked.getAttribute('data-line'), String(at + 2));
  assert.match(await page.locator('#scenario-error').innerText(), /colour/);
});

test('the page asks for nothing beyond 127.0.0.1', () => {
  assert.deepEqual(external, []);
});
