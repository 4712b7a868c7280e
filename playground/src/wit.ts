/** The WIT contract in the page: the package's conversions (@slotwise/reconciler/rendering) bound to the type description `cargo xtask build` writes. */

import witTypes from '../generated/wit-types.json';
import { codec } from '@slotwise/reconciler/rendering';

/** A WIT type as wit-types.json writes it. */
export type WitType = string | { ref: string } | { list: WitType } | { option: WitType };

/** Conversions between slotwise's rendering and jco's. */
export interface Codec {
  /** `value`, in slotwise's rendering, as jco takes it. */
  lower(value: unknown, type: WitType): unknown;
  /** `value`, as jco gives it, in slotwise's rendering. */
  lift(value: unknown, type: WitType): unknown;
}

/** The page's conversions. */
export const pageCodec: Codec = codec(witTypes);

/** `value`, in slotwise's rendering, as jco takes it. */
export function lower(value: unknown, type: WitType): unknown {
  return pageCodec.lower(value, type);
}

/** `value`, as jco gives it, in slotwise's rendering. */
export function lift<T>(value: unknown, type: WitType): T {
  return pageCodec.lift(value, type) as T;
}

export { errPayload, parseJson, stringifyJson } from '@slotwise/reconciler/rendering';
