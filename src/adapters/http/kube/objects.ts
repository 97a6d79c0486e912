// The verbs on one Kubernetes object path: get, list, watch, create, update, patch, delete, and the
// status subresource (read only). Authorization first, as on every path: a forbidden request is a
// 403 whatever its body.
import type { Request, Response } from 'express';
import type { AppContext } from '../context';
import { HttpError } from '../problem';
import { parseJson, readBody, sendJson } from '../body';
import type { KubePath } from '../../../core/kube/paths';
import { apiVersionOf } from '../../../core/kube/resources';
import { table, wantsTable, type IncludeObject } from '../../../core/kube/table';
import { matchesFields } from '../../../core/kube/field-selector';
import { selectorsOf } from './selectors';
import type { K8sObject } from '../../../core/model/objects';
import type { Principal } from '../../../service/principal';
import { actorOf, canRead, canWrite, listScope } from '../../../service/access';
import { resourceName, type KubeObjects, type KubeWriteOptions } from '../../../service/kube-objects';
import { checkDuplicates, dryRunOf, fieldValidationOf, setWarnings } from '../field-validation';
import { objectBody, patchBody } from './body';
import { applyPatchTo, createsMissing, fieldManagerOf, recordWrite } from './patches';
import { watch } from './watch';

function forbidden(p: Principal, verb: string, path: KubePath): HttpError {
  const { info } = path.resource;
  const where = info.scope === 'Namespaced' ? (path.namespace ? ` in the namespace "${path.namespace}"` : ' at the cluster scope') : '';
  const what = `${info.plural}${path.resource.group ? `.${path.resource.group}` : ''}${path.name ? ` "${path.name}"` : ''}`;
  return new HttpError(403, `${what} is forbidden: token "${p.name}" (${p.role}) cannot ${verb} resource "${info.plural}" in API group "${path.resource.group}"${where}`);
}

function verbOf(req: Request, path: KubePath): string {
  switch (req.method) {
    case 'GET': case 'HEAD':
      if (path.name !== undefined) return 'get';
      return req.query.watch === 'true' || req.query.watch === '1' ? 'watch' : 'list';
    case 'POST': return 'create';
    case 'PUT': return 'update';
    case 'PATCH': return 'patch';
    case 'DELETE': return path.name === undefined ? 'deletecollection' : 'delete';
    default: return req.method.toLowerCase();
  }
}

export function authorizeKube(p: Principal, verb: string, path: KubePath): void {
  const { info } = path.resource;
  const ns = info.scope === 'Namespaced' ? path.namespace || undefined : undefined;
  if (verb === 'list' || verb === 'watch') {
    const scope = listScope(p, info.kind);
    if (scope === null || (ns && scope !== 'all' && !scope.includes(ns))) throw forbidden(p, verb, path);
    return;
  }
  if (verb === 'get') {
    if (!canRead(p, info.kind, ns, path.name)) throw forbidden(p, verb, path);
    return;
  }
  if (info.scope === 'Namespaced' && !ns) throw new HttpError(405, `${verb} of ${info.plural} takes a namespace: /namespaces/{namespace}/${info.plural}`);
  if (!canWrite(p, info.kind, ns, path.name)) throw forbidden(p, verb, path);
}

function writeOptions(req: Request): KubeWriteOptions {
  return { dryRun: dryRunOf(req, ['All']), fieldValidation: fieldValidationOf(req) };
}

function encodeContinue(o: { namespace?: string; name: string }, rv: number): string {
  return Buffer.from(JSON.stringify([o.namespace ?? '', o.name, rv])).toString('base64url');
}

const TOKEN_PART = /^[a-z0-9.-]{0,253}$/;

function decodeContinue(token: string): { after: { namespace: string; name: string }; rv: number } {
  try {
    const [namespace, name, rv] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (typeof namespace !== 'string' || typeof name !== 'string' || !TOKEN_PART.test(namespace) || !TOKEN_PART.test(name) || !Number.isSafeInteger(rv)) throw new Error();
    return { after: { namespace, name }, rv };
  } catch {
    throw new HttpError(400, 'the provided continue parameter is not valid: it is not one this server issued');
  }
}

