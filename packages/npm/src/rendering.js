// Converts WIT values between slotwise's JSON rendering (the CLI's) and jco's JavaScript rendering, driven by the contract's description (wit-types.json): one codec for the package, the playground and the Node tests.

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

const INTEGER_RANGES = {
  u8: [0, 0xff],
  u16: [0, 0xffff],
  u32: [0, 0xffffffff],
  s8: [-0x80, 0x7f],
  s16: [-0x8000, 0x7fff],
  s32: [-0x80000000, 0x7fffffff],
};

const BIG_RANGES = {
  u64: [0n, 2n ** 64n - 1n],
  s64: [-(2n ** 63n), 2n ** 63n - 1n],
};

/** The camelCase name jco gives the WIT name `name`: "job-modify-index" → "jobModifyIndex". */
export function camelCase(name) {
  return name
    .split('-')
    .map((part, i) => (i === 0 ? part : part.charAt(0).toUpperCase() + part.slice(1)))
    .join('');
}

/** The signature of function `name` (of interface `iface`, if given) in `witTypes`. */
export function findFunction(witTypes, name, iface) {
  const found = witTypes.functions.find(
    (f) => f.name === name && (iface === undefined || f.interface === iface),
  );
  if (!found) {
    throw new Error(`wit-types.json describes no function ${iface ? `${iface}.` : ''}${name}`);
  }
  return found;
}

/**
 * Calls the jco export `fn` with `args` in the slotwise rendering, returning its
 * result in that rendering: for a function returning result<T, E>, {Ok: T} or
 * {Err: E}. Errors that are not the function's `err` (traps, bad arguments)
 * are thrown.
 */
export function callFunction(fn, signature, args, witTypes) {
  if (args.length !== signature.params.length) {
    throw new TypeError(`${signature.name} takes ${signature.params.length} arguments, got ${args.length}`);
  }
  const lowered = signature.params.map((p, i) => toComponent(args[i], p.type, witTypes, p.name));
  const resultType = signature.result;
  if (resultType === null || !isResultType(resultType)) {
    const value = fn(...lowered);
    return resultType === null ? null : fromComponent(value, resultType, witTypes, 'result');
  }
  const { ok, err } = resultType.result;
  let value;
  try {
    value = fn(...lowered);
  } catch (e) {
    const payload = errorPayload(e);
    if (payload === NOT_A_RESULT) {
      throw e;
    }
    return { Err: err === null ? null : fromComponent(payload, err, witTypes, 'err') };
  }
  return { Ok: ok === null ? null : fromComponent(value, ok, witTypes, 'ok') };
}

const NOT_A_RESULT = Symbol('not a result error');

/**
 * The `err` payload a jco export threw: a ComponentError's `payload`, or the
 * value itself when transpiled with --no-component-error-wrapping. JS errors
 * without a payload (traps, TypeErrors) are not payloads.
 */
function errorPayload(e) {
  if (e !== null && typeof e === 'object' && Object.prototype.hasOwnProperty.call(e, 'payload')) {
    return e.payload;
  }
  if (e instanceof Error) {
    return NOT_A_RESULT;
  }
  return e;
}

/**
 * The `err` payload a jco export threw, or undefined for anything else (a
 * trap, a TypeError).
 */
export function errPayload(e) {
  const payload = errorPayload(e);
  return payload === NOT_A_RESULT ? undefined : payload;
}

/**
 * Conversions bound to one type description (target/slotwise/wit-types.json):
 * `lower` takes slotwise's rendering to jco's, `lift` jco's to slotwise's.
 */
export function codec(witTypes) {
  return {
    lower: (value, type) => toComponent(value, type, witTypes),
    lift: (value, type) => fromComponent(value, type, witTypes),
  };
}

function isResultType(type) {
  return typeof type === 'object' && type !== null && 'result' in type;
}

/** The definition of named type `name`, aliases followed to their target. */
function resolveRef(witTypes, name, path) {
  const def = witTypes.types[name];
  if (def === undefined) {
    throw new TypeError(`${path}: wit-types.json describes no type ${name}`);
  }
  return def;
}

/** Whether `type` is an option, through aliases; nested options are tagged by jco. */
function isOptionType(type, witTypes) {
  for (;;) {
    if (typeof type === 'string' || type === null) {
      return false;
    }
    if ('option' in type) {
      return true;
    }
    if ('ref' in type) {
      const def = witTypes.types[type.ref];
      if (def === undefined || def.kind !== 'alias') {
        return false;
      }
      type = def.type;
    } else {
      return false;
    }
  }
}

