// Regular expressions from manifests run only through RE2 (re2js): linear-time matching, so a
// hostile pattern cannot stall a proxy or the control plane. JavaScript's backtracking RegExp never
// sees such a pattern. Patterns are matched against the whole value (anchored at both ends), as
// Envoy's safe_regex does.
import { RE2JS } from 're2js';

/** Longest pattern accepted (Gateway API caps path values at 1024 and header values at 4096). */
export const MAX_PATTERN_LENGTH = 4096;
/** Estimated program size above which a pattern is refused: compiling it would cost too much. */
export const MAX_PROGRAM_SIZE = 50_000;

export type CompiledRegex = { ok: true; re: RE2JS } | { ok: false; error: string };

const CACHE_LIMIT = 2048;
// module-level, unlike translation memos: a pure function of a string, also used by resolve (the
// proxies' matcher), which runs without a translation context
const cache = new Map<string, CompiledRegex>();

/** Compiles once per pattern (bounded cache); never throws. */
export function compileRegex(pattern: string): CompiledRegex {
  const hit = cache.get(pattern);
  if (hit) return hit;
  const out = compileUncached(pattern);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, out);
  return out;
}

/** undefined when the pattern is usable, else why not. */
export function regexProblem(pattern: string): string | undefined {
  const c = compileRegex(pattern);
  return c.ok ? undefined : c.error;
}

/** Whole-value match; an unusable pattern matches nothing. */
export function regexFullMatch(pattern: string, input: string): boolean {
  const c = compileRegex(pattern);
  if (!c.ok) return false;
  try {
    return c.re.matches(input);
  } catch {
    return false;
  }
}

function compileUncached(pattern: string): CompiledRegex {
  if (typeof pattern !== 'string') return { ok: false, error: 'pattern is not a string' };
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return { ok: false, error: `pattern longer than ${MAX_PATTERN_LENGTH} characters` };
  }
  const size = estimateProgramSize(pattern);
  if (size > MAX_PROGRAM_SIZE) {
    return { ok: false, error: `pattern expands to about ${size} instructions (limit ${MAX_PROGRAM_SIZE})` };
  }
  try {
    return { ok: true, re: RE2JS.compile(pattern) };
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return { ok: false, error: `not an RE2 regular expression: ${msg}` };
  }
}

/**
 * A rough upper bound of the compiled program's size: counted repetitions ({n,m}) copy what they
 * repeat, so nested counts multiply. Good enough to refuse "a{1000}{1000}"-style bombs before RE2
 * builds them; RE2 itself rejects single counts above 1000.
 */
export function estimateProgramSize(pattern: string): number {
  // stack of [size of the group so far, size of the last atom]
  const stack: { total: number; last: number }[] = [{ total: 0, last: 0 }];
  let i = 0;
  const top = () => stack[stack.length - 1];
  const atom = (n: number) => {
    const t = top();
    t.total += n;
    t.last = n;
  };
  while (i < pattern.length) {
    const ch = pattern[i];
    if (ch === '\\') {
      i += 2;
      atom(1);
    } else if (ch === '[') {
      // a class is one instruction however long
      i++;
      if (pattern[i] === '^') i++;
      if (pattern[i] === ']') i++;
      while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
      i++;
      atom(1);
    } else if (ch === '(') {
      stack.push({ total: 0, last: 0 });
      i++;
      if (pattern[i] === '?') {
        while (i < pattern.length && pattern[i] !== ':' && pattern[i] !== ')' && pattern[i] !== '>') i++;
        if (pattern[i] === ':' || pattern[i] === '>') i++;
      }
    } else if (ch === ')') {
      const g = stack.length > 1 ? stack.pop()! : { total: 0, last: 0 };
      atom(g.total + 2);
      i++;
    } else if (ch === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 16));
      if (m) {
        const lo = Number(m[1]);
        const hi = m[3] ? Number(m[3]) : m[2] ? lo + 1 : lo;
        const t = top();
        const copies = Math.max(lo, hi, 1);
        t.total += t.last * (copies - 1) + copies;
        t.last = t.last * copies;
        i += m[0].length;
      } else {
        atom(1);
        i++;
      }
    } else if (ch === '*' || ch === '+' || ch === '?') {
      top().total += 1;
      i++;
    } else if (ch === '|') {
      top().total += 1;
      top().last = 0;
      i++;
    } else {
      atom(1);
      i++;
    }
  }
  while (stack.length > 1) {
    const g = stack.pop()!;
    atom(g.total + 2);
  }
  return stack[0].total;
}
