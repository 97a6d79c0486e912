// What PostgreSQL cannot hold, found before anything reaches it: jsonb and text refuse U+0000, and
// jsonb refuses a UTF-16 surrogate without its pair. Bodies are walked without recursion so that
// hostile nesting is measured, not followed until the stack runs out.
import { child, index, mapKey } from './messages';
import type { FieldError } from './types';

/**
 * The deepest nesting a request body may have. Validation allows objects 64 levels deep (MAX_DEPTH);
 * the margin covers an apply body's own wrapping ({"items": [...]}, a List).
 */
export const MAX_BODY_DEPTH = 100;

/** True when `v` has arrays or objects nested more than `max` levels. */
export function nestedDeeperThan(v: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length) {
    const [x, depth] = stack.pop()!;
    if (typeof x !== 'object' || x === null) continue;
    if (depth >= max) return true;
    for (const c of Array.isArray(x) ? x : Object.values(x)) if (typeof c === 'object' && c !== null) stack.push([c, depth + 1]);
  }
  return false;
}

/** Why PostgreSQL cannot store `s`, or null when it can. */
export function unstorableReason(s: string): string | null {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) return 'must not contain the NUL character (U+0000)';
    if (c >= 0xd800 && c <= 0xdbff) {
      const n = s.charCodeAt(i + 1);
      if (n >= 0xdc00 && n <= 0xdfff) i++;
      else return `must not contain a lone surrogate (U+${c.toString(16).toUpperCase()})`;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return `must not contain a lone surrogate (U+${c.toString(16).toUpperCase()})`;
    }
  }
  return null;
}

/** Every string value or key in `v` that PostgreSQL cannot store, by path (at most `limit`). */
export function unstorableStrings(v: unknown, limit = 20): FieldError[] {
  const errors: FieldError[] = [];
  const stack: [unknown, string][] = [[v, '']];
  while (stack.length && errors.length < limit) {
    const [x, path] = stack.pop()!;
    if (typeof x === 'string') {
      const why = unstorableReason(x);
      if (why) errors.push({ path, message: `Invalid value: ${why}` });
    } else if (Array.isArray(x)) {
      for (let i = x.length - 1; i >= 0; i--) stack.push([x[i], index(path, i)]);
    } else if (typeof x === 'object' && x !== null) {
      const keys = Object.keys(x);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i];
        const why = unstorableReason(k);
        if (why) errors.push({ path, message: `Invalid key ${JSON.stringify(k)}: ${why}` });
        else stack.push([(x as Record<string, unknown>)[k], /^[A-Za-z_$][\w$]*$/.test(k) ? child(path, k) : mapKey(path, k)]);
      }
    }
  }
  return errors;
}