function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Uint8Array) return 'a Uint8Array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

function fail(path, expected, value) {
  throw new TypeError(`${path}: expected ${expected}, got ${describe(value)}`);
}

function isPlainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array);
}

/** A u64/s64 as BigInt, from a number or a BigInt. */
function toBig(value, prim, path) {
  let big;
  if (typeof value === 'bigint') {
    big = value;
  } else if (typeof value === 'number' && Number.isInteger(value)) {
    big = BigInt(value);
  } else {
    fail(path, prim, value);
  }
  const [min, max] = BIG_RANGES[prim];
  if (big < min || big > max) {
    fail(path, prim, value);
  }
  return big;
}

/** A u64/s64 in the slotwise rendering: a number when it is exact, else a BigInt. */
function fromBig(value, prim, path) {
  if (typeof value !== 'bigint') {
    fail(path, `${prim} as BigInt`, value);
  }
  return value >= -SAFE && value <= SAFE ? Number(value) : value;
}

function primitive(value, prim, path, toJco) {
  switch (prim) {
    case 'bool':
      if (typeof value !== 'boolean') fail(path, 'bool', value);
      return value;
    case 'string':
      if (typeof value !== 'string') fail(path, 'string', value);
      return value;
    case 'char':
      if (typeof value !== 'string' || [...value].length !== 1) fail(path, 'char', value);
      return value;
    case 'f32':
    case 'f64':
      if (toJco) {
        if (value === null) return NaN;
        if (typeof value === 'bigint') return Number(value);
        if (typeof value !== 'number') fail(path, prim, value);
        return value;
      }
      if (typeof value !== 'number') fail(path, prim, value);
      return Number.isFinite(value) ? value : null;
    case 'u64':
    case 's64':
      return toJco ? toBig(value, prim, path) : fromBig(value, prim, path);
    default: {
      const range = INTEGER_RANGES[prim];
      if (range === undefined) {
        throw new TypeError(`${path}: unknown primitive type ${prim}`);
      }
      if (typeof value === 'bigint' && !toJco) fail(path, prim, value);
      const n = typeof value === 'bigint' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < range[0] || n > range[1]) {
        fail(path, prim, value);
      }
      return n;
    }
  }
}

/**
 * Converts `value` of WIT type `type` from the slotwise JSON rendering to the
 * one jco's bindings take. `path` names the value in error messages.
 *
 * `witTypes` is the parsed wit-types.json that `cargo xtask build` writes. A
 * type is a primitive name ("u32", "s64", "string", ...), {ref: name},
 * {option: T}, {list: T}, {tuple: [T...]} or {result: {ok: T | null, err: T | null}}.
 * The two renderings:
 *
 *   WIT            slotwise JSON (serde)              jco
 *   record         object, kebab-case keys            object, camelCase keys
 *   enum           "case-name"                        "case-name"
 *   variant        "case" or {"case": payload}        {tag: "case"} or {tag: "case", val}
 *   flags          ["flag-name", ...] (set flags)     {flagName: boolean, ...}
 *   option<T>      null or T                          undefined or T
 *   option<opt.>   null or T (inner none: null)       {tag: "none"} or {tag: "some", val}
 *   result<T, E>   {"Ok": T} or {"Err": E}            {tag: "ok", val} or {tag: "err", val}
 *   list<u8>       [n, ...]                           Uint8Array
 *   list, tuple    array                              array
 *   u64, s64       number (BigInt beyond 2^53)        BigInt
 *   f32, f64       number (null when not finite)      number
 *
 * A function returning result<T, E> returns T through jco, or throws a
 * ComponentError whose `payload` is E: `callFunction` turns both into the
 * serde rendering, {Ok: T} or {Err: E}.
 *
 * The module uses no Node API, so that a browser can load it as it is.
 */
export function toComponent(value, type, witTypes, path = 'value') {
  return convert(value, type, witTypes, path, true);
}

/**
 * Converts `value` of WIT type `type` from the rendering jco's bindings return
 * to the slotwise JSON rendering. `path` names the value in error messages.
 */
export function fromComponent(value, type, witTypes, path = 'value') {
  return convert(value, type, witTypes, path, false);
}

