// /api/v1 object endpoints. Paths are matched by segment because "namespaces" is both a kind and
// the prefix of namespaced paths.
import { Router, type Request, type Response } from 'express';
import type { AppContext } from './context';
import { HttpError } from './problem';
import { kindByPlural, type KindInfo } from '../../core/model/kinds';
import { parseLabelSelector, SelectorError } from '../../core/objects/label-selector';
import type { Actor } from '../../service/resources';
import type { Principal } from '../../service/principal';
import { actorOf, canRead, canWrite, listScope } from '../../service/access';
import { requireBody, sendJson } from './body';
import { checkDuplicates, dryRunOf, fieldValidationOf, setWarnings } from './field-validation';
import { ExplainService } from '../../service/explain';

export interface ObjectPath {
  info: KindInfo;
  namespace: string;
  name?: string;
  sub?: 'history' | 'explain' | 'snapshot' | 'snapshot/watch' | 'resolve';
  version?: number;
  template: string;
}

/** Parses the segments after /api/v1/, or returns null when they name no resource. */
export function parseObjectPath(segments: string[]): ObjectPath | null {
  const [a, b, c, d, e, f] = segments;
  if (a === 'namespaces' && b !== undefined && c !== undefined && c !== 'history') {
    const info = kindByPlural(c);
    if (!info || info.scope !== 'Namespaced') return null;
    return withSub(info, b, d, segments.slice(4), '/api/v1/namespaces/:namespace/' + c);
  }
  const info = kindByPlural(a);
  if (!info) return null;
  if (info.scope === 'Namespaced') return segments.length === 1 ? { info, namespace: '', template: `/api/v1/${a}` } : null;
  void e; void f;
  return withSub(info, '', b, segments.slice(2), `/api/v1/${a}`);
}

function withSub(info: KindInfo, namespace: string, name: string | undefined, rest: string[], base: string): ObjectPath | null {
  if (name === undefined) return { info, namespace, template: base };
  const t = `${base}/:name`;
  if (rest.length === 0) return { info, namespace, name, template: t };
  if (rest[0] === 'history' && rest.length === 1) return { info, namespace, name, sub: 'history', template: `${t}/history` };
  if (rest[0] === 'history' && rest.length === 2) {
    const version = historyVersion(rest[1]);
    return { info, namespace, name, sub: 'history', version, template: `${t}/history/:version` };
  }
  if (rest[0] === 'explain' && rest.length === 1) return { info, namespace, name, sub: 'explain', template: `${t}/explain` };
  if (info.kind === 'Gateway' && rest[0] === 'snapshot' && rest.length === 1) return { info, namespace, name, sub: 'snapshot', template: `${t}/snapshot` };
  if (info.kind === 'Gateway' && rest[0] === 'snapshot' && rest[1] === 'watch' && rest.length === 2) return { info, namespace, name, sub: 'snapshot/watch', template: `${t}/snapshot/watch` };
  if (info.kind === 'Gateway' && rest[0] === 'resolve' && rest.length === 1) return { info, namespace, name, sub: 'resolve', template: `${t}/resolve` };
  return null;
}

/** Versions are PostgreSQL integers: a larger one names no version, and would fail the query. */
const MAX_VERSION = 2_147_483_647;

function historyVersion(segment: string): number {
  const version = /^[0-9]{1,10}$/.test(segment) ? Number(segment) : NaN;
  if (!(version >= 1 && version <= MAX_VERSION))
    throw new HttpError(400, `a history version must be an integer from 1 to ${MAX_VERSION}, got "${segment.slice(0, 40)}"`);
  return version;
}

function forbidden(p: Principal, verb: string, info: KindInfo, namespace: string, name?: string): HttpError {
  const where = info.scope === 'Namespaced' ? ` in namespace "${namespace}"` : '';
  return new HttpError(403, `token "${p.name}" (${p.role}) may not ${verb} ${info.kind}${name ? ` "${name}"` : ' objects'}${where}`);
}

/** Authorization first: a forbidden request is a 403 whatever its body. */
function authorize(p: Principal, method: string, path: ObjectPath): void {
  const { info, namespace, name } = path;
  const ns = info.scope === 'Namespaced' ? namespace : undefined;
  if (method === 'GET' || method === 'HEAD') {
    if (name === undefined) {
      const scope = listScope(p, info.kind);
      if (scope === null || (ns && scope !== 'all' && !scope.includes(ns))) throw forbidden(p, 'list', info, namespace);
      return;
    }
    if (!canRead(p, info.kind, ns, name)) throw forbidden(p, 'read', info, namespace, name);
    return;
  }
  if (info.scope === 'Namespaced' && !namespace) return; // 405 below
  // a create names the object in its body; kinds are permitted per namespace, Namespaces per name
  if (!canWrite(p, info.kind, ns, name)) throw forbidden(p, 'write', info, namespace, name);
}

/** "All" as Kubernetes spells it, "true" as this API's apply does. */
const DRY_RUN_VALUES = ['All', 'true'];

function listVersion(info: KindInfo): string {
  return info.group ? `${info.group}/v1` : 'v1';
}

function encodeContinue(o: { namespace?: string; name: string }): string {
  return Buffer.from(JSON.stringify([o.namespace ?? '', o.name])).toString('base64url');
}

const TOKEN_PART = /^[a-z0-9.-]{0,253}$/;

