/** Share links: the scenario and the plugins' settings, compressed into the page address's fragment, so nothing leaves the browser. */

import type { Syntax } from './components.ts';

/** What a link carries. */
export interface Shared {
  text: string;
  syntax: Syntax;
  plugins: { file: string; settings: string; monitor: boolean; failOpen: boolean; deadlineMs: number }[];
}

const KEY = 'scenario=';

export async function encodeShared(shared: Shared): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(shared));
  const compressed = await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate-raw'))).arrayBuffer();
  let binary = '';
  for (const b of new Uint8Array(compressed)) binary += String.fromCharCode(b);
  return `#${KEY}${btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}

/** What the fragment `hash` carries, or null when it carries nothing readable. */
export async function decodeShared(hash: string): Promise<Shared | null> {
  const at = hash.indexOf(KEY);
  if (at < 0) return null;
  try {
    const base64 = hash.slice(at + KEY.length).replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const text = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'))).text();
    const shared = JSON.parse(text) as Shared;
    return typeof shared.text === 'string' ? shared : null;
  } catch {
    return null;
  }
}
