// Prepares what the playground bundles, before Vite runs: the reconciler, the scenario reader
// and every plugin in target/slotwise/plugins/ transpiled by jco, the WIT type description, and
// the example scenarios. Plugins and examples are discovered, so new ones appear by themselves.

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

/**
 * Transpiles the component at `file` into `generated/<dir>/`, for fresh instances on demand:
 * `index.js` exports `instantiateFresh()`, compiling each core module once. Imports a
 * component has (a JavaScript plugin's WASI) are bound to jco's browser shims.
 */
async function transpileInto(file, dir, name) {
  const { files, imports } = await transpile(await readFile(file), {
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
  const specifiers = [...new Set(imports.map((i) => i.split('#')[0]))];
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
    'export function instantiateFresh() {',
    '  return instantiate(core, imports);',
    '}',
    '',
  ];
  await writeFile(path.join(out, 'index.js'), lines.join('\n'));
  await writeFile(path.join(out, 'index.d.ts'), 'export function instantiateFresh(): Promise<unknown>;\n');
  return { imports: specifiers };
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
  const names = [];
  const digests = {};
  for (const file of files) {
    const name = path.basename(file, '.wasm');
    await transpileInto(file, `plugins/${name}`, name);
    names.push(name);
    digests[name] = createHash('sha256').update(await readFile(file)).digest('hex');
  }
  const lines = [
    '// Written by scripts/components.js: the bundled plugins, by file name, and the SHA-256 of each',
    '// component file, which a scenario may pin.',
    'export const plugins = {',
    ...names.map((n) => `  ${JSON.stringify(n)}: () => import(${JSON.stringify(`./plugins/${n}/index.js`)}),`),
    '};',
    `export const digests = ${JSON.stringify(digests, null, 2)};`,
    '',
  ];
  await writeFile(path.join(generated, 'plugins.js'), lines.join('\n'));
  return names;
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

const needed = ['reconciler.wasm', 'scenario-reader.wasm', 'wit-types.json'];
for (const file of needed) {
  if (!(await exists(path.join(built, file)))) {
    throw new Error(`${path.join(built, file)} is missing: run \`cargo xtask playground\` first`);
  }
}
await rm(generated, { recursive: true, force: true });
await mkdir(generated, { recursive: true });
await transpileInto(path.join(built, 'reconciler.wasm'), 'reconciler', 'reconciler');
await transpileInto(path.join(built, 'scenario-reader.wasm'), 'scenario-reader', 'scenario-reader');
await writeFile(path.join(generated, 'wit-types.json'), await readFile(path.join(built, 'wit-types.json')));
const pluginNames = await plugins();
const exampleList = await examples();
console.log(
  `playground components: reconciler, scenario reader, plugins [${pluginNames.join(', ')}]; ${exampleList.length} examples`,
);
