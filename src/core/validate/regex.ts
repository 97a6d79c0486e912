// Regular expressions of the CRD patterns and CEL rules. Kubernetes evaluates them with RE2 (linear
// time); JavaScript's backtracking engine is exponential on some of them (the header-value pattern
// `^[!-~]+([\t ]?[!-~]+)*$` takes seconds on 30 characters) and quadratic on the unanchored
// alternatives of others (address type, listener protocol). Patterns with a quantified group ending in
// a quantifier, and every input longer than any pattern-checked field may be, go to re2js; the rest use
// the native engine, which is much faster on the short strings of ordinary objects.
import { RE2JS } from 're2js';

export interface Matcher {
  test(s: string): boolean;
}

const LONG_INPUT = 1024;
const NESTED_QUANTIFIER = /[+*]\)[*+?{]/;
const cache = new Map<string, Matcher>();

export function safeRegex(pattern: string, flags = ''): Matcher {
  const key = flags + '/' + pattern;
  let m = cache.get(key);
  if (m) return m;
  const native = new RegExp(pattern, flags.includes('i') ? 'iu' : 'u');
  let re2: { test(s: string): boolean } | undefined;
  try {
    re2 = RE2JS.compile(pattern, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
  } catch {
    re2 = undefined;
  }
  const risky = re2 !== undefined && NESTED_QUANTIFIER.test(pattern);
  m = {
    test(s: string): boolean {
      if (re2 && (risky || s.length > LONG_INPUT)) return re2.test(s);
      native.lastIndex = 0;
      return native.test(s);
    },
  };
  cache.set(key, m);
  return m;
}

/** The engine handed to ajv for `pattern` keywords. */
export const ajvRegExpEngine = Object.assign(
  (pattern: string, _u: string) => {
    const m = safeRegex(pattern);
    return { test: (s: string) => m.test(s), toString: () => pattern };
  },
  { code: 'safeRegex' },
);
