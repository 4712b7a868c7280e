/** A scenario's text read by the package's scenario reader, with errors placed for the editor. */

import { ScenarioError, type PluginRequest, type Relay } from '@slotwise/reconciler';
import { scenarioReader, type Syntax } from './components.ts';
import type { ReconcileInput } from './contract.ts';

export type { PluginRequest };

/** A scenario, read. */
export interface Scenario {
  text: string;
  syntax: Syntax;
  description: string | null;
  input: ReconcileInput;
  plugins: PluginRequest[];
  /** The relay of the scenario's scripted policy, when it scripts one. */
  scripted: Relay | null;
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
  const reader = await scenarioReader();
  try {
    const read = reader.scenario(text, { syntax });
    return { scenario: { ...read, text, syntax, input: read.input as unknown as ReconcileInput } };
  } catch (e) {
    if (!(e instanceof ScenarioError)) throw e;
    return { error: { message: e.reason, field: e.field, line: e.line, column: e.column } };
  }
}
