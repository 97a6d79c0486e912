// Kubernetes core validation of the core kinds, limited to what a Gateway API control plane relies on
// (k8s.io/kubernetes pkg/apis/core/validation and discovery/validation).
import { child, duplicate, forbidden, index, invalid, mapKey, REQUIRED, tooLong } from '../messages';
import type { FieldError } from '../types';
import { eachItem, has, isObj, type Obj } from '../cel';
import { isIPv4, isIPv6 } from '../formats';
import { dnsLabelErrors, dnsSubdomainErrors } from '../metadata';

const IANA_SVC_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const MAX_DATA_SIZE = 1024 * 1024;
const MSG_CONFIG_KEY =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

function portNameErrors(v: string): string[] {
  const out: string[] = [];
  if (v.length > 15) out.push('must be no more than 15 characters');
  if (!IANA_SVC_NAME.test(v)) out.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (v.includes('--')) out.push("must not contain consecutive hyphens");
  if (!/[a-z]/.test(v)) out.push('must contain at least one letter (a-z)');
  return out;
}

export function serviceRules(obj: Obj, errors: FieldError[]): void {
  const spec = obj.spec;
  if (!isObj(spec)) return;
  const ports = Array.isArray(spec.ports) ? spec.ports : [];
  const type = spec.type ?? 'ClusterIP';
  if (type === 'ExternalName') {
    if (typeof spec.externalName !== 'string' || spec.externalName === '') {
      errors.push({ path: 'spec.externalName', message: REQUIRED });
    } else {
      for (const m of dnsSubdomainErrors(spec.externalName.replace(/\.$/, ''))) {
        errors.push({ path: 'spec.externalName', message: invalid(spec.externalName, m) });
      }
    }
  } else if (spec.clusterIP !== 'None' && ports.length === 0) {
    errors.push({ path: 'spec.ports', message: REQUIRED });
  }
  const names = new Set<string>();
  eachItem(spec, 'ports', 'spec', (p, pp) => {
    if (ports.length > 1 && (p.name === undefined || p.name === '')) errors.push({ path: child(pp, 'name'), message: REQUIRED });
    if (typeof p.name === 'string' && p.name !== '') {
      for (const m of dnsLabelErrors(p.name)) errors.push({ path: child(pp, 'name'), message: invalid(p.name, m) });
      if (names.has(p.name)) errors.push({ path: child(pp, 'name'), message: duplicate(p.name) });
      names.add(p.name);
    }
    const tp = p.targetPort;
    if (typeof tp === 'number') {
      if (!Number.isInteger(tp) || tp < 1 || tp > 65535) {
        errors.push({ path: child(pp, 'targetPort'), message: invalid(tp, 'must be between 1 and 65535, inclusive') });
      }
    } else if (typeof tp === 'string') {
      for (const m of portNameErrors(tp)) errors.push({ path: child(pp, 'targetPort'), message: invalid(tp, m) });
    }
  });
}

export function endpointSliceRules(obj: Obj, errors: FieldError[], old?: Obj): void {
  const type = obj.addressType;
  eachItem(obj, 'endpoints', '', (ep, epp) => {
    const addrs = Array.isArray(ep.addresses) ? ep.addresses : [];
    addrs.forEach((a: unknown, i: number) => {
      if (typeof a !== 'string') return;
      const ap = index(child(epp, 'addresses'), i);
      if (type === 'IPv4' && !isIPv4(a)) errors.push({ path: ap, message: invalid(a, 'must be a valid IPv4 address') });
      if (type === 'IPv6' && !isIPv6(a)) errors.push({ path: ap, message: invalid(a, 'must be a valid IPv6 address') });
      if (type === 'FQDN') for (const m of dnsSubdomainErrors(a)) errors.push({ path: ap, message: invalid(a, m) });
    });
    if (typeof ep.hostname === 'string') {
      for (const m of dnsLabelErrors(ep.hostname)) errors.push({ path: child(epp, 'hostname'), message: invalid(ep.hostname, m) });
    }
  });
  const names = new Set<string>();
  eachItem(obj, 'ports', '', (p, pp) => {
    const name = typeof p.name === 'string' ? p.name : '';
    if (name !== '') for (const m of dnsLabelErrors(name)) errors.push({ path: child(pp, 'name'), message: invalid(name, m) });
    if (names.has(name)) errors.push({ path: child(pp, 'name'), message: duplicate(name) });
    names.add(name);
  });
  if (old && isObj(old) && has(old, 'addressType') && old.addressType !== type) {
    errors.push({ path: 'addressType', message: invalid(type, 'field is immutable') });
  }
}

