// Kubernetes label selectors as lists take them: `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`,
// `k notin (a,b)`, comma-separated, all must hold.
export type Requirement =
  | { op: 'eq' | 'neq'; key: string; value: string }
  | { op: 'exists' | 'notexists'; key: string }
  | { op: 'in' | 'notin'; key: string; values: string[] };

export class SelectorError extends Error {}

const KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

export function parseLabelSelector(input: string): Requirement[] {
  const parts = splitTopLevel(input.trim());
  const out: Requirement[] = [];
  for (const raw of parts) {
    const part = raw.trim();
    if (!part) continue;
    let m: RegExpMatchArray | null;
    if ((m = part.match(/^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/))) {
      const values = m[3].split(',').map((v) => v.trim()).filter(Boolean);
      values.forEach(checkValue);
      out.push({ op: m[2] as 'in' | 'notin', key: checkKey(m[1]), values });
    } else if ((m = part.match(/^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/))) {
      out.push({ op: m[2] === '!=' ? 'neq' : 'eq', key: checkKey(m[1]), value: checkValue(m[3]) });
    } else if ((m = part.match(/^!\s*(\S+)$/))) {
      out.push({ op: 'notexists', key: checkKey(m[1]) });
    } else if ((m = part.match(/^(\S+)$/))) {
      out.push({ op: 'exists', key: checkKey(m[1]) });
    } else {
      throw new SelectorError(`cannot parse label selector requirement "${part}"`);
    }
  }
  return out;
}

function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

function checkKey(key: string): string {
  const name = key.includes('/') ? key.slice(key.indexOf('/') + 1) : key;
  if (!KEY.test(key) || name.length > 63 || key.length > 317) throw new SelectorError(`invalid label key "${key}"`);
  return key;
}

function checkValue(value: string): string {
  if (!VALUE.test(value) || value.length > 63) throw new SelectorError(`invalid label value "${value}"`);
  return value;
}
