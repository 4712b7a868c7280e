/** The plugins panel: each bundled plugin with its metadata, a switch, its settings, how its failures count and its deadline. */

import { nameOf, type BundledPlugin } from '../plugins/catalog.ts';
import { h } from './dom.ts';

export function renderPluginsPanel(host: HTMLElement, catalog: BundledPlugin[], notes: string[], onChange: () => void): void {
  host.replaceChildren(
    h(
      'div',
      {},
      h('h2', {}, 'Plugins'),
      catalog.length === 0 ? h('p', { class: 'muted' }, 'No plugin is bundled: build some with `cargo xtask build`.') : null,
      notes.map((n) => h('p', { class: 'note' }, n)),
      catalog.map((p) => renderPlugin(p, onChange)),
    ),
  );
}

function renderPlugin(plugin: BundledPlugin, onChange: () => void): HTMLElement {
  const id = `plugin-${plugin.file}`;
  const meta = plugin.metadata;
  const toggle = h('input', { type: 'checkbox', id: `${id}-on`, checked: plugin.enabled, disabled: 'error' in meta, 'data-plugin': plugin.file });
  toggle.addEventListener('change', () => {
    plugin.enabled = toggle.checked;
    plugin.fromScenario = false;
    onChange();
  });
  const settings = h('textarea', { id: `${id}-settings`, rows: 3, spellcheck: 'false', 'aria-label': `Settings of ${nameOf(plugin)} (JSON)` });
  settings.value = plugin.settings;
  settings.addEventListener('change', () => {
    plugin.settings = settings.value;
    if (plugin.enabled) onChange();
  });
  const monitor = h('input', { type: 'checkbox', id: `${id}-monitor`, checked: plugin.monitor });
  monitor.addEventListener('change', () => {
    plugin.monitor = monitor.checked;
    if (plugin.enabled) onChange();
  });
  const failOpen = h('input', { type: 'checkbox', id: `${id}-fail-open`, checked: plugin.failOpen });
  failOpen.addEventListener('change', () => {
    plugin.failOpen = failOpen.checked;
    if (plugin.enabled) onChange();
  });
  const deadline = h('input', { type: 'number', id: `${id}-deadline`, min: 1, step: 1, value: plugin.deadlineMs, class: 'narrow' });
  deadline.addEventListener('change', () => {
    plugin.deadlineMs = Math.max(1, Number(deadline.value) || 1);
    if (plugin.enabled) onChange();
  });
  return h(
    'article',
    { class: 'plugin', 'data-plugin-card': plugin.file },
    h('div', { class: 'plugin-head' }, toggle, ' ', h('label', { for: `${id}-on` }, h('strong', {}, nameOf(plugin)), 'version' in meta ? ` ${meta.version}` : '')),
    'error' in meta
      ? h('p', { class: 'failure' }, `cannot be loaded: ${meta.error}`)
      : h('p', { class: 'muted' }, meta.description, h('br'), `hooks: ${meta.hooks.join(', ')}`),
    h(
      'details',
      {},
      h('summary', {}, 'Settings'),
      h('label', { for: `${id}-settings` }, 'Settings (JSON, given to configure)'),
      settings,
      h('div', { class: 'row' }, monitor, h('label', { for: `${id}-monitor` }, 'monitor only')),
      h('div', { class: 'row' }, failOpen, h('label', { for: `${id}-fail-open` }, 'fail open')),
      h('div', { class: 'row' }, h('label', { for: `${id}-deadline` }, 'deadline per call (ms)'), deadline),
    ),
  );
}
