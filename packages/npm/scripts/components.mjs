// Transpiles the components the package bundles with jco, for `cargo xtask packages`: the reconciler and the scenario reader.
//
// Usage: node scripts/components.mjs COMPONENTS_DIR OUT_DIR. Each component becomes
// OUT_DIR/<name>/: jco's JavaScript, instantiated synchronously from core modules the package
// compiles once, and index.js naming those core modules.

import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { transpile } from '@bytecodealliance/jco';

const [componentsDir, outDir] = process.argv.slice(2);
if (!componentsDir || !outDir) {
  throw new Error('usage: node scripts/components.mjs COMPONENTS_DIR OUT_DIR');
}

for (const name of ['reconciler', 'scenario-reader']) {
  const { files, imports } = await transpile(await readFile(path.join(componentsDir, `${name}.wasm`)), {
    name,
    instantiation: 'sync',
    noTypescript: true,
    quiet: true,
  });
  if (imports.length > 0) {
    throw new Error(`${name} imports ${imports.join(', ')}: the package bundles only components that import nothing`);
  }
  const dir = path.join(outDir, name);
  await rm(dir, { recursive: true, force: true });
  for (const [file, bytes] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), bytes);
  }
  const cores = Object.keys(files).filter((f) => f.endsWith('.wasm'));
  const lines = [
    '// Written by scripts/components.mjs: the transpiled component and the core modules it instantiates.',
    `export { instantiate } from './${name}.js';`,
    `export const cores = ${JSON.stringify(cores)};`,
    '',
  ];
  await writeFile(path.join(dir, 'index.js'), lines.join('\n'));
  console.log(`${name}: ${Object.keys(files).length} files, core modules ${cores.join(', ')}`);
}
