/** The bundled example scenarios: docs/examples, the policy scenarios and Nomad's conformance cases, gathered at build time. */

import examples from '../generated/examples.json';
import type { Syntax } from './components.ts';

export interface Example {
  section: string;
  /** From the repository's root. */
  path: string;
  /** Within its section. */
  name: string;
  syntax: Syntax;
  text: string;
}

export const EXAMPLES = examples as Example[];
