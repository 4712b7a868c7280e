// Conversions between slotwise's JSON rendering and jco's; see rendering.js.

/** A WIT type as wit-types.json writes it. */
export type WitType =
  | string
  | { ref: string }
  | { list: WitType }
  | { option: WitType }
  | { tuple: WitType[] }
  | { result: { ok: WitType | null; err: WitType | null } };

/** Conversions bound to one type description. */
export interface Codec {
  /** `value`, in slotwise's rendering, as jco takes it. */
  lower(value: unknown, type: WitType): unknown;
  /** `value`, as jco gives it, in slotwise's rendering. */
  lift(value: unknown, type: WitType): unknown;
}

/** The conversions for the contract `witTypes` (the parsed wit-types.json) describes. */
export function codec(witTypes: unknown): Codec;
export function toComponent(value: unknown, type: WitType, witTypes: unknown, path?: string): unknown;
export function fromComponent(value: unknown, type: WitType, witTypes: unknown, path?: string): unknown;
/** The camelCase name jco gives a WIT name. */
export function camelCase(name: string): string;
/** The `err` payload a jco export threw, or undefined for anything else (a trap). */
export function errPayload(e: unknown): unknown;
/** JSON text parsed with integers beyond 2^53 as BigInt. */
export function parseJson(text: string): unknown;
/** JSON text with BigInt values written as plain numbers. */
export function stringifyJson(value: unknown, indent?: number): string;
