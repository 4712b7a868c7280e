// What the wire codec's encoders and decoders share: the walk of the WIT type description, each named type compiled once.

/**
 * Compiles the types `witTypes` describes into functions, once each. `kit`
 * says what each kind of type compiles to: `primitives` (by WIT name),
 * `bytes`, `option(inner)`, `list(item)`, `tuple(items)`, `result(type,
 * compiler)` and `forward(get)`, a stand-in for a type being compiled; a
 * subclass compiles named types' definitions (`definition(name, def)`).
 */
export class TypeCompiler {
  constructor(witTypes, kit) {
    this.witTypes = witTypes;
    this.kit = kit;
    this.named = new Map();
  }

  of(type) {
    if (typeof type === 'string') {
      const primitive = this.kit.primitives[type];
      if (primitive === undefined) throw new TypeError(`the wire format has no codec for the WIT type ${type}`);
      return primitive;
    }
    if ('ref' in type) return this.ref(type.ref);
    const { kit } = this;
    if ('option' in type) return kit.option(this.of(type.option));
    if ('list' in type) return type.list === 'u8' ? kit.bytes : kit.list(this.of(type.list));
    if ('tuple' in type) return kit.tuple(type.tuple.map((t) => this.of(t)));
    if ('result' in type) return kit.result(type.result, this);
    throw new TypeError(`a malformed type ${JSON.stringify(type)}`);
  }

  /** A named type's function; resolved lazily so that the types' order does not matter. */
  ref(name) {
    const cached = this.named.get(name);
    if (cached) return cached;
    const def = this.witTypes.types[name];
    if (def === undefined) throw new TypeError(`wit-types.json describes no type ${name}`);
    // Types refer to each other by name: the cache holds a forwarder until
    // the definition is compiled, then the compiled function itself.
    let compiled = null;
    this.named.set(name, this.kit.forward(() => compiled));
    compiled = this.definition(name, def);
    this.named.set(name, compiled);
    return compiled;
  }
}
