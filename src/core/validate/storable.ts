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
  // values and their depths side by side: every body passes here, and no pair is made per node
  const stack: unknown[] = [v];
  const depths: number[] = [0];
  while (stack.length) {
    const x = stack.pop();
    const depth = depths.pop()!;
    if (typeof x !== 'object' || x === null) continue;
    if (depth >= max) return true;
    if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) {
        const c: unknown = x[i];
        if (typeof c === 'object' && c !== null) { stack.push(c); depths.push(depth + 1); }
      }
    } else {
      for (const k in x) {
        if (!Object.hasOwn(x, k)) continue;
        const c = (x as Record<string, unknown>)[k];
        if (typeof c === 'object' && c !== null) { stack.push(c); depths.push(depth + 1); }
      }
    }
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

/** Whether any string value or key in `v` is one PostgreSQL cannot store. */
function holdsUnstorable(v: unknown): boolean {
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x === 'string') {
      if (unstorableReason(x)) return true;
    } else if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) stack.push(x[i]);
    } else if (typeof x === 'object' && x !== null) {
      for (const k in x) {
        if (!Object.hasOwn(x, k)) continue;
        if (unstorableReason(k)) return true;
        stack.push((x as Record<string, unknown>)[k]);
      }
    }
  }
  return false;
}

/** Every string value or key in `v` that PostgreSQL cannot store, by path (at most `limit`). */
export function unstorableStrings(v: unknown, limit = 20): FieldError[] {
  // every write passes here, and nearly all are clean: their paths are made only when one is not
  if (!holdsUnstorable(v)) return [];
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
