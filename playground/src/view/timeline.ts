/** The timeline: every round played, each one reopened with a click. */

import type { Round } from '../rounds.ts';
import { clock } from '../time.ts';
import { h } from './dom.ts';

export function renderTimeline(host: HTMLElement, rounds: Round[], current: number, onOpen: (index: number) => void): void {
  host.replaceChildren(
    h('h2', {}, 'Timeline'),
    h(
      'ol',
      { class: 'timeline' },
      rounds.map((round, i) => {
        const button = h(
          'button',
          { type: 'button', 'aria-current': i === current ? 'step' : null, 'data-round': round.number },
          `Round ${round.number}`,
          h('span', { class: 'muted' }, ` · ${clock(round.input.now)} · ${summary(round)}`),
        );
        button.addEventListener('click', () => onOpen(i));
        return h('li', {}, button);
      }),
    ),
  );
}

function summary(round: Round): string {
  const outcome = round.outcome;
  if (!('plan' in outcome)) return 'no plan';
  const totals = new Map<string, number>();
  for (const g of outcome.plan.groups) {
    for (const [name, n] of Object.entries(g.counters)) {
      if (n > 0 && name !== 'ignore') totals.set(name, (totals.get(name) ?? 0) + n);
    }
  }
  return totals.size === 0 ? 'no change' : [...totals].map(([name, n]) => `${name} ${n}`).join(', ');
}