function convert(value, type, witTypes, path, toJco) {
  if (typeof type === 'string') {
    return primitive(value, type, path, toJco);
  }
  if (type === null || typeof type !== 'object') {
    throw new TypeError(`${path}: malformed type ${JSON.stringify(type)}`);
  }
  if ('ref' in type) {
    return convertNamed(value, resolveRef(witTypes, type.ref, path), type.ref, witTypes, path, toJco);
  }
  if ('option' in type) {
    return convertOption(value, type.option, witTypes, path, toJco);
  }
  if ('list' in type) {
    return convertList(value, type.list, witTypes, path, toJco);
  }
  if ('tuple' in type) {
    if (!Array.isArray(value) || value.length !== type.tuple.length) {
      fail(path, `a tuple of ${type.tuple.length}`, value);
    }
    return type.tuple.map((t, i) => convert(value[i], t, witTypes, `${path}[${i}]`, toJco));
  }
  if ('result' in type) {
    return convertResult(value, type.result, witTypes, path, toJco);
  }
  throw new TypeError(`${path}: malformed type ${JSON.stringify(type)}`);
}

function convertOption(value, inner, witTypes, path, toJco) {
  const nested = isOptionType(inner, witTypes);
  if (toJco) {
    if (value === null || value === undefined) {
      return nested ? { tag: 'none' } : undefined;
    }
    const val = convert(value, inner, witTypes, path, true);
    return nested ? { tag: 'some', val } : val;
  }
  if (nested) {
    if (!isPlainObject(value) || (value.tag !== 'some' && value.tag !== 'none')) {
      fail(path, '{tag: "some" | "none"}', value);
    }
    return value.tag === 'none' ? null : convert(value.val, inner, witTypes, path, false);
  }
  if (value === undefined || value === null) {
    return null;
  }
  return convert(value, inner, witTypes, path, false);
}

function convertList(value, element, witTypes, path, toJco) {
  if (element === 'u8') {
    if (toJco) {
      if (value instanceof Uint8Array) return value;
      if (!Array.isArray(value)) fail(path, 'list<u8>', value);
      return Uint8Array.from(value, (v, i) => primitive(v, 'u8', `${path}[${i}]`, true));
    }
    if (!(value instanceof Uint8Array) && !Array.isArray(value)) fail(path, 'list<u8>', value);
    return Array.from(value);
  }
  if (!Array.isArray(value)) {
    fail(path, 'a list', value);
  }
  return value.map((v, i) => convert(v, element, witTypes, `${path}[${i}]`, toJco));
}

function convertResult(value, { ok, err }, witTypes, path, toJco) {
  const payload = (t, v, p) => (t === null ? (toJco ? undefined : null) : convert(v, t, witTypes, p, toJco));
  if (toJco) {
    if (isPlainObject(value) && 'Ok' in value) return { tag: 'ok', val: payload(ok, value.Ok, `${path}.Ok`) };
    if (isPlainObject(value) && 'Err' in value) return { tag: 'err', val: payload(err, value.Err, `${path}.Err`) };
    fail(path, '{Ok: ...} or {Err: ...}', value);
  }
  if (isPlainObject(value) && value.tag === 'ok') return { Ok: payload(ok, value.val, `${path}.ok`) };
  if (isPlainObject(value) && value.tag === 'err') return { Err: payload(err, value.val, `${path}.err`) };
  fail(path, '{tag: "ok" | "err", val}', value);
}

function convertNamed(value, def, name, witTypes, path, toJco) {
  switch (def.kind) {
    case 'alias':
      return convert(value, def.type, witTypes, path, toJco);
    case 'record':
      return convertRecord(value, def, name, witTypes, path, toJco);
    case 'enum':
      if (typeof value !== 'string' || !def.cases.includes(value)) {
        fail(path, `a case of ${name} (${def.cases.join(', ')})`, value);
      }
      return value;
    case 'variant':
      return convertVariant(value, def, name, witTypes, path, toJco);
    case 'flags':
      return convertFlags(value, def, name, path, toJco);
    default:
      throw new TypeError(`${path}: type ${name} has an unknown kind ${def.kind}`);
  }
}