function includeObject(req: Request): IncludeObject {
  const v = req.query.includeObject;
  if (v === undefined || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw new HttpError(400, `includeObject: Unsupported value: "${String(v)}": supported values: "None", "Metadata", "Object"`);
}

/** The object as the path's version shows it: versions that share a schema are the same object. */
export function inVersion(path: KubePath, o: K8sObject): K8sObject {
  const av = apiVersionOf(path.group, path.version);
  const { versions } = path.resource.info;
  return o.apiVersion !== av && versions[o.apiVersion] === versions[av] ? { ...o, apiVersion: av } : o;
}

export function objectHandler(ctx: AppContext, objects: KubeObjects) {
  return async (req: Request, res: Response, path: KubePath): Promise<void> => {
    const { info } = path.resource;
    res.locals.route = path.template;
    res.locals.kubeTarget = { kind: info.plural, kindName: info.kind, group: path.resource.group, name: path.name };
    const principal: Principal = res.locals.principal;
    const actor = actorOf(principal);
    const verb = verbOf(req, path);
    authorizeKube(principal, verb === 'deletecollection' ? 'delete' : verb, path);
    const send = (status: number, o: K8sObject) => {
      const shown = inVersion(path, o);
      if (shown.metadata?.resourceVersion) res.setHeader('ETag', `"${shown.metadata.resourceVersion}"`);
      if (req.method === 'GET' && wantsTable(req.header('accept'))) {
        return sendJson(res, status, table(path.resource, [shown], Date.now(), includeObject(req), { resourceVersion: shown.metadata.resourceVersion }));
      }
      sendJson(res, status, shown);
    };
    const ns = info.scope === 'Namespaced' ? path.namespace : '';

    if (path.status && req.method !== 'GET' && req.method !== 'HEAD')
      throw new HttpError(405, `the status of ${resourceName(info)} is written by the control plane alone; ${req.method} is not allowed on it`, undefined, { Allow: 'GET' });

    switch (verb) {
      case 'get':
        return send(200, await objects.get(info, ns, path.name!, actor));
      case 'list':
        return list(ctx, objects, req, res, path);
      case 'watch':
        return watch(ctx, objects, req, res, path, selectorsOf(req));
      case 'create': {
        const opts = writeOptions(req);
        const duplicates: string[] = [];
        const body = await objectBody(req, ctx.config.bodyLimitBytes, duplicates);
        res.locals.kubeTarget = { ...res.locals.kubeTarget, name: (body as K8sObject | null)?.metadata?.name };
        const dupWarnings = checkDuplicates(duplicates, opts.fieldValidation);
        checkApiVersion(path, body);
        const out = await objects.write(info, ns, undefined, withPathVersion(path, body), 'create', actor, { ...opts, record: recorder(req, path) });
        setWarnings(res, [...dupWarnings, ...out.warnings]);
        return send(201, out.object);
      }
      case 'update': {
        const opts = writeOptions(req);
        const duplicates: string[] = [];
        const body = await objectBody(req, ctx.config.bodyLimitBytes, duplicates);
        const dupWarnings = checkDuplicates(duplicates, opts.fieldValidation);
        checkApiVersion(path, body);
        const out = await objects.write(info, ns, path.name!, withPathVersion(path, body), 'update', actor, { ...opts, record: recorder(req, path) });
        setWarnings(res, [...dupWarnings, ...out.warnings]);
        return send(200, out.object);
      }
      case 'patch': {
        const opts = writeOptions(req);
        const duplicates: string[] = [];
        const { type, body } = await patchBody(req, ctx.config.bodyLimitBytes, duplicates);
        const dupWarnings = checkDuplicates(duplicates, opts.fieldValidation);
        const named = typeof req.query.fieldManager === 'string' && req.query.fieldManager ? req.query.fieldManager : undefined;
        if (type === 'application/apply-patch+yaml' && !named) throw new HttpError(422, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch', [{ path: 'fieldManager', message: 'Required value: is required for apply patch', reason: 'FieldValueRequired' }]);
        const force = req.query.force === 'true';
        const apiVersion = apiVersionOf(path.group, path.version);
        const out = await objects.patch(info, ns, path.name!, (current) => {
          const next = applyPatchTo(current ? inVersion(path, current) : undefined, { type, body, kind: info.kind, apiVersion, fieldManager: named ?? fieldManagerOf(undefined, req.header('user-agent')), force });
          return { ...next, apiVersion: next.apiVersion ?? apiVersion, kind: info.kind, metadata: { ...(next.metadata ?? {}), name: path.name!, ...(info.scope === 'Namespaced' ? { namespace: ns } : {}) } as K8sObject['metadata'] };
        // an apply records its own managedFields; every other patch is an update of its manager
        }, actor, { ...opts, createIfMissing: createsMissing(type), record: type === 'application/apply-patch+yaml' ? undefined : recorder(req, path) });
        setWarnings(res, [...dupWarnings, ...out.warnings]);
        return send(out.status, out.object);
      }
      case 'delete': {
        const options = await deleteOptions(ctx, req);
        const gone = await objects.remove(info, ns, path.name!, actor, options.preconditions, options.dryRun);
        // as for custom resources: the object as it was last, for a delete that completes at once
        return send(200, { ...gone, metadata: { ...gone.metadata } });
      }
      default:
        throw new HttpError(405, `${req.method} is not allowed on ${path.name === undefined ? 'a collection' : 'an object'} of ${resourceName(info)}`);
    }
  };
}

/** Every create and update records its manager in managedFields, as kube-apiserver does. */
function recorder(req: Request, path: KubePath) {
  const manager = fieldManagerOf(req.query.fieldManager, req.header('user-agent'));
  return (before: K8sObject | undefined, after: K8sObject) => recordWrite(before, after, manager, path.resource.info.kind, apiVersionOf(path.group, path.version));
}

function checkApiVersion(path: KubePath, body: unknown): void {
  const av = (body as { apiVersion?: unknown } | null)?.apiVersion;
  const expected = apiVersionOf(path.group, path.version);
  if (av !== undefined && av !== expected)
    throw new HttpError(400, `the API version in the data (${String(av)}) does not match the expected API version (${expected})`);
}

function withPathVersion(path: KubePath, body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  return { ...(body as object), apiVersion: apiVersionOf(path.group, path.version) };
}

async function deleteOptions(ctx: AppContext, req: Request): Promise<{ preconditions: { resourceVersion?: string; uid?: string }; dryRun: boolean }> {
  const declared = Number(req.header('content-length') ?? 0);
  let body: Record<string, unknown> = {};
  if (declared > 0 || req.header('transfer-encoding')) {
    const buf = await readBody(req, ctx.config.bodyLimitBytes);
    if (buf.length) {
      const parsed = parseJson(buf);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new HttpError(400, 'DeleteOptions must be a JSON object');
      body = parsed as Record<string, unknown>;
    }
  }
  const policy = body.propagationPolicy ?? req.query.propagationPolicy;
  // nothing here owns anything else, so every policy deletes the one object
  if (policy !== undefined && policy !== 'Orphan' && policy !== 'Background' && policy !== 'Foreground')
    throw new HttpError(422, `propagationPolicy: Unsupported value: "${String(policy)}": supported values: "Foreground", "Background", "Orphan"`, [{ path: 'propagationPolicy', message: `Unsupported value: "${String(policy)}"`, reason: 'FieldValueNotSupported' }]);
  const pre = (body.preconditions ?? {}) as { resourceVersion?: unknown; uid?: unknown };
  const dryRun = body.dryRun ?? (req.query.dryRun === undefined ? undefined : [req.query.dryRun]);
  if (dryRun !== undefined && !(Array.isArray(dryRun) && dryRun.every((d) => d === 'All')))
    throw new HttpError(400, `dryRun: Unsupported value: ${JSON.stringify(dryRun)}: supported values: "All"`);
  return {
    preconditions: {
      resourceVersion: pre.resourceVersion === undefined || pre.resourceVersion === null ? undefined : String(pre.resourceVersion),
      uid: pre.uid === undefined || pre.uid === null ? undefined : String(pre.uid),
    },
    dryRun: Array.isArray(dryRun) && dryRun.length > 0,
  };
}

async function list(ctx: AppContext, objects: KubeObjects, req: Request, res: Response, path: KubePath): Promise<void> {
  const { info } = path.resource;
  const principal: Principal = res.locals.principal;
  const sel = selectorsOf(req);
  let limit: number | undefined;
  if (req.query.limit !== undefined && req.query.limit !== '' && req.query.limit !== '0') {
    const n = Number(req.query.limit);
    if (!Number.isInteger(n) || n < 1) throw new HttpError(400, `limit must be a positive integer, got "${String(req.query.limit)}"`);
    limit = Math.min(n, ctx.config.maxListLimit);
  }
  const token = typeof req.query.continue === 'string' && req.query.continue ? decodeContinue(req.query.continue) : undefined;
  let namespace = info.scope === 'Namespaced' && path.namespace ? path.namespace : undefined;
  // a field selector on the namespace narrows the query itself
  const nsField = sel.fields.find((f) => f.field === 'metadata.namespace' && f.op === 'eq');
  if (nsField && info.scope === 'Namespaced') {
    if (namespace !== undefined && namespace !== nsField.value) return sendList(req, res, path, [], String(await objects.position()));
    namespace = nsField.value;
  }
  const scope = listScope(principal, info.kind);
  const namespaces = scope === 'all' || scope === null || namespace ? undefined : scope;
  if (namespace !== undefined && scope !== 'all' && scope !== null && !scope.includes(namespace)) throw forbidden(principal, 'list', { ...path, namespace });
  const out = await objects.list(info, { namespace, namespaces, selector: sel.labels, limit, after: token?.after }, actorOf(principal));
  const resourceVersion = token?.rv ?? out.resourceVersion;
  const items = out.items.filter((o) => matchesFields(o, sel.fields));
  const last = out.items[out.items.length - 1];
  const cont = out.more && last ? encodeContinue(last.metadata, resourceVersion) : undefined;
  return sendList(req, res, path, items, String(resourceVersion), cont);
}

function sendList(req: Request, res: Response, path: KubePath, items: K8sObject[], resourceVersion: string, cont?: string): void {
  const metadata: { resourceVersion: string; continue?: string } = { resourceVersion };
  if (cont) metadata.continue = cont;
  const shown = items.map((o) => inVersion(path, o));
  if (wantsTable(req.header('accept'))) return sendJson(res, 200, table(path.resource, shown, Date.now(), includeObject(req), metadata));
  sendJson(res, 200, { apiVersion: apiVersionOf(path.group, path.version), kind: `${path.resource.info.kind}List`, metadata, items: shown });
}

