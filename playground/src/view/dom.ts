/** Building DOM elements in a line: a tag, its attributes, its children. */

type Child = Node | string | number | null | undefined | false;
/** Children may come in nested lists, as `map` makes them. */
type Children = Child | Children[];

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number | boolean | null | undefined> = {},
  ...children: Children[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of leaves(children)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

function* leaves(children: Children[]): Generator<Child> {
  for (const child of children) {
    if (Array.isArray(child)) yield* leaves(child);
    else yield child;
  }
}
