// Object metadata as the API server validates it (apimachinery ValidateObjectMeta): name and
// namespace formats, label keys and values, annotation keys and total size.
import { child, invalid, mapKey, REQUIRED, tooLong } from './messages';
import type { FieldError } from './types';


const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const MSG_LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const MSG_SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const MSG_1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const MSG_QUALIFIED_NAME =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const MSG_QUALIFIED =
  "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const MSG_LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const TOTAL_ANNOTATION_SIZE = 256 * 1024;

export type NameRule = 'subdomain' | 'label' | 'dns1035';

export function dnsLabelErrors(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push('must be no more than 63 characters');
  if (!DNS1123_LABEL.test(v)) out.push(MSG_LABEL);
  return out;
}

export function dnsSubdomainErrors(v: string): string[] {
  const out: string[] = [];
  if (v.length > 253) out.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(v)) out.push(MSG_SUBDOMAIN);
  return out;
}

function dns1035Errors(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push('must be no more than 63 characters');
  if (!DNS1035_LABEL.test(v)) out.push(MSG_1035);
  return out;
}

const NAME_CHECK: Record<NameRule, (v: string) => string[]> = {
  subdomain: dnsSubdomainErrors,
  label: dnsLabelErrors,
  dns1035: dns1035Errors,
};

/** apimachinery IsQualifiedName */
export function qualifiedNameErrors(key: string): string[] {
  const out: string[] = [];
  const parts = key.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) {
    const [prefix, n] = parts;
    name = n;
    if (prefix.length === 0) out.push('prefix part must be non-empty');
    else for (const m of dnsSubdomainErrors(prefix)) out.push('prefix part ' + m);
  } else {
    return [MSG_QUALIFIED];
  }
  if (name.length === 0) out.push('name part must be non-empty');
  else if (name.length > 63) out.push('name part must be no more than 63 characters');
  if (name.length > 0 && !QUALIFIED_NAME.test(name)) out.push(MSG_QUALIFIED_NAME);
  return out;
}

function labelValueErrors(v: string): string[] {
  const out: string[] = [];
  if (v.length > 63) out.push('must be no more than 63 characters');
  if (!LABEL_VALUE.test(v)) out.push(MSG_LABEL_VALUE);
  return out;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function validateMetadata(meta: unknown, namespaced: boolean, nameRule: NameRule, errors: FieldError[]): void {
  const mp = 'metadata';
  if (!isObj(meta)) {
    errors.push({ path: mp, message: REQUIRED });
    return;
  }
  const check = NAME_CHECK[nameRule];
  const name = meta.name;
  if (name === undefined || name === '') {
    if (typeof meta.generateName !== 'string' || meta.generateName === '') {
      errors.push({ path: child(mp, 'name'), message: `${REQUIRED}: name or generateName is required` });
    }
  } else if (typeof name !== 'string') {
    errors.push({ path: child(mp, 'name'), message: invalid(name, 'must be of type string') });
  } else {
    for (const m of check(name)) errors.push({ path: child(mp, 'name'), message: invalid(name, m) });
  }
  if (typeof meta.generateName === 'string' && meta.generateName !== '') {
    // a prefix: a trailing '-' is allowed
    const masked = meta.generateName.endsWith('-') ? meta.generateName.slice(0, -1) + 'a' : meta.generateName;
    for (const m of check(masked)) errors.push({ path: child(mp, 'generateName'), message: invalid(meta.generateName, m) });
  }
  if (namespaced) {
    const ns = meta.namespace;
    if (ns === undefined || ns === '') errors.push({ path: child(mp, 'namespace'), message: REQUIRED });
    else if (typeof ns !== 'string') errors.push({ path: child(mp, 'namespace'), message: invalid(ns, 'must be of type string') });
    else for (const m of dnsLabelErrors(ns)) errors.push({ path: child(mp, 'namespace'), message: invalid(ns, m) });
  }
  if (isObj(meta.labels)) {
    const lp = child(mp, 'labels');
    for (const [k, v] of Object.entries(meta.labels)) {
      for (const m of qualifiedNameErrors(k)) errors.push({ path: lp, message: invalid(k, m) });
      if (typeof v === 'string') for (const m of labelValueErrors(v)) errors.push({ path: mapKey(lp, k), message: invalid(v, m) });
    }
  }
  if (isObj(meta.annotations)) {
    const ap = child(mp, 'annotations');
    let total = 0;
    for (const [k, v] of Object.entries(meta.annotations)) {
      for (const m of qualifiedNameErrors(k.toLowerCase())) errors.push({ path: ap, message: invalid(k, m) });
      total += k.length + (typeof v === 'string' ? v.length : 0);
    }
    if (total > TOTAL_ANNOTATION_SIZE) errors.push({ path: ap, message: tooLong(TOTAL_ANNOTATION_SIZE) });
  }
}
