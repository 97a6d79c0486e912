// The protoc-gen-validate constraints the Envoy protos declare ((validate.rules) on fields,
// (validate.required) on oneofs), read from the loaded protos by reflection and checked against a
// decoded message: Envoy refuses a resource that breaks one, so the server checks what it is about
// to send. A rule kind this checker does not know is reported as such, never passed silently.
import protobuf from 'protobufjs';
import { messageType } from './xds-protos';

type Rules = Record<string, any>;

function optionsOf(obj: protobuf.ReflectionObject, key: string): Rules | undefined {
  let merged: Rules | undefined;
  for (const entry of (obj.parsedOptions ?? []) as Record<string, unknown>[]) {
    if (key in entry) merged = deepMerge(merged ?? {}, entry[key] as Rules);
  }
  return merged;
}

function deepMerge(a: Rules, b: Rules): Rules {
  const out: Rules = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = v && typeof v === 'object' && !Array.isArray(v) && out[k] && typeof out[k] === 'object' ? deepMerge(out[k], v) : v;
  return out;
}

const has = (msg: protobuf.Message, name: string) => Object.prototype.hasOwnProperty.call(msg, name);
const num = (v: unknown) => (typeof v === 'object' && v !== null ? Number(String(v)) : Number(v));
const durationMs = (d: any) => (d ? num(d.seconds ?? 0) * 1000 + num(d.nanos ?? 0) / 1e6 : 0);

