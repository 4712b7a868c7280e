// Prepares what the playground bundles, before Vite runs: every plugin of slotwise:plugin@0.2.0
// in target/slotwise/plugins/ transpiled by jco, and the example scenarios. Plugins and examples
// are discovered, so new ones appear by themselves. Test plugins (test-plugins.json, written by
// `cargo xtask plugins`) are bundled apart: the page lists them only for the end-to-end tests.
// The reconciler and the scenario reader are not here: they come from @slotwise/reconciler.

import { createHash } from 'node:crypto';
import { access, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transpile } from '@bytecodealliance/jco';

const here = path.dirname(fileURLToPath(import.meta.url));
const playground = path.resolve(here, '..');
const root = path.resolve(playground, '..');
const built = path.join(root, 'target/slotwise');
const generated = path.join(playground, 'generated');

/** Where example scenarios come from, and the menu section each gets. */
const EXAMPLE_SOURCES = [
  { dir: 'docs/examples', section: 'Examples' },
  { dir: 'tests/plugins', section: 'Plugins' },
  { dir: 'tests/policy', section: 'Scripted policies' },
  { dir: 'tests/conformance/nomad', section: 'Nomad conformance' },
];

async function exists(file) {
  return access(file).then(
    () => true,
    () => false,
  );
}

/** Files under `dir`, recursively, in name order. */
async function walk(dir) {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  entries.sort((a, b) => a.name.localeCompare(b.name));
  const files = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      files.push(...(await walk(full)));
    } else {
      files.push(full);
    }
  }
  return files;
}

/** The one import a plugin may have; the page's worker provides it. */
const PLUGIN_LOG = 'slotwise:plugin/log';

/** The interface every plugin the playground runs exports: 0.1 plugins need the host's adapter. */
const PLUGIN_EXPORT = 'slotwise:plugin/plugin@0.2.0';

/**
 * Transpiles the plugin at `file` into `generated/<dir>/`, for fresh instances on demand:
 * `index.js` exports `instantiateFresh(provided)`, compiling each core module once. A plugin's
 * log import is `provided` by the caller; WASI imports are bound to jco's browser shims.
 */
async function transpileInto(file, dir, name) {
  const { files, imports, exports } = await transpile(await readFile(file), {
    name,
    instantiation: 'async',
    quiet: true,
  });
  const out = path.join(generated, dir);
  await mkdir(out, { recursive: true });
  for (const [fileName, bytes] of Object.entries(files)) {
    // The page types what it calls itself; jco's declarations describe another instantiation mode.
    if (fileName.endsWith('.d.ts')) continue;
    await mkdir(path.dirname(path.join(out, fileName)), { recursive: true });
    await writeFile(path.join(out, fileName), bytes);
  }
  const cores = Object.keys(files).filter((f) => f.endsWith('.wasm'));
  const specifiers = [...new Set(imports.map((i) => i.split('#')[0]))].filter((s) => s !== PLUGIN_LOG);
  const lines = [
    '// Written by scripts/components.js: fresh instances of the transpiled component.',
    `import { instantiate } from './${name}.js';`,
    ...specifiers.map((s, i) => `import * as import${i} from ${JSON.stringify(shimOf(s))};`),
    '',
    'const cores = {',
    ...cores.map((c) => `  ${JSON.stringify(c)}: new URL(${JSON.stringify(`./${c}`)}, import.meta.url),`),
    '};',
    'const imports = {',
    ...specifiers.map((s, i) => `  ${JSON.stringify(s)}: import${i},`),
    '};',
    'const compiled = new Map();',
    '',
    'function core(file) {',
    '  if (!compiled.has(file)) {',
    '    compiled.set(file, WebAssembly.compileStreaming(fetch(cores[file])));',
    '  }',
    '  return compiled.get(file);',
    '}',
    '',
    'export function instantiateFresh(provided = {}) {',
    '  return instantiate(core, { ...imports, ...provided });',
    '}',
    '',
  ];
  await writeFile(path.join(out, 'index.js'), lines.join('\n'));
  await writeFile(path.join(out, 'index.d.ts'), 'export function instantiateFresh(provided?: object): Promise<unknown>;\n');
  return { exports: exports.map(([name]) => name) };
}

/** The module jco's own shims give for the import `specifier` (`wasi:cli/environment`). */
function shimOf(specifier) {
  const wasi = /^wasi:([a-z-]+)\//.exec(specifier);
  if (!wasi) {
    throw new Error(`a bundled component imports ${specifier}, which the browser cannot provide`);
  }
  return `@bytecodealliance/preview2-shim/${wasi[1]}`;
}

async function plugins() {
  const dir = path.join(built, 'plugins');
  const files = (await walk(dir)).filter((f) => f.endsWith('.wasm'));
  const listed = path.join(dir, 'test-plugins.json');
  const tests = new Set((await exists(listed)) ? JSON.parse(await readFile(listed, 'utf8')) : []);
  const offered = [];
  const testing = [];
  const skipped = [];
  const digests = {};
  for (const file of files) {
    const name = path.basename(file, '.wasm');
    const { exports } = await transpileInto(file, `plugins/${name}`, name);
    if (!exports.includes(PLUGIN_EXPORT)) {
      await rm(path.join(generated, 'plugins', name), { recursive: true, force: true });
      skipped.push(name);
      continue;
    }
    (tests.has(name) ? testing : offered).push(name);
    digests[name] = createHash('sha256').update(await readFile(file)).digest('hex');
  }
  const table = (names) => names.map((n) => `  ${JSON.stringify(n)}: () => import(${JSON.stringify(`./plugins/${n}/index.js`)}),`);
  const lines = [
    '// Written by scripts/components.js: the bundled plugins by file name, the test plugins apart,',
    '// and the SHA-256 of each component file, which a scenario may pin.',
    'export const plugins = {',
    ...table(offered),
    '};',
    'export const testPlugins = {',
    ...table(testing),
    '};',
    `export const digests = ${JSON.stringify(digests, null, 2)};`,
    '',
  ];
  await writeFile(path.join(generated, 'plugins.js'), lines.join('\n'));
  return { offered, testing, skipped };
}

async function examples() {
  const list = [];
  for (const { dir, section } of EXAMPLE_SOURCES) {
    for (const file of await walk(path.join(root, dir))) {
      if (!/\.(ya?ml|json)$/.test(file) || file.endsWith('.unit.yaml')) {
        continue;
      }
      list.push({
        section,
        path: path.relative(root, file),
        name: path.relative(path.join(root, dir), file),
        syntax: file.endsWith('.json') ? 'json' : 'yaml',
        text: await readFile(file, 'utf8'),
      });
    }
  }
  await writeFile(path.join(generated, 'examples.json'), JSON.stringify(list));
  return list;
}

// The linked package works in the repository once `cargo xtask playground` wrote what it bundles.
const packaged = path.join(root, 'packages/npm/generated/reconciler/index.js');
if (!(await exists(packaged))) {
  throw new Error(`${packaged} is missing: run \`cargo xtask playground\` first`);
}
await rm(generated, { recursive: true, force: true });
await mkdir(generated, { recursive: true });
const bundled = await plugins();
const exampleList = await examples();
console.log(
  `playground components: plugins [${bundled.offered.join(', ')}], ` +
    `test plugins [${bundled.testing.join(', ')}], left out (not 0.2) [${bundled.skipped.join(', ')}]; ` +
    `${exampleList.length} examples`,
);
