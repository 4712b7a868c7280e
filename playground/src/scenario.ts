/** A scenario's text read into the reconciler input by the scenario reader component, with errors placed for the editor. */

import { errPayload, parseJson } from './wit.ts';
import { scenarioReader, type Syntax } from './components.ts';
import type { ReconcileInput } from './contract.ts';

/** A plugin as the scenario's `plugins` list asks for it. */
export interface PluginRequest {
  /** A bundled plugin, by name; none when the scenario gives a file path. */
  plugin: string | null;
  path: string | null;
  name: string | null;
  /** The SHA-256 its component file must have, when pinned. */
  sha256: string | null;
  settings: string;
  monitor: boolean;
  failOpen: boolean;
  /** Milliseconds per hook call, when the scenario sets a deadline. */
  deadlineMs: number | null;
  /** Milliseconds in all calls of one reconcile, when the scenario sets them. */
  reconcileDeadlineMs: number | null;
}

/** A scenario, read. */
export interface Scenario {
  text: string;
  syntax: Syntax;
  description: string | null;
  input: ReconcileInput;
  plugins: PluginRequest[];
  /** The scripted policy's plugins, the JSON of session `consulted` records, when it scripts one. */
  scripted: string | null;
}

/** Why a text is not a scenario, and where. */
export interface ReadError {
  message: string;
  field: string | null;
  line: number | null;
  column: number | null;
}

export async function readScenario(
  text: string,
  syntax: Syntax,
): Promise<{ scenario: Scenario } | { error: ReadError }> {
  const { reader } = await scenarioReader();
  try {
    const read = reader.read(text, syntax);
    return {
      scenario: {
        text,
        syntax,
        description: read.description ?? null,
        input: parseJson(read.input) as ReconcileInput,
        plugins: read.plugins.map((p) => ({
          plugin: p.plugin ?? null,
          path: p.path ?? null,
          name: p.name ?? null,
          sha256: p.sha256 ?? null,
          settings: p.settings,
          monitor: p.monitor,
          failOpen: p.failOpen,
          deadlineMs: p.deadline === undefined ? null : Number(p.deadline / 1_000_000n),
          reconcileDeadlineMs: p.reconcileDeadline === undefined ? null : Number(p.reconcileDeadline / 1_000_000n),
        })),
        scripted: read.scripted ?? null,
      },
    };
  } catch (e) {
    const payload = errPayload(e) as
      | { message: string; field?: string; line?: number; column?: number }
      | undefined;
    if (payload === undefined) throw e;
    return {
      error: {
        message: payload.message,
        field: payload.field ?? null,
        line: payload.line ?? null,
        column: payload.column ?? null,
      },
    };
  }
}
