/** The WIT contract in the browser: the type description `cargo xtask build` writes, and the conversions of tests/node/wit-values.js between slotwise's JSON rendering and jco's. */

import witTypes from '../generated/wit-types.json';
import { fromComponent, parseJson, stringifyJson, toComponent } from '../../tests/node/wit-values.js';

/** A WIT type as wit-types.json writes it. */
export type WitType = string | { ref: string } | { list: WitType } | { option: WitType };

/** `value`, in slotwise's rendering, as jco takes it. */
export function lower(value: unknown, type: WitType): unknown {
  return toComponent(value, type, witTypes);
}

/** `value`, as jco gives it, in slotwise's rendering. */
export function lift<T>(value: unknown, type: WitType): T {
  return fromComponent(value, type, witTypes) as T;
}

/** The payload of the `err` a jco export threw, or undefined for anything else (a trap). */
export function errPayload(e: unknown): unknown {
  if (e !== null && typeof e === 'object' && 'payload' in e) {
    return (e as { payload: unknown }).payload;
  }
  return undefined;
}

export { parseJson, stringifyJson };