const HEADER_NAME_STRICT = /^:?[0-9a-zA-Z!#$%&'*+\-.^_|~`]+$/;
const HEADER_VALUE_STRICT = /^[^\u0000-\u0008\u000A-\u001F\u007F]*$/;
const NO_CTL = /^[^\u0000\u000A\u000D]*$/;

function numberRules(r: Rules, v: number, path: string, out: string[]): void {
  for (const [k, bound] of Object.entries(r)) {
    const b = num(bound);
    const ok = k === 'gt' ? v > b : k === 'gte' ? v >= b : k === 'lt' ? v < b : k === 'lte' ? v <= b : k === 'const' ? v === b
      : k === 'in' ? (bound as unknown[]).map(num).includes(v) : k === 'not_in' ? !(bound as unknown[]).map(num).includes(v) : null;
    if (ok === null) out.push(`${path}: unchecked rule ${k}`);
    else if (!ok) out.push(`${path}: ${v} breaks ${k} ${JSON.stringify(bound)}`);
  }
}

function stringRules(r: Rules, v: string, path: string, out: string[]): void {
  const len = [...v].length;
  for (const [k, rule] of Object.entries(r)) {
    let ok: boolean | null;
    switch (k) {
      case 'min_len': ok = len >= num(rule); break;
      case 'max_len': ok = len <= num(rule); break;
      case 'min_bytes': ok = Buffer.byteLength(v) >= num(rule); break;
      case 'max_bytes': ok = Buffer.byteLength(v) <= num(rule); break;
      case 'len': ok = len === num(rule); break;
      case 'pattern': ok = new RegExp(rule as string, 'u').test(v); break;
      case 'prefix': ok = v.startsWith(rule); break;
      case 'suffix': ok = v.endsWith(rule); break;
      case 'contains': ok = v.includes(rule); break;
      case 'const': ok = v === rule; break;
      case 'in': ok = (rule as string[]).includes(v); break;
      case 'not_in': ok = !(rule as string[]).includes(v); break;
      case 'strict': ok = true; break;
      case 'well_known_regex': {
        const strict = r.strict !== false;
        if (rule === 'HTTP_HEADER_NAME') ok = strict ? HEADER_NAME_STRICT.test(v) : NO_CTL.test(v);
        else if (rule === 'HTTP_HEADER_VALUE') ok = strict ? HEADER_VALUE_STRICT.test(v) : NO_CTL.test(v);
        else ok = null;
        break;
      }
      default: ok = null;
    }
    if (ok === null) out.push(`${path}: unchecked rule string.${k}`);
    else if (!ok) out.push(`${path}: ${JSON.stringify(v)} breaks string.${k} ${JSON.stringify(rule)}`);
  }
}

const WRAPPERS = new Set(['.google.protobuf.UInt32Value', '.google.protobuf.UInt64Value', '.google.protobuf.Int32Value', '.google.protobuf.Int64Value', '.google.protobuf.DoubleValue', '.google.protobuf.FloatValue', '.google.protobuf.StringValue', '.google.protobuf.BoolValue']);
const NUMBER_KINDS = new Set(['uint32', 'uint64', 'int32', 'int64', 'sint32', 'sint64', 'fixed32', 'fixed64', 'sfixed32', 'sfixed64', 'double', 'float']);

/** The rules of one value (a field's, or a repeated field's item's) against the value. */
function valueRules(rules: Rules, field: protobuf.Field, v: any, present: boolean, path: string, out: string[]): void {
  for (const [kind, r] of Object.entries(rules)) {
    if (kind === 'message') {
      if (r.required && !present) out.push(`${path}: required`);
      continue;
    }
    if (kind === 'any') {
      if (r.required && !present) out.push(`${path}: required`);
      if (present && r.in && !r.in.includes(v.type_url)) out.push(`${path}: type ${v.type_url} not in ${JSON.stringify(r.in)}`);
      continue;
    }
    if (kind === 'duration') {
      if (r.required && !present) out.push(`${path}: required`);
      if (present) {
        const { required: _r, ...bounds } = r;
        numberRules(Object.fromEntries(Object.entries(bounds).map(([k, b]) => [k, durationMs(b)])), durationMs(v), path, out);
      }
      continue;
    }
    if (kind === 'timestamp') continue;
    const wrapped = field.resolvedType && WRAPPERS.has(field.resolvedType.fullName);
    if (wrapped && !present) continue;
    const value = wrapped ? v.value : v;
    if (NUMBER_KINDS.has(kind)) numberRules(r, num(value), path, out);
    else if (kind === 'string') stringRules(r, value ?? '', path, out);
    else if (kind === 'bytes') {
      const len = (value as Uint8Array | undefined)?.length ?? 0;
      if (r.min_len !== undefined && len < num(r.min_len)) out.push(`${path}: ${len} bytes breaks bytes.min_len ${r.min_len}`);
      if (r.max_len !== undefined && len > num(r.max_len)) out.push(`${path}: ${len} bytes breaks bytes.max_len ${r.max_len}`);
    } else if (kind === 'bool') {
      if (r.const !== undefined && Boolean(value) !== r.const) out.push(`${path}: breaks bool.const ${r.const}`);
    } else if (kind === 'enum') {
      const e = field.resolvedType as protobuf.Enum;
      const n = typeof value === 'string' ? e.values[value] : num(value);
      if (r.defined_only && !Object.values(e.values).includes(n)) out.push(`${path}: ${value} is not a value of ${e.name}`);
      if (r.in && !r.in.map(num).includes(n)) out.push(`${path}: ${value} breaks enum.in`);
      if (r.not_in && r.not_in.map(num).includes(n)) out.push(`${path}: ${value} breaks enum.not_in`);
      if (r.const !== undefined && num(r.const) !== n) out.push(`${path}: ${value} breaks enum.const`);
    } else out.push(`${path}: unchecked rule kind ${kind}`);
  }
}

function checkMessage(type: protobuf.Type, msg: protobuf.Message, path: string, out: string[]): void {
  for (const oneof of type.oneofsArray) {
    if (optionsOf(oneof, '(validate.required)') === (true as unknown) || oneof.options?.['(validate.required)'] === true) {
      if (!oneof.oneof.some((n) => has(msg, n))) out.push(`${path}: one of ${oneof.oneof.join(', ')} is required`);
    }
  }
  for (const f of type.fieldsArray) {
    f.resolve();
    const rules = optionsOf(f, '(validate.rules)');
    const v = (msg as any)[f.name];
    const at = `${path}.${f.name}`;
    if (f.map) {
      const entries = Object.entries((v ?? {}) as Record<string, any>);
      if (rules?.map?.min_pairs !== undefined && entries.length < num(rules.map.min_pairs)) out.push(`${at}: ${entries.length} entries breaks map.min_pairs ${rules.map.min_pairs}`);
      if (rules?.map?.keys) for (const [k] of entries) valueRules(rules.map.keys, f, k, true, `${at}[${k}]`, out);
      for (const [k, item] of entries) {
        if (rules?.map?.values) valueRules(rules.map.values, f, item, true, `${at}[${k}]`, out);
        if (f.resolvedType instanceof protobuf.Type) checkNested(f.resolvedType, item, `${at}[${k}]`, out);
      }
      continue;
    }
    if (f.repeated) {
      const items = (v ?? []) as any[];
      const r = rules?.repeated;
      if (r?.min_items !== undefined && items.length < num(r.min_items)) out.push(`${at}: ${items.length} items breaks repeated.min_items ${r.min_items}`);
      if (r?.max_items !== undefined && items.length > num(r.max_items)) out.push(`${at}: ${items.length} items breaks repeated.max_items ${r.max_items}`);
      if (r?.unique && new Set(items.map((x) => JSON.stringify(x))).size !== items.length) out.push(`${at}: items are not unique`);
      items.forEach((item, i) => {
        if (r?.items) valueRules(r.items, f, item, true, `${at}[${i}]`, out);
        if (f.resolvedType instanceof protobuf.Type) checkNested(f.resolvedType, item, `${at}[${i}]`, out);
      });
      continue;
    }
    const present = has(msg, f.name);
    // a member of a oneof (or a proto3 optional field) is checked only when it is the one set
    if (f.partOf && !present) continue;
    if (rules) valueRules(rules, f, v, present, at, out);
    if (present && f.resolvedType instanceof protobuf.Type) checkNested(f.resolvedType, v, at, out);
  }
}

/** A nested message, and inside an Any the message it packs (when its type is loaded). */
function checkNested(type: protobuf.Type, msg: any, path: string, out: string[]): void {
  if (type.fullName === '.google.protobuf.Any') {
    let inner: protobuf.Type;
    try {
      inner = messageType(msg.type_url);
    } catch {
      out.push(`${path}: unknown type ${msg.type_url}`);
      return;
    }
    checkMessage(inner, inner.decode(msg.value), `${path}<${inner.name}>`, out);
    return;
  }
  checkMessage(type, msg, path, out);
}

/** Every constraint the encoded message of `typeUrl` breaks (empty: Envoy's validation passes). */
export function pgvViolations(typeUrl: string, bytes: Uint8Array): string[] {
  const type = messageType(typeUrl);
  const out: string[] = [];
  checkMessage(type, type.decode(bytes), type.name, out);
  return out;
}
