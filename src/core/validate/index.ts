// Validation of every stored kind, as the Kubernetes API server validates a create or update against
// the Gateway API CRDs (experimental channel) and the core kinds: defaults, then the OpenAPI schema,
// then the CRD CEL rules (as TypeScript), which are skipped after a blocking schema error.
import { kindInfo, type KindInfo } from '../model/kinds';
import { validateMetadata, type NameRule } from './metadata';
import { invalid, NOT_CHECKED, REQUIRED, unsupported, withReasons } from './messages';
import { CORE_SCHEMAS, RULES } from './rules';
import { schemaValidator, validateSchema } from './schema';
import { cloneJson, prepare, structuralNode, type PrepareState } from './structural';
import { unstorableStrings } from './storable';
import type { FieldError, ValidateOptions, ValidateResult } from './types';

export type { FieldError, FieldReason, ValidateOptions, ValidateResult } from './types';
export { fieldReason, withReasons } from './messages';


/** Nesting deeper than this is refused (no legitimate object comes near it). */
export const MAX_DEPTH = 64;

const NAME_RULES: Record<string, NameRule> = { Namespace: 'label', Service: 'dns1035' };

type JsonObject = Record<string, unknown>;

const isObj = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function lookup(obj: JsonObject): { info: KindInfo; schema: string } | FieldError[] {
  const kind = obj.kind;
  const apiVersion = obj.apiVersion;
  if (typeof kind !== 'string' || kind === '' || typeof apiVersion !== 'string' || apiVersion === '') {
    const errors: FieldError[] = [];
    if (typeof kind !== 'string' || kind === '') errors.push({ path: 'kind', message: REQUIRED });
    if (typeof apiVersion !== 'string' || apiVersion === '') errors.push({ path: 'apiVersion', message: REQUIRED });
    return errors;
  }
  const info = kindInfo(kind);
  if (!info) return [{ path: 'kind', message: invalid(kind, 'unknown kind') }];
  const schema = Object.hasOwn(info.versions, apiVersion) ? info.versions[apiVersion] : undefined;
  if (!schema) return [{ path: 'apiVersion', message: unsupported(apiVersion, Object.keys(info.versions)) }];
  return { info, schema };
}

/** The defaults that are not the CRDs' structural ones, and metadata nulls. */
function postDefaults(copy: JsonObject, schema: string): void {
  const metadata = copy.metadata;
  if (isObj(metadata)) {
    for (const k of Object.keys(metadata)) if (metadata[k] === null) delete metadata[k];
  }
  if (schema === 'Secret') secretStringData(copy);
  if (schema === 'Service') serviceTargetPorts(copy);
}

/** stringData is write-only: merged into data (base64), as the API server does, so it is never stored. */
function secretStringData(secret: JsonObject): void {
  const stringData = secret.stringData;
  if (!isObj(stringData)) return;
  const data: JsonObject = isObj(secret.data) ? secret.data : {};
  for (const [k, v] of Object.entries(stringData)) {
    if (typeof v !== 'string') return; // left for the schema to report
    data[k] = base64(v);
  }
  secret.data = data;
  delete secret.stringData;
}

function base64(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = '';
  for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
  return btoa(bin);
}

/** A Service port's targetPort defaults to its port. */
function serviceTargetPorts(svc: JsonObject): void {
  const ports = isObj(svc.spec) ? svc.spec.ports : undefined;
  if (!Array.isArray(ports)) return;
  for (const p of ports) {
    if (isObj(p) && (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') && typeof p.port === 'number') {
      p.targetPort = p.port;
    }
  }
}

/**
 * A deep copy of `obj` with the CRD defaults applied as the API server applies them (structural
 * defaulting), plus the core kinds' defaults Switchyard relies on. Objects of unknown kinds are copied.
 */
export function applyDefaults<T>(obj: T): T {
  if (!isObj(obj)) return cloneJson(obj, MAX_DEPTH, { tooDeep: false }) as T;
  const found = lookup(obj);
  if (Array.isArray(found)) return cloneJson(obj, MAX_DEPTH, { tooDeep: false }) as T;
  const st: PrepareState = { errors: [], tooDeep: false, maxDepth: MAX_DEPTH };
  const copy = prepare(obj, structuralNode(found.schema), '', st);
  // a status default only fills in a status the control plane wrote
  if (obj.status === undefined) delete copy.status;
  postDefaults(copy, found.schema);
  return copy as T;
}

/** Defaults, then schema, then the CEL rules; each error with its reason. Never throws. */
export function validateObject(obj: unknown, opts: ValidateOptions = {}): ValidateResult {
  const result = validateUnreasoned(obj, opts);
  return result.errors.length ? { ...result, errors: withReasons(result.errors) } : result;
}

function validateUnreasoned(obj: unknown, opts: ValidateOptions): ValidateResult {
  if (!isObj(obj)) {
    return { object: cloneJson(obj, MAX_DEPTH, { tooDeep: false }), errors: [{ path: '', message: invalid(obj, 'must be an object') }] };
  }
  // first, and alone: such a string is refused whatever else is wrong, and the rules below need not
  // be trusted with it
  const unstorable = unstorableStrings(opts.keepStatus ? obj : { ...obj, status: undefined });
  if (unstorable.length) return { object: cloneJson(obj, MAX_DEPTH, { tooDeep: false }), errors: unstorable };
  const found = lookup(obj);
  if (Array.isArray(found)) return { object: cloneJson(obj, MAX_DEPTH, { tooDeep: false }), errors: found };
  const { info, schema } = found;
  const st: PrepareState = { errors: [], tooDeep: false, maxDepth: MAX_DEPTH };
  let copy: JsonObject | undefined;
  try {
    const input = opts.keepStatus || obj.status === undefined ? obj : { ...obj, status: undefined };
    const defaulted: JsonObject = prepare(input, structuralNode(schema), '', st);
    copy = defaulted;
    if (!opts.keepStatus || obj.status === undefined) delete defaulted.status;
    if (st.tooDeep) {
      return { object: defaulted, errors: [{ path: '', message: invalid('object', `nesting too deep: more than ${MAX_DEPTH} levels`) }] };
    }
    if (info.scope === 'Cluster' && isObj(defaulted.metadata)) delete defaulted.metadata.namespace;
    postDefaults(defaulted, schema);
    const errors = st.errors;
    validateMetadata(defaulted.metadata, info.scope === 'Namespaced', NAME_RULES[info.kind] ?? 'subdomain', errors);
    const result = validateSchema(schema, defaulted, structuralNode(schema));
    errors.push(...result.errors);
    const old = isObj(opts.old) ? opts.old : undefined;
    if (CORE_SCHEMAS.has(schema)) {
      if (!result.blocking) RULES[schema](defaulted, errors, old);
    } else if (result.blocking) {
      errors.push({ path: '', message: NOT_CHECKED });
    } else {
      RULES[schema](defaulted, errors, old);
    }
    return { object: defaulted, errors };
  } catch (e) {
    // a bug here must not become a 5xx: report it as a validation failure of this object
    return {
      object: copy ?? null,
      errors: [...st.errors, { path: '', message: `internal validation error: ${e instanceof Error ? e.message : String(e)}` }],
    };
  }
}

/** Compiles what validating objects of `schema` needs (its validator and its structural view). */
export function compileSchema(schema: string): void {
  schemaValidator(schema);
  structuralNode(schema);
}
