// The installed @slotwise/reconciler in Chromium: a page served from 127.0.0.1 imports the package's ESM through an import map made from its `exports`, reads and plans a scenario as `slotwise reconcile --json` does, and refuses a bad input with the field named.
//
// Run by `cargo xtask test` in the fresh project that installed the packed tarball (with
// playwright-core); Chromium is Debian's, at /usr/bin/chromium.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseJson } from '@slotwise/reconciler';
import { chromium } from 'playwright-core';
import { root, slotwiseJson } from './command.mjs';

const CHROMIUM = '/usr/bin/chromium';
const SCENARIO = 'docs/examples/canary-rollout/round-3-canaries-healthy.yaml';

/** The installed package's folder: what the server serves under /package/. */
const installed = path.dirname(path.dirname(fileURLToPath(import.meta.resolve('@slotwise/reconciler'))));

const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html', '.json': 'application/json' };

/** The page: the import map sends each of the package's exports to the installed file. */
async function page() {
  const { exports } = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8'));
  const imports = Object.fromEntries(
    Object.entries(exports)
      .filter(([, target]) => target.default !== undefined)
      .map(([entry, target]) => [path.posix.join('@slotwise/reconciler', entry), `/package/${target.default.slice(2)}`]),
  );
  const script = `
    import { InputError, ScenarioReader, Reconciler } from '@slotwise/reconciler';
    import { stringifyJson } from '@slotwise/reconciler/rendering';
    window.plan = async (text) => {
      const input = (await ScenarioReader.load()).read(text);
      return stringifyJson((await Reconciler.load()).reconcile(input));
    };
    window.refusal = async (text) => {
      const { eval: _, ...input } = (await ScenarioReader.load()).read(text);
      try {
        (await Reconciler.load()).reconcile(input);
        return null;
      } catch (e) {
        return { isInputError: e instanceof InputError, field: e.field, reason: e.reason };
      }
    };`;
  return `<!doctype html><script type="importmap">${JSON.stringify({ imports })}</script><script type="module">${script}</script>`;
}

let server;
let browser;
let tab;
const asked = [];

before(async () => {
  if (!existsSync(CHROMIUM)) {
    const install = spawnSync('apt-get', ['install', '-y', 'chromium'], { stdio: 'inherit' });
    assert.equal(install.status, 0, 'Chromium is missing and apt-get cannot install it');
  }
  const html = await page();
  server = createServer(async (request, response) => {
    const { pathname } = new URL(request.url, 'http://127.0.0.1');
    const file = pathname.startsWith('/package/') ? path.join(installed, pathname.slice('/package/'.length)) : null;
    if (pathname === '/') {
      response.writeHead(200, { 'content-type': TYPES['.html'] }).end(html);
    } else if (file !== null && file.startsWith(installed) && existsSync(file)) {
      response.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' }).end(await readFile(file));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  tab = await browser.newPage();
  tab.on('pageerror', (e) => assert.fail(`the page threw: ${e.message}`));
  await tab.route('**/*', (route) => {
    const target = route.request().url();
    if (target.startsWith('http://127.0.0.1:')) return route.continue();
    asked.push(target);
    return route.abort();
  });
  await tab.goto(`http://127.0.0.1:${server.address().port}/`);
  await tab.waitForFunction(() => typeof window.refusal === 'function');
});

after(async () => {
  await browser?.close();
  server?.close();
});

test('in Chromium the package reads and plans a scenario exactly as slotwise reconcile --json', async () => {
  const text = await readFile(path.join(root, SCENARIO), 'utf8');

  const plan = parseJson(await tab.evaluate((t) => window.plan(t), text));

  assert.deepStrictEqual(plan, await slotwiseJson('reconcile', SCENARIO, '--json'));
  assert.ok(plan.groups.length > 0);
});

test('in Chromium an input without its eval is an InputError naming the field', async () => {
  const text = await readFile(path.join(root, SCENARIO), 'utf8');

  const refusal = await tab.evaluate((t) => window.refusal(t), text);

  assert.equal(refusal?.isInputError, true, JSON.stringify(refusal));
  assert.equal(refusal.field, 'eval');
  assert.match(refusal.reason, /missing field/);
});

test('the page in Chromium asks for nothing beyond 127.0.0.1', () => {
  assert.deepEqual(asked, []);
});