function convertRecord(value, def, name, witTypes, path, toJco) {
  if (!isPlainObject(value)) {
    fail(path, `a ${name} record`, value);
  }
  const out = {};
  const known = new Set();
  for (const field of def.fields) {
    const from = toJco ? field.name : camelCase(field.name);
    const to = toJco ? camelCase(field.name) : field.name;
    known.add(from);
    const fieldPath = `${path}.${field.name}`;
    if (!(from in value) && !isOptionType(field.type, witTypes)) {
      throw new TypeError(`${fieldPath}: missing field of ${name}`);
    }
    out[to] = convert(value[from], field.type, witTypes, fieldPath, toJco);
  }
  if (toJco) {
    const unknown = Object.keys(value).filter((k) => !known.has(k));
    if (unknown.length > 0) {
      throw new TypeError(`${path}: unknown field ${unknown[0]} of ${name}`);
    }
  }
  return out;
}

function convertVariant(value, def, name, witTypes, path, toJco) {
  let tag;
  let payload;
  if (toJco) {
    if (typeof value === 'string') {
      tag = value;
    } else if (isPlainObject(value) && Object.keys(value).length === 1) {
      [[tag, payload]] = Object.entries(value);
    } else {
      fail(path, `a case of ${name}`, value);
    }
  } else {
    if (!isPlainObject(value) || typeof value.tag !== 'string') {
      fail(path, `a case of ${name} as {tag, val}`, value);
    }
    ({ tag, val: payload } = value);
  }
  const c = def.cases.find((candidate) => candidate.name === tag);
  if (c === undefined) {
    fail(path, `a case of ${name} (${def.cases.map((x) => x.name).join(', ')})`, tag);
  }
  if (c.type === null) {
    return toJco ? { tag } : tag;
  }
  const val = convert(payload, c.type, witTypes, `${path}.${tag}`, toJco);
  return toJco ? { tag, val } : { [tag]: val };
}

function convertFlags(value, def, name, path, toJco) {
  if (toJco) {
    if (!Array.isArray(value)) fail(path, `a list of ${name} flags`, value);
    for (const flag of value) {
      if (!def.flags.includes(flag)) fail(path, `a flag of ${name} (${def.flags.join(', ')})`, flag);
    }
    return Object.fromEntries(def.flags.map((flag) => [camelCase(flag), value.includes(flag)]));
  }
  if (!isPlainObject(value)) fail(path, `${name} flags as an object`, value);
  return def.flags.filter((flag) => value[camelCase(flag)] === true);
}

/**
 * JSON.parse, except that integers beyond ±2^53, which a double cannot hold
 * exactly, become BigInt: the u64 and s64 values slotwise prints stay exact.
 */
export function parseJson(text) {
  let pos = 0;
  const error = (what) => {
    throw new SyntaxError(`JSON: ${what} at offset ${pos}`);
  };
  const ws = () => {
    while (pos < text.length && ' \t\n\r'.includes(text[pos])) pos++;
  };
  const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
  const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
  const LITERAL = /true|false|null/y;
  const match = (re) => {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (m) pos = re.lastIndex;
    return m;
  };
  const value = () => {
    ws();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const obj = {};
      ws();
      if (text[pos] === '}') {
        pos++;
        return obj;
      }
      for (;;) {
        ws();
        const key = match(STRING) ?? error('expected a key');
        ws();
        if (text[pos++] !== ':') error('expected ":"');
        Object.defineProperty(obj, JSON.parse(key[0]), {
          value: value(),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        ws();
        const sep = text[pos++];
        if (sep === '}') return obj;
        if (sep !== ',') error('expected "," or "}"');
      }
    }
    if (c === '[') {
      pos++;
      const arr = [];
      ws();
      if (text[pos] === ']') {
        pos++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        const sep = text[pos++];
        if (sep === ']') return arr;
        if (sep !== ',') error('expected "," or "]"');
      }
    }
    if (c === '"') {
      const s = match(STRING) ?? error('malformed string');
      return JSON.parse(s[0]);
    }
    const literal = match(LITERAL);
    if (literal) {
      return JSON.parse(literal[0]);
    }
    const number = match(NUMBER) ?? error('unexpected character');
    const isInteger = number[1] === undefined && number[2] === undefined;
    const n = Number(number[0]);
    return isInteger && !Number.isSafeInteger(n) ? BigInt(number[0]) : n;
  };
  const result = value();
  ws();
  if (pos !== text.length) error('unexpected trailing text');
  return result;
}

/** JSON.stringify, except that BigInt values are written as plain numbers. */
export function stringifyJson(value, indent = 2) {
  const marker = `\u2063bigint${Math.random().toString(36).slice(2)}:`;
  const text = JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `${marker}${v}` : v), indent);
  return text.replace(new RegExp(`"${marker}(-?\\d+)"`, 'g'), '$1');
}
