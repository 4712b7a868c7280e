// Records' encoders and decoders: straight-line code generated for their fields, or, where a content security policy forbids generating code, loops over them.
//
// A record's encoder reads every field by name, and its decoder builds an
// object field by field. In one loop shared by every record type, those reads,
// writes and the calls of the fields' codecs see every shape and every codec
// of the contract, and V8 can neither cache nor inline them; a function
// generated per record type reads each field as a constant property, builds
// the object from one literal, and calls one codec per call site.

import { misfit, Misfit, within } from './wire-errors.js';

/**
 * The encoder of the record `name`, whose fields are `fields`: each with its
 * `key`, its `encode`r, whether it may be absent (`optional`), and, for an
 * option, the encoder of its value (`some`), which the record writes after
 * its tag itself.
 */
export function recordEncoder(name, fields) {
  const expected = `a ${name} record`;
  const missing = `missing field of ${name}`;
  try {
    return generated(expected, missing, fields);
  } catch (e) {
    if (e instanceof EvalError) return looping(expected, missing, fields);
    throw e;
  }
}

/** The decoder of a record whose fields are `keys`, read by `decoders`. */
export function recordDecoder(keys, decoders) {
  try {
    const names = decoders.map((_, i) => `d${i}`);
    const fields = keys.map((key, i) => `${JSON.stringify(key)}: d${i}(r)`);
    const body = `return function decodeRecord(r) {\n  return { ${fields.join(', ')} };\n};`;
    return new Function(...names, body)(...decoders);
  } catch (e) {
    if (e instanceof EvalError) return loopingDecoder(keys, decoders);
    throw e;
  }
}

function loopingDecoder(keys, decoders) {
  const n = keys.length;
  return (r) => {
    const out = {};
    for (let i = 0; i < n; i++) out[keys[i]] = decoders[i](r);
    return out;
  };
}

function generated(expected, missing, fields) {
  const lines = [
    'return function encodeRecord(w, v) {',
    '  if (v === null || typeof v !== "object" || Array.isArray(v)) misfit(expected, v);',
    '  let i = 0;',
    '  try {',
  ];
  fields.forEach((f, i) => {
    lines.push(`    i = ${i};`, `    const x${i} = v[${JSON.stringify(f.key)}];`);
    if (f.some !== null) {
      lines.push(`    if (x${i} === null || x${i} === undefined) w.byte(0);`, `    else { w.byte(1); e${i}(w, x${i}); }`);
    } else {
      if (!f.optional) lines.push(`    if (x${i} === undefined) throw new Misfit(missing);`);
      lines.push(`    e${i}(w, x${i});`);
    }
  });
  lines.push('  } catch (e) {', '    throw within(e, steps[i]);', '  }', '};');
  const names = fields.map((_, i) => `e${i}`);
  const encoders = fields.map((f) => (f.some !== null ? f.some : f.encode));
  const steps = fields.map((f) => `.${f.key}`);
  const factory = new Function('misfit', 'Misfit', 'within', 'expected', 'missing', 'steps', ...names, lines.join('\n'));
  return factory(misfit, Misfit, within, expected, missing, steps, ...encoders);
}

function looping(expected, missing, fields) {
  const keys = fields.map((f) => f.key);
  const encoders = fields.map((f) => f.encode);
  const optional = fields.map((f) => f.optional);
  const n = fields.length;
  return (w, v) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) misfit(expected, v);
    let i = 0;
    try {
      for (; i < n; i++) {
        const value = v[keys[i]];
        if (value === undefined && !optional[i]) throw new Misfit(missing);
        encoders[i](w, value);
      }
    } catch (e) {
      throw within(e, `.${keys[i]}`);
    }
  };
}
