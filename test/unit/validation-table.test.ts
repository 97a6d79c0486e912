// Switchyard's own table of validation cases (test/fixtures/validation-table.yaml): list limits,
// enums, defaults and their round trip, metadata, unknown fields, core kinds, each apiVersion's rules.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { applyDefaults, validateObject, type FieldError } from '../../src/core/validate';

/* eslint-disable @typescript-eslint/no-explicit-any */
interface Build {
  base?: string;
  object?: any;
  set?: Record<string, any>;
  unset?: string[];
}
interface Row extends Build {
  name: string;
  valid: boolean;
  path?: string;
  message?: string;
  notMessage?: string;
  defaults?: Record<string, any>;
  absent?: string[];
  sameAs?: Build;
  old?: Build;
  keepStatus?: boolean;
}
interface Limit {
  base: string;
  list?: string;
  map?: string;
  max: number;
  min?: number;
  item?: any;
  key?: string;
  value?: any;
  set?: Record<string, any>;
}

const table = parse(readFileSync(join(__dirname, '../fixtures/validation-table.yaml'), 'utf8')) as {
  bases: Record<string, any>;
  limits: Limit[];
  cases: Row[];
};

/** `spec.rules[0].matches[1].path`, `data[tls.crt]` -> segments */
function segments(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /([^.[\]]+)|\[([^\]]*)\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path))) {
    if (m[1] !== undefined) out.push(m[1]);
    else out.push(/^[0-9]+$/.test(m[2]) ? Number(m[2]) : m[2]);
  }
  return out;
}

function put(o: any, k: string | number, v: any): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function setPath(obj: any, path: string, value: any): void {
  const segs = segments(path);
  let cur = obj;
  for (let i = 0; i < segs.length - 1; i++) {
    const s = segs[i];
    if (cur[s] === undefined || cur[s] === null || typeof cur[s] !== 'object') put(cur, s, typeof segs[i + 1] === 'number' ? [] : {});
    cur = cur[s];
  }
  put(cur, segs[segs.length - 1], value);
}

function getPath(obj: any, path: string): any {
  let cur = obj;
  for (const s of segments(path)) {
    if (cur === undefined || cur === null || !Object.prototype.hasOwnProperty.call(cur, s)) return undefined;
    cur = cur[s];
  }
  return cur;
}

function unsetPath(obj: any, path: string): void {
  const segs = segments(path);
  const parent = segs.length === 1 ? obj : getPath(obj, path.slice(0, path.length - String(segs[segs.length - 1]).length - (path.endsWith(']') ? 2 : 1)));
  if (parent && typeof parent === 'object') delete parent[segs[segs.length - 1]];
}

/** `{x256}` -> 256 x's; `{i}` -> index; a string that is only `{i+1}` -> the number */
function expand(v: any, i = 0): any {
  if (typeof v === 'string') {
    if (v === '{i+1}') return i + 1;
    return v.replace(/\{i\}/g, String(i)).replace(/\{([a-z])([0-9]+)\}/g, (_, c, n) => c.repeat(Number(n)));
  }
  if (Array.isArray(v)) return v.map((x) => expand(x, i));
  if (v && typeof v === 'object') {
    const out: any = {};
    for (const [k, x] of Object.entries(v)) put(out, expand(k, i), expand(x, i));
    return out;
  }
  return v;
}

function build(b: Build): any {
  const obj = structuredClone(b.object ?? table.bases[b.base!]);
  if (!obj) throw new Error(`no base ${b.base}`);
  for (const [p, v] of Object.entries(b.set ?? {})) setPath(obj, p, expand(v));
  for (const p of b.unset ?? []) unsetPath(obj, p);
  return obj;
}

const show = (errors: FieldError[]) => JSON.stringify(errors, null, 1);

function expectRow(row: Row): void {
  const old = row.old ? validateObject(build(row.old)).object : undefined;
  const obj = build(row);
  const { object, errors } = validateObject(obj, { old, keepStatus: row.keepStatus });
  if (row.valid) {
    expect(errors, show(errors)).toEqual([]);
  } else {
    const hit = errors.some((e) => e.path.includes(row.path ?? '') && e.message.includes(row.message ?? ''));
    expect(hit, `want "${row.message}" at "${row.path}", got ${show(errors)}`).toBe(true);
  }
  if (row.notMessage) expect(errors.some((e) => e.message.includes(row.notMessage!)), show(errors)).toBe(false);
  for (const [p, v] of Object.entries(row.defaults ?? {})) expect(getPath(object, p), p).toEqual(v);
  for (const p of row.absent ?? []) expect(getPath(object, p), p).toBeUndefined();
  if (row.sameAs) {
    const other = validateObject(build(row.sameAs));
    expect(other.errors, show(other.errors)).toEqual([]);
    expect(object).toEqual(other.object);
    // byte for byte: fields come out in schema order whatever the input's order
    expect(JSON.stringify(object)).toBe(JSON.stringify(other.object));
    // defaulting is idempotent: the stored form re-submitted is unchanged
    expect(validateObject(object).object).toEqual(object);
  }
}

function limitRows(l: Limit): Row[] {
  const where = l.list ?? l.map!;
  const fill = (n: number) => {
    const b: Build = { base: l.base, set: { ...(l.set ?? {}) } };
    if (l.list) {
      b.set![where] = Array.from({ length: n }, (_, i) => expand(l.item, i));
    } else {
      const m: any = {};
      for (let i = 0; i < n; i++) put(m, expand(l.key, i), expand(l.value, i));
      b.set![where] = m;
    }
    return b;
  };
  const items = (n: number) => (n === 1 ? 'item' : 'items');
  const rows: Row[] = [
    { name: `${l.base} ${where}: ${l.max} ${items(l.max)} accepted`, valid: true, ...fill(l.max) },
    {
      name: `${l.base} ${where}: ${l.max + 1} rejected`,
      valid: false,
      path: where.replace(/\[[^\]]*\]$/, ''),
      message: `must have at most ${l.max} ${items(l.max)}`,
      ...fill(l.max + 1),
    },
  ];
  if (l.min !== undefined) {
    rows.push({
      name: `${l.base} ${where}: ${l.min - 1} rejected`,
      valid: false,
      path: where,
      message: `should have at least ${l.min} ${items(l.min)}`,
      ...fill(l.min - 1),
    });
  }
  return rows;
}

const rows = [...table.limits.flatMap(limitRows), ...table.cases];

describe('validation table', () => {
  it('has at least 150 cases', () => {
    expect(rows.length).toBeGreaterThanOrEqual(150);
  });
  for (const row of rows) it(row.name, () => expectRow(row));
});

describe('applyDefaults', () => {
  it('gives what validateObject stores, without touching its input', () => {
    for (const [name, base] of Object.entries(table.bases)) {
      const before = JSON.stringify(base);
      expect(applyDefaults(base), name).toEqual(validateObject(base).object);
      expect(JSON.stringify(base)).toBe(before);
    }
  });
  it('copies objects of unknown kinds as they are', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [] } };
    const out = applyDefaults(pod);
    expect(out).toEqual(pod);
    expect(out).not.toBe(pod);
  });
  it('fills in a status only when there is one', () => {
    expect(applyDefaults(table.bases.gatewayclass).status).toBeUndefined();
    const withStatus = applyDefaults({ ...table.bases.gatewayclass, status: {} });
    expect(withStatus.status.conditions[0]).toMatchObject({ type: 'Accepted', status: 'Unknown', reason: 'Pending' });
  });
});
