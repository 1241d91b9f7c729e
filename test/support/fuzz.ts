// Seeded mutations of well-formed input, for the fuzz tests in test/fuzz/: the
// same seed gives the same inputs in the same order, so a failure names an
// input that can be sent again.

/** mulberry32: a small 32-bit PRNG, good enough to pick mutations, and deterministic. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const uuid = () => {
    const hex = Array.from({ length: 32 }, () => int(16).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  };
  return { next, int, pick, uuid };
}
export type Rng = ReturnType<typeof prng>;

/** The mutation families, each applied to one argument (or to the whole input). */
export const FAMILIES = [
  'valid',
  'wrong-type',
  'null',
  'huge-string',
  'deep-object',
  'array-for-string',
  'nul',
  'lone-surrogate',
  'unknown-id',
  'uuid-unknown-id',
  'sql-ish',
  'negative-number',
  'huge-number',
  'empty-object',
  'missing-required',
  'extra-field',
  'empty-string',
] as const;
export type Family = (typeof FAMILIES)[number];

export const HUGE = 'x'.repeat(100 * 1024);
const SQLISH = [
  "'; drop table messages; --",
  "' OR '1'='1",
  '%',
  '_',
  '\\',
  "') union select password_hash from people --",
  '$1',
  '1; select pg_sleep(10)',
  '{"$ne": null}',
  '../../../etc/passwd',
  '<script>alert(1)</script>',
  '%ZZ',
];

/** An object nested `depth` levels deep, `{ a: { a: … } }`. */
export const deep = (depth: number): unknown => {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

/** A value of another type than `v`. */
function wrongType(r: Rng, v: unknown): unknown {
  const options: unknown[] = [42, -7.5, true, false, 'a string', { nested: 'object' }, ['an', 'array'], 0];
  const others = options.filter((o) => typeof o !== typeof v || Array.isArray(o) !== Array.isArray(v));
  return r.pick(others);
}

/**
 * One mutation of `base` (a valid input): the family decides what is done to
 * one key (chosen at random among `keys`, or all of the input for empty-object
 * and extra-field); `required` lists keys that may go missing.
 */
export function mutate(
  r: Rng,
  family: Family,
  base: Record<string, unknown>,
  required: readonly string[] = Object.keys(base),
  keys: readonly string[] = Object.keys(base),
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  const key = keys.length ? r.pick(keys) : 'unknown_argument';
  const cur = out[key];
  switch (family) {
    case 'valid':
      break;
    case 'wrong-type':
      out[key] = wrongType(r, cur);
      break;
    case 'null':
      out[key] = null;
      break;
    case 'huge-string':
      out[key] = r.pick([HUGE, `${HUGE}\u{1F600}`, 'é'.repeat(60 * 1024)]);
      break;
    case 'deep-object':
      out[key] = deep(r.pick([8, 64, 300]));
      break;
    case 'array-for-string':
      out[key] = r.pick([[cur ?? 'x'], [cur ?? 'x', cur ?? 'x'], [], [[['x']]]]);
      break;
    case 'nul':
      if (r.int(4) === 0) out[`k\u0000${key}`] = 'v';
      else out[key] = r.pick(['a\u0000b', '\u0000', [`x\u0000`], { inner: 'y\u0000' }]);
      break;
    case 'lone-surrogate':
      out[key] = r.pick(['x\ud800', '\udfffy', 'a\ud83d', [`\udc00`], { inner: '\ud800z' }]);
      break;
    case 'unknown-id':
      out[key] = r.pick(['not-an-id', 'nobody', `unknown-${r.int(1e6)}`, 'ABC-999999', 'alice/nobody', ' ']);
      break;
    case 'uuid-unknown-id':
      out[key] = r.uuid();
      break;
    case 'sql-ish':
      out[key] = r.pick(SQLISH);
      break;
    case 'negative-number':
      out[key] = r.pick([-1, -0.5, -(2 ** 31), Number.MIN_SAFE_INTEGER, -1e308]);
      break;
    case 'huge-number':
      out[key] = r.pick([2 ** 31, 2 ** 53 + 2, 1e21, 1e308, 0.5, 1.000001]);
      break;
    case 'empty-object':
      return {};
    case 'missing-required': {
      const present = required.filter((k) => k in out);
      if (present.length) delete out[r.pick(present)];
      else delete out[key];
      break;
    }
    case 'extra-field': {
      // Through JSON.parse, so `__proto__` is an own key, as a JSON body carries it.
      const extra = '"__proto__": {"polluted": true}, "constructor": "x", "extra_field": [1, {}]';
      const s = JSON.stringify(out);
      return JSON.parse(s === '{}' ? `{${extra}}` : `{${extra}, ${s.slice(1)}`);
    }
    case 'empty-string':
      out[key] = r.pick(['', '   ', '\n\t']);
      break;
  }
  return out;
}

/** Counts of what a fuzz run sent and saw, printed once at the end of a file. */
export class Tally {
  readonly perFamily: Record<string, number> = {};
  readonly perTarget: Record<string, number> = {};
  readonly statuses: Record<string, number> = {};
  readonly statusesPerTarget: Record<string, Record<string, number>> = {};
  total = 0;
  add(family: string, status: string | number, target = '') {
    this.total++;
    this.perFamily[family] = (this.perFamily[family] ?? 0) + 1;
    if (target) {
      this.perTarget[target] = (this.perTarget[target] ?? 0) + 1;
      const seen = (this.statusesPerTarget[target] ??= {});
      seen[String(status)] = (seen[String(status)] ?? 0) + 1;
    }
    this.statuses[String(status)] = (this.statuses[String(status)] ?? 0) + 1;
  }
}
