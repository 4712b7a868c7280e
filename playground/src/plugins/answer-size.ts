/** How much a plugin may say in one answer, bounded as the host bounds it (host/src/plugins/answer_size.rs), so that both report an oversized answer alike. */

import type { HookName } from './messages.ts';

/** Text an answer may hold: its reason and the allocations it names. */
const MAX_TEXT = 16 << 10;

/** Slot data an answer may attach. */
const MAX_EXT = 4 << 10;

type Decision = { tag: string; val?: unknown };

/** Why the answer `hook` got, in jco's rendering, is too large; null when it is within bounds. */
export function oversized(hook: HookName, answer: unknown): string | null {
  if (hook === 'promotion') {
    return check(utf8((answer as Decision).val), undefined);
  }
  const { decision, ext } = answer as { decision: Decision; ext?: Uint8Array };
  let text = 0;
  if (decision.tag === 'hold' || decision.tag === 'veto') {
    text = utf8(decision.val);
  } else if (decision.tag === 'defer') {
    text = utf8((decision.val as { reason: string }).reason);
  } else if (decision.tag === 'adjust') {
    const adjustment = decision.val as { reason: string; candidates: { allocation: string }[] };
    text = utf8(adjustment.reason) + adjustment.candidates.reduce((n, c) => n + utf8(c.allocation), 0);
  }
  return check(text, ext);
}

function check(text: number, ext: Uint8Array | undefined): string | null {
  if (text > MAX_TEXT) {
    return `answered ${digits(text)} bytes of text, more than the limit of ${kib(MAX_TEXT)} per answer`;
  }
  if (ext !== undefined && ext.length > MAX_EXT) {
    return `attached ${digits(ext.length)} bytes of slot data, more than the limit of ${kib(MAX_EXT)} per answer`;
  }
  return null;
}

/** The length in bytes of `text` as UTF-8, as Rust counts a string. */
function utf8(text: unknown): number {
  return new TextEncoder().encode(String(text)).length;
}

/** `100000` as `100,000`. */
function digits(n: number): string {
  return n.toLocaleString('en-US');
}

/** A limit in KiB as the host prints it: `16.0 KiB`. */
function kib(n: number): string {
  return `${(n / 1024).toFixed(1)} KiB`;
}
