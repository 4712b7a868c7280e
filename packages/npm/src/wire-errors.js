// The wire codec's errors: WireError for a buffer that cannot be read, FieldError for a value that does not fit the contract, and the Misfit that carries a FieldError's path out of the encoders.

/** Why a buffer could not be read. */
export class WireError extends Error {
  constructor(message) {
    super(message);
    this.name = 'WireError';
  }
}

/** A value that does not fit the contract: `path` is where, `reason` what is wrong. */
export class FieldError extends TypeError {
  constructor(path, reason) {
    super(`${path}: ${reason}`);
    this.name = 'FieldError';
    this.path = path;
    this.reason = reason;
  }
}

/** A short rendering of a value, for error messages. */
export function describe(value) {
  if (typeof value === 'bigint') return `${value}n`;
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * A value that does not fit, on its way out of the encoders. Encoders do not
 * carry the path of the value they write, which would cost a string per
 * field of every record: each container adds its step to `steps` as the
 * Misfit passes through it, innermost first, and the codec's entry point
 * turns it into a FieldError.
 */
export class Misfit {
  constructor(reason) {
    this.reason = reason;
    this.steps = [];
  }

  /** The FieldError of this misfit, under `root`. */
  fieldError(root) {
    let path = root;
    for (let i = this.steps.length - 1; i >= 0; i--) path += this.steps[i];
    return new FieldError(path, this.reason);
  }
}

/** Throws the Misfit of a value that is not the `expected` one. */
export function misfit(expected, value) {
  throw new Misfit(`expected ${expected}, got ${describe(value)}`);
}

/** `error`, with `step` added to its path when it is a Misfit; for rethrowing. */
export function within(error, step) {
  if (error instanceof Misfit) error.steps.push(step);
  return error;
}
