/** The scenario editor: a text area with line numbers, and the error of the text shown at its line. */

import type { ReadError } from '../scenario.ts';
import { h } from './dom.ts';

export class Editor {
  readonly text: HTMLTextAreaElement;
  private readonly gutter: HTMLElement;
  private readonly message: HTMLElement;
  private errorLine: number | null = null;

  constructor(host: HTMLElement, onEdit: () => void, onRun: () => void) {
    this.gutter = h('div', { class: 'gutter', 'aria-hidden': 'true' });
    this.text = h('textarea', {
      id: 'scenario-text',
      spellcheck: 'false',
      autocomplete: 'off',
      'aria-label': 'Scenario, YAML or JSON (Ctrl+Enter runs it)',
      'aria-describedby': 'scenario-error',
    });
    this.message = h('div', { id: 'scenario-error', class: 'read-error', role: 'status', 'aria-live': 'polite' });
    host.append(h('div', { class: 'editor' }, this.gutter, this.text), this.message);
    this.text.addEventListener('input', () => {
      this.number();
      onEdit();
    });
    this.text.addEventListener('scroll', () => {
      this.gutter.scrollTop = this.text.scrollTop;
    });
    this.text.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        onRun();
      }
    });
    this.message.addEventListener('click', (e) => {
      if ((e.target as HTMLElement).matches('button.goto') && this.errorLine !== null) this.goTo(this.errorLine);
    });
  }

  get value(): string {
    return this.text.value;
  }

  set value(text: string) {
    this.text.value = text;
    this.text.scrollTop = 0;
    this.number();
  }

  /** Shows `error` at its line, or clears the error. */
  showError(error: ReadError | null): void {
    this.errorLine = error?.line ?? null;
    this.text.toggleAttribute('aria-invalid', error !== null);
    this.message.replaceChildren();
    if (error !== null) {
      const where =
        error.line === null
          ? null
          : h('button', { class: 'goto', type: 'button' }, `line ${error.line}${error.column ? `, column ${error.column}` : ''}`);
      this.message.append(h('span', {}, h('span', { class: 'error-label' }, 'Error'), ' ', where, where ? ': ' : '', error.message));
    }
    this.number();
  }

  /** Puts the caret at the start of `line` and selects it. */
  goTo(line: number): void {
    const lines = this.text.value.split('\n');
    const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    this.text.focus();
    this.text.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
    const lineHeight = parseFloat(getComputedStyle(this.text).lineHeight) || 18;
    this.text.scrollTop = Math.max(0, (line - 4) * lineHeight);
  }

  private number(): void {
    const count = this.text.value.split('\n').length;
    this.gutter.replaceChildren(
      ...Array.from({ length: count }, (_, i) =>
        h('div', { class: i + 1 === this.errorLine ? 'line error' : 'line', 'data-line': i + 1 }, i + 1),
      ),
    );
    this.gutter.scrollTop = this.text.scrollTop;
  }
}