function decodedBase64Length(s: string): number | string {
  // the API server decodes with Go's StdEncoding: padded, no whitespace
  if (s.length % 4 !== 0) return `illegal base64 data at input byte ${s.length - (s.length % 4)}`;
  const m = /[^A-Za-z0-9+/=]/.exec(s);
  if (m) return `illegal base64 data at input byte ${m.index}`;
  const pad = s.indexOf('=');
  if (pad !== -1 && (pad < s.length - 2 || !/^=*$/.test(s.slice(pad)))) return `illegal base64 data at input byte ${pad}`;
  return (s.length / 4) * 3 - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0);
}

function dataKeys(map: Obj, path: string, errors: FieldError[]): void {
  for (const k of Object.keys(map)) {
    const msgs: string[] = [];
    if (k.length > 253) msgs.push('must be no more than 253 characters');
    if (!CONFIG_KEY.test(k)) msgs.push(MSG_CONFIG_KEY);
    if (k === '.') msgs.push("must not be '.'");
    else if (k === '..') msgs.push("must not be '..'");
    else if (k.startsWith('..')) msgs.push("must not start with '..'");
    for (const m of msgs) errors.push({ path, message: invalid(k, m) });
  }
}

/** Base64 values of a data map; returns the decoded size. */
function base64Values(map: Obj, path: string, errors: FieldError[]): number {
  let total = 0;
  for (const [k, v] of Object.entries(map)) {
    if (typeof v !== 'string') continue;
    const n = decodedBase64Length(v);
    if (typeof n === 'string') errors.push({ path: mapKey(path, k), message: invalid('<secret contents redacted>', n) });
    else total += n;
  }
  return total;
}

function immutability(obj: Obj, old: Obj | undefined, keys: string[], errors: FieldError[]): void {
  if (!old || old.immutable !== true) return;
  for (const k of keys) {
    if (JSON.stringify(obj[k] ?? {}) !== JSON.stringify(old[k] ?? {})) {
      errors.push({ path: k, message: forbidden('field is immutable when `immutable` is set') });
    }
  }
  if (obj.immutable !== true) errors.push({ path: 'immutable', message: forbidden('field is immutable when `immutable` is set') });
}

export function secretRules(obj: Obj, errors: FieldError[], old?: Obj): void {
  const data = isObj(obj.data) ? obj.data : {};
  dataKeys(data, 'data', errors);
  const total = base64Values(data, 'data', errors);
  if (total > MAX_DATA_SIZE) errors.push({ path: 'data', message: tooLong(MAX_DATA_SIZE) });
  if (obj.type === 'kubernetes.io/tls') {
    for (const k of ['tls.crt', 'tls.key']) if (!has(data, k)) errors.push({ path: mapKey('data', k), message: REQUIRED });
  }
  if (old && isObj(old) && typeof old.type === 'string' && old.type !== obj.type) {
    errors.push({ path: 'type', message: invalid(obj.type, 'field is immutable') });
  }
  immutability(obj, old, ['data'], errors);
}

export function configMapRules(obj: Obj, errors: FieldError[], old?: Obj): void {
  const data = isObj(obj.data) ? obj.data : {};
  const binary = isObj(obj.binaryData) ? obj.binaryData : {};
  dataKeys(data, 'data', errors);
  dataKeys(binary, 'binaryData', errors);
  for (const k of Object.keys(binary)) {
    if (has(data, k)) errors.push({ path: 'data', message: invalid(k, 'duplicate of key present in binaryData') });
  }
  let total = base64Values(binary, 'binaryData', errors);
  for (const [k, v] of Object.entries(data)) total += k.length + (typeof v === 'string' ? v.length : 0);
  if (total > MAX_DATA_SIZE) errors.push({ path: '', message: tooLong(MAX_DATA_SIZE) });
  immutability(obj, old, ['data', 'binaryData'], errors);
}
