/** Times and durations as the page shows them: nanoseconds since the epoch as UTC, spans in the host's phrasing. */

import type { Int } from './contract.ts';

const NS_PER_MS = 1_000_000n;

/** `2026-01-01 00:00:30Z` for a time in nanoseconds. */
export function clock(ns: Int): string {
  const iso = new Date(Number(BigInt(ns) / NS_PER_MS)).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z`;
}

/** `in 15s`, `10m ago` or `now`: `at` seen from `now`. */
export function relative(at: Int, now: Int): string {
  const delta = BigInt(at) - BigInt(now);
  if (delta === 0n) return 'now';
  const text = span(delta < 0n ? -delta : delta);
  return delta > 0n ? `in ${text}` : `${text} ago`;
}

/** A span of nanoseconds in its largest units, as the host phrases it: `1h30m`, `250ms`. */
export function span(ns: bigint): string {
  if (ns === 0n) return '0s';
  const units: [bigint, string][] = [
    [3_600_000_000_000n, 'h'],
    [60_000_000_000n, 'm'],
    [1_000_000_000n, 's'],
    [1_000_000n, 'ms'],
  ];
  let rest = ns;
  let out = '';
  for (const [size, unit] of units) {
    if (rest >= size) {
      out += `${rest / size}${unit}`;
      rest %= size;
    }
  }
  return rest > 0n ? `${out}${rest}ns` : out;
}

/** The steps a round may advance time by, in nanoseconds. */
export const STEPS: [string, bigint][] = [
  ['10s', 10_000_000_000n],
  ['30s', 30_000_000_000n],
  ['1m', 60_000_000_000n],
  ['5m', 300_000_000_000n],
  ['15m', 900_000_000_000n],
  ['1h', 3_600_000_000_000n],
];
