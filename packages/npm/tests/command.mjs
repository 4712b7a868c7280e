// The `slotwise` command the package is compared with, and the repository's scenarios, for the package's tests.
//
// SLOTWISE is the command, SLOTWISE_ROOT the repository whose scenarios are read.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseJson, readScenario } from '@slotwise/reconciler';

export const root = process.env.SLOTWISE_ROOT;
const slotwise = process.env.SLOTWISE;
assert.ok(root && slotwise, 'SLOTWISE_ROOT and SLOTWISE name the repository and the command');

/** `slotwise` run with `args` in the repository: its exit code and output. */
export async function runSlotwise(...args) {
  try {
    const { stdout, stderr } = await promisify(execFile)(slotwise, args, { cwd: root, maxBuffer: 64 << 20 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    if (typeof e.code !== 'number') throw e;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** What `slotwise` prints with `args`, as bytes (`slotwise input --wire`); it must succeed. */
export async function slotwiseBytes(...args) {
  const { stdout } = await promisify(execFile)(slotwise, args, { cwd: root, encoding: 'buffer', maxBuffer: 64 << 20 });
  return new Uint8Array(stdout);
}

/** What `slotwise` prints with `args`, parsed; it must succeed. */
export async function slotwiseJson(...args) {
  const { code, stdout, stderr } = await runSlotwise(...args);
  assert.equal(code, 0, `slotwise ${args.join(' ')} failed: ${stderr}`);
  return parseJson(stdout);
}

/** The reconciler input of the repository's scenario file `scenario`, read by the package. */
export async function scenarioInput(scenario) {
  return readScenario(await readFile(path.join(root, scenario), 'utf8'));
}
