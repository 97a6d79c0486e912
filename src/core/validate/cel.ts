// Helpers for the CRDs' CEL rules written as TypeScript. The rules run only on objects that passed
// the blocking schema checks, so types, required fields and enums are as the schema says; a rule
// still checks shapes where a non-blocking error (pattern, minItems...) may leave something odd.
import { child, index } from './messages';
import type { FieldError } from './types';

/* eslint-disable @typescript-eslint/no-explicit-any */
// any: the rules read schema-checked JSON field by field, as the CEL expressions they transcribe do
export type Obj = Record<string, any>;

export const has = (o: unknown, k: string): boolean => o !== null && typeof o === 'object' && (o as Obj)[k] !== undefined;
export const isObj = (o: unknown): o is Obj => o !== null && typeof o === 'object' && !Array.isArray(o);
export const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
export const objs = (v: unknown): Obj[] => arr(v).filter(isObj);

export type CelType = 'object' | 'array' | 'string';

/** A rule that evaluated to false: the API server reports its message against the rule's node. */
export function fail(errors: FieldError[], path: string, type: CelType, message: string): void {
  errors.push({ path, message: `Invalid value: "${type}": ${message}`, reason: 'FieldValueInvalid' });
}

/** A rule whose evaluation failed (e.g. a field read without has()). */
export function evalError(errors: FieldError[], path: string, type: CelType, cause: string, message: string): void {
  errors.push({ path, message: `Invalid value: "${type}": ${cause} evaluating rule: ${message}`, reason: 'FieldValueInvalid' });
}

/** CEL's exists_one. */
export function existsOne<T>(list: T[], pred: (x: T) => boolean): boolean {
  let n = 0;
  for (const x of list) if (pred(x) && ++n > 1) return false;
  return n === 1;
}

/** Items of a list field with their paths. */
export function eachItem(o: unknown, key: string, path: string, fn: (item: Obj, path: string, i: number) => void): void {
  const list = isObj(o) ? o[key] : undefined;
  if (!Array.isArray(list)) return;
  const p = child(path, key);
  for (let i = 0; i < list.length; i++) if (isObj(list[i])) fn(list[i], index(p, i), i);
}

/** CEL string size: code points. */
export const size = (s: string): number => {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
};

const UNIT_NS: Record<string, number> = {
  ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9,
};

/** Go's time.ParseDuration (CEL duration()), in nanoseconds; undefined when it does not parse. */
export function parseGoDuration(s: string): number | undefined {
  let rest = s;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let total = 0;
  while (rest !== '') {
    const m = /^([0-9]*)(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h)/.exec(rest);
    if (!m || (m[1] === '' && (m[2] === undefined || m[2] === '.'))) return undefined;
    total += Number((m[1] || '0') + (m[2] && m[2] !== '.' ? m[2] : '')) * UNIT_NS[m[3]];
    rest = rest.slice(m[0].length);
  }
  return sign * total;
}
