// OpenAPI validation of one object against its component schema (ajv, JSON Schema 2020-12, all errors),
// with ajv's errors reworded as the API server words them and classified as blocking or not.
// the file's own name: node resolves the built bundle's imports as ESM does, which adds no extension
import Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import openapi from '../../generated/openapi.json';
import { ajvRegExpEngine } from './regex';
import { isIPv4Format, isIPv6Format } from './formats';
import { REQUIRED, child, invalid, jsonType, tooLong, tooMany, unsupported } from './messages';
import { pointerToPath, type SNode } from './structural';
import type { FieldError, FieldReason } from './types';

const BASE = 'https://switchyard.dev/openapi.json';

let ajv: InstanceType<typeof Ajv2020> | undefined;
const validators = new Map<string, ValidateFunction>();

function getAjv() {
  if (ajv) return ajv;
  const a = new Ajv2020({
    allErrors: true,
    verbose: true,
    strict: false,
    validateFormats: true,
    unicodeRegExp: true,
    code: { regExp: ajvRegExpEngine },
  });
  addFormats(a, ['date-time']);
  // Kubernetes checks no range for these integer formats; the schema's minimum/maximum do that.
  a.addFormat('int32', { type: 'number', validate: () => true });
  a.addFormat('int64', { type: 'number', validate: () => true });
  a.addFormat('ipv4', { type: 'string', validate: isIPv4Format });
  a.addFormat('ipv6', { type: 'string', validate: isIPv6Format });
  a.addSchema({ $id: BASE, components: (openapi as { components: unknown }).components });
  ajv = a;
  return a;
}

export function schemaValidator(schemaName: string): ValidateFunction {
  let v = validators.get(schemaName);
  if (!v) {
    v = getAjv().getSchema(`${BASE}#/components/schemas/${schemaName}`);
    if (!v) throw new Error(`no component schema ${schemaName}`);
    validators.set(schemaName, v);
  }
  return v;
}

/** The component schemas whose validators are compiled. */
export function compiledSchemas(): string[] {
  return [...validators.keys()];
}

export interface SchemaResult {
  errors: FieldError[];
  /** a required, enum, maxLength, maxItems, maxProperties or type error: the CEL rules are not run */
  blocking: boolean;
}

const BLOCKING = new Set(['required', 'enum', 'maxLength', 'maxItems', 'maxProperties', 'type']);
// reported through their sub-errors (format ipv4/ipv6 inside anyOf inside then)
const AGGREGATE = new Set(['anyOf', 'oneOf', 'if', 'then', 'allOf', 'not']);

export function validateSchema(schemaName: string, data: unknown, node: SNode): SchemaResult {
  const validate = schemaValidator(schemaName);
  if (validate(data)) return { errors: [], blocking: false };
  const raw = validate.errors ?? [];
  const errors: FieldError[] = [];
  let blocking = false;
  const seen = new Set<string>();
  const aggregates: ErrorObject[] = [];
  for (const e of raw) {
    if (AGGREGATE.has(e.keyword)) {
      aggregates.push(e);
      continue;
    }
    const mapped = mapError(e, data, node);
    if (!mapped) continue;
    if (BLOCKING.has(e.keyword)) blocking = true;
    const key = mapped.path + '\0' + mapped.message;
    if (seen.has(key)) continue;
    seen.add(key);
    errors.push(mapped);
  }
  // an aggregate without a reported sub-error (not expected with the current schemas)
  for (const e of aggregates) {
    const path = pointerToPath(e.instancePath, data, node);
    if (!errors.some((x) => x.path.startsWith(path))) {
      errors.push({ path, message: invalid(e.data, `must validate ${e.keyword} schema`), reason: 'FieldValueInvalid' });
    }
  }
  return { errors, blocking };
}

/** The params of the keywords mapped below (ajv types them per keyword, ErrorObject does not). */
interface ErrorParams {
  missingProperty: string;
  allowedValues: unknown[];
  allowedValue: unknown;
  type: string;
  limit: number;
  pattern: string;
  format: string;
}

/** Each keyword's Kubernetes cause; any other keyword (pattern, format, minimum, ...) is an invalid value. */
const REASON_OF_KEYWORD: Readonly<Record<string, FieldReason>> = {
  required: 'FieldValueRequired',
  enum: 'FieldValueNotSupported',
  const: 'FieldValueNotSupported',
  type: 'FieldValueTypeInvalid',
  maxLength: 'FieldValueTooLong',
  maxItems: 'FieldValueTooMany',
  maxProperties: 'FieldValueTooMany',
  uniqueItems: 'FieldValueDuplicate',
};

export function keywordReason(keyword: string): FieldReason {
  return REASON_OF_KEYWORD[keyword] ?? 'FieldValueInvalid';
}

function mapError(e: ErrorObject, data: unknown, node: SNode): FieldError | undefined {
  const mapped = mapMessage(e, data, node);
  return mapped && { ...mapped, reason: keywordReason(e.keyword) };
}

function mapMessage(e: ErrorObject, data: unknown, node: SNode): FieldError | undefined {
  const path = pointerToPath(e.instancePath, data, node);
  // metadata name and namespace are checked, with the API server's own messages, in metadata.ts
  if (path === 'metadata.name' || path === 'metadata.namespace') return undefined;
  if (path === 'metadata' && e.keyword === 'required') return undefined;
  const p = e.params as ErrorParams;
  const v = e.data;
  switch (e.keyword) {
    case 'required':
      return { path: child(path, p.missingProperty), message: REQUIRED };
    case 'enum':
      return { path, message: unsupported(v, p.allowedValues) };
    case 'const':
      return { path, message: unsupported(v, [p.allowedValue]) };
    case 'type':
      return { path, message: invalid(v, `must be of type ${p.type}: "${jsonType(v)}"`) };
    case 'maxLength':
      return { path, message: tooLong(p.limit) };
    case 'maxItems':
      return { path, message: tooMany(Array.isArray(v) ? v.length : 0, p.limit) };
    case 'maxProperties':
      return { path, message: tooMany(v && typeof v === 'object' ? Object.keys(v).length : 0, p.limit) };
    case 'minLength':
      return { path, message: invalid(v, `should be at least ${p.limit} chars long`) };
    case 'minItems':
      return { path, message: invalid(v, `should have at least ${p.limit} items`) };
    case 'minProperties':
      return { path, message: invalid(v, `should have at least ${p.limit} properties`) };
    case 'minimum':
      return { path, message: invalid(v, `should be greater than or equal to ${p.limit}`) };
    case 'maximum':
      return { path, message: invalid(v, `should be less than or equal to ${p.limit}`) };
    case 'exclusiveMinimum':
      return { path, message: invalid(v, `should be greater than ${p.limit}`) };
    case 'exclusiveMaximum':
      return { path, message: invalid(v, `should be less than ${p.limit}`) };
    case 'pattern':
      return { path, message: invalid(v, `should match '${p.pattern}'`) };
    case 'format':
      return { path, message: invalid(v, `must be of type ${p.format}`) };
    case 'uniqueItems':
      return { path, message: invalid(v, 'shall give unique items') };
    case 'additionalProperties':
      return undefined; // unknown fields are reported by structural.ts
    default:
      return { path, message: invalid(v, e.message ?? `fails ${e.keyword}`) };
  }
}