function decodeContinue(token: string): { namespace: string; name: string } {
  try {
    const [namespace, name] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    // only what encodeContinue can have written: object names (a NUL, say, must not reach the store)
    if (typeof namespace !== 'string' || typeof name !== 'string' || !TOKEN_PART.test(namespace) || !TOKEN_PART.test(name)) throw new Error();
    return { namespace, name };
  } catch {
    throw new HttpError(400, 'the continue token is not one this server issued');
  }
}

function sendObject(res: Response, status: number, obj: { metadata?: { resourceVersion?: string } }) {
  if (obj.metadata?.resourceVersion) res.setHeader('ETag', `"${obj.metadata.resourceVersion}"`);
  sendJson(res, status, obj);
}

export function resourcesRouter(ctx: AppContext): Router {
  const r = Router();
  const explainer = new ExplainService(ctx.resources, ctx.db, ctx.config.controllerName);
  r.all(/^\/api\/v1\/(.+)$/, async (req: Request, res: Response, next) => {
    let path: ObjectPath | null;
    try {
      path = parseObjectPath(req.path.slice('/api/v1/'.length).split('/').filter(Boolean).map(decodeURIComponent));
    } catch (e) {
      return next(e);
    }
    if (!path || (path.sub && path.sub !== 'history' && path.sub !== 'explain')) return next();
    res.locals.route = path.template;
    const principal: Principal = res.locals.principal;
    const actor = actorOf(principal);
    const { info, namespace, name } = path;
    const ifMatch = req.header('if-match');
    try {
      authorize(principal, req.method, path);
      requireBody(req, res);
      const writes = !path.sub && req.method !== 'GET' && req.method !== 'HEAD';
      // a dry run writes nothing and answers what the write would have (defaults, generation, 409s)
      const opts = { dryRun: writes && dryRunOf(req, DRY_RUN_VALUES) };
      if (writes) setWarnings(res, checkDuplicates(res.locals.duplicateFields, fieldValidationOf(req)));
      if (path.sub === 'explain') {
        if (req.method !== 'GET') throw new HttpError(405, 'explain is read-only', undefined, { Allow: 'GET' });
        return sendJson(res, 200, await explainer.explain(info, namespace, name!, actor));
      }
      if (path.sub === 'history') {
        if (req.method !== 'GET') throw new HttpError(405, 'history is read-only');
        if (path.version !== undefined) return sendObject(res, 200, await ctx.resources.at(info, namespace, name!, path.version));
        const events = await ctx.resources.history(info, namespace, name!);
        return res.json({ kind: 'History', items: events.map((e) => ({ version: e.version, type: e.type, actor: e.actor, time: e.time })) });
      }
      if (name === undefined) {
        if (req.method === 'GET') return await list(ctx, req, res, path, actor);
        if (req.method === 'POST') {
          if (info.scope === 'Namespaced' && !namespace) throw new HttpError(405, `create ${info.kind} objects under /api/v1/namespaces/{namespace}/${info.plural}`);
          const out = await ctx.resources.write(info, namespace, undefined, req.body, 'create', actor, undefined, opts);
          return sendObject(res, 201, out.object);
        }
        throw new HttpError(405, `${req.method} is not allowed on a collection`);
      }
      switch (req.method) {
        case 'GET':
          const read = await ctx.resources.read(info, namespace, name, actor);
          // where the object's last change stands in the events' position space, a status change
          // included (the resourceVersion stays the stream version, which no status change moves)
          res.setHeader('Last-Change-Position', String(read.lastChange));
          return sendObject(res, 200, read.object);
        case 'PUT': {
          const out = await ctx.resources.write(info, namespace, name, req.body, 'replace', actor, ifMatch, opts);
          return sendObject(res, out.status, out.object);
        }
        case 'PATCH': {
          const out = await ctx.resources.patch(info, namespace, name, req.body, actor, ifMatch, opts);
          return sendObject(res, 200, out.object);
        }
        case 'DELETE':
          return sendObject(res, 200, await ctx.resources.remove(info, namespace, name, actor, ifMatch, opts));
        default:
          throw new HttpError(405, `${req.method} is not allowed on an object`);
      }
    } catch (e) {
      next(e);
    }
  });
  return r;
}

async function list(ctx: AppContext, req: Request, res: Response, path: ObjectPath, actor: Actor) {
  const q = req.query;
  let selector;
  try {
    selector = typeof q.labelSelector === 'string' && q.labelSelector ? parseLabelSelector(q.labelSelector) : undefined;
  } catch (e) {
    if (e instanceof SelectorError) throw new HttpError(400, `labelSelector: ${e.message}`);
    throw e;
  }
  let limit = ctx.config.maxListLimit;
  if (q.limit !== undefined && q.limit !== '') {
    const n = Number(q.limit);
    if (!Number.isInteger(n) || n < 1) throw new HttpError(400, `limit must be a positive integer, got "${String(q.limit)}"`);
    limit = Math.min(n, ctx.config.maxListLimit);
  }
  const after = typeof q.continue === 'string' && q.continue ? decodeContinue(q.continue) : undefined;
  const namespace = path.info.scope === 'Namespaced' && path.namespace ? path.namespace : undefined;
  const scope = listScope(res.locals.principal, path.info.kind);
  const namespaces = scope === 'all' || scope === null || namespace ? undefined : scope;
  const { items, more } = await ctx.resources.list(path.info, { namespace, namespaces, selector, limit, after }, actor);
  const metadata: Record<string, string> = {};
  if (more && items.length) metadata.continue = encodeContinue(items[items.length - 1].metadata);
  res.json({ apiVersion: listVersion(path.info), kind: `${path.info.kind}List`, metadata, items });
}
