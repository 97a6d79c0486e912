// The Kubernetes API: discovery, OpenAPI, the objects at their Kubernetes paths, watch, and the
// self-reviews (can-i, can-i --list, whoami), answered as kube-apiserver answers so kubectl and
// client libraries work unchanged. Served at the root for what does not collide with the Switchyard paths (/apis/...,
// /openapi/v2|v3, GET /api and /api/v1), and whole under KUBE_PREFIX, which is where the kubeconfig
// points: there /api/v1/namespaces/{ns}/services/{name} is the Kubernetes path, while at the root it
// stays the Switchyard one (problem+json, per-object resourceVersions).
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { AppContext } from '../context';
import { bearerToken } from '../auth';
import { HttpError } from '../problem';
import { kubeErrors, sendStatus } from './errors';
import { aggregated, AGGREGATED_V2, coreVersions, group, groupList, resourceList, reviewAt, wantsAggregated } from '../../../core/kube/discovery';
import { parseKubePath } from '../../../core/kube/paths';
import { openApiDocuments } from '../../../core/kube/openapi';
import { PROTOBUF_V2, sendDocument, wantsProtobufV2 } from './documents';
import { failure } from '../../../core/kube/status';
import { sendJson } from '../body';
import { objectHandler } from './objects';
import { review } from './access-review';
import { eventsHandler } from './events';
import { parseEventsPath } from '../../../core/kube/events';
import { KubeObjects } from '../../../service/kube-objects';
import { VERSION } from '../../../runtime/version';

/** The path prefix under which the whole Kubernetes API is served (the kubeconfig's server URL ends with it). */
export const KUBE_PREFIX = '/k8s';

type Handler = (req: Request, res: Response, next: NextFunction) => unknown;

function wrap(fn: Handler): Handler {
  return async (req, res, next) => {
    try {
      await fn(req, res, next);
    } catch (e) {
      next(e);
    }
  };
}

export function kubeRouter(ctx: AppContext): Router {
  const objects = new KubeObjects(ctx.resources, ctx.db);
  const handleObject = objectHandler(ctx, objects);
  const handleEvents = eventsHandler(ctx);

  const authenticate: Handler = async (req, res, next) => {
    const principal = await ctx.auth.authenticate(bearerToken(req));
    if (!principal) throw new HttpError(401, 'the bearer token is unknown, revoked or expired', undefined, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
    res.locals.principal = principal;
    ctx.limits.rate(req, res, next);
  };

  const discovery = (core: boolean, plain: () => unknown): Handler => (req, res) => {
    res.locals.route = core ? '/api' : '/apis';
    if (wantsAggregated(req.header('accept'))) {
      const text = JSON.stringify(aggregated(core));
      res.status(200).setHeader('Content-Type', AGGREGATED_V2);
      res.setHeader('Vary', 'Accept');
      return res.end(text);
    }
    res.setHeader('Vary', 'Accept');
    sendJson(res, 200, plain());
  };

  const groupVersion = (groupName: string, version: string, res: Response) => {
    const list = resourceList(groupName, version);
    if (!list) throw new HttpError(404, `the server could not find the requested resource (${groupName || 'core'}/${version})`);
    sendJson(res, 200, list);
  };

  const openapiV3: Handler = (req, res) => {
    res.locals.route = '/openapi/v3';
    const docs = openApiDocuments();
    const rest = req.path.replace(/^.*?\/openapi\/v3\/?/, '');
    if (rest === '') return sendDocument(req, res, docs.v3Root.json, docs.v3Root.hash, 'application/json');
    const doc = docs.v3.get(rest);
    if (!doc) throw new HttpError(404, `no OpenAPI document for ${rest}`);
    // documents are addressed by their hash: a client may keep one for as long as it likes
    const immutable = req.query.hash === doc.hash;
    sendDocument(req, res, doc.json, doc.hash, 'application/json', immutable);
  };

  const openapiV2: Handler = (req, res) => {
    res.locals.route = '/openapi/v2';
    const { v2 } = openApiDocuments();
    res.setHeader('Vary', 'Accept');
    if (wantsProtobufV2(req.header('accept'))) return sendDocument(req, res, v2.protobuf, v2.protobufHash, PROTOBUF_V2);
    sendDocument(req, res, v2.json, v2.hash, 'application/json');
  };

  /** Everything under /apis, and under the prefix /api as well. */
  const api = (core: boolean): Handler => async (req, res, next) => {
    const segs = req.path.split('/').filter(Boolean).map(decodeURIComponent);
    // segs: [api, v1, ...] or [apis, group, version, ...]
    if (core) {
      if (segs.length === 1) return discovery(true, coreVersions)(req, res, next);
      if (segs[1] !== 'v1') throw new HttpError(404, `the server does not serve /api/${segs[1]}`);
      if (segs.length === 2) return groupVersion('', 'v1', res);
      const events = parseEventsPath('', 'v1', segs.slice(2));
      if (events) return handleEvents(req, res, events);
      const path = parseKubePath('', 'v1', segs.slice(2));
      if (!path) throw new HttpError(404, `the server could not find the requested resource`);
      return handleObject(req, res, path);
    }
    if (segs.length === 1) return discovery(false, groupList)(req, res, next);
    const g = segs[1];
    if (segs.length === 2) {
      const doc = group(g);
      if (!doc) throw new HttpError(404, `the server could not find the requested resource (group ${g})`);
      return sendJson(res, 200, doc);
    }
    if (segs.length === 3) return groupVersion(g, segs[2], res);
    if (segs.length === 4 && reviewAt(g, segs[2], segs[3])) return review(ctx, req, res, g, segs[2], segs[3]);
    const events = parseEventsPath(g, segs[2], segs.slice(3));
    if (events) return handleEvents(req, res, events);
    const path = parseKubePath(g, segs[2], segs.slice(3));
    if (!path) throw new HttpError(404, `the server could not find the requested resource`);
    return handleObject(req, res, path);
  };

  const version: Handler = (_req, res) => {
    res.locals.route = '/version';
    const [major, minor] = ['1', '32'];
    sendJson(res, 200, { major, minor, gitVersion: `v1.32.0-switchyard.${VERSION}`, gitCommit: '', gitTreeState: 'clean', buildDate: '', goVersion: '', compiler: 'switchyard', platform: `${process.platform}/${process.arch}` });
  };

  const r = Router();
  // the root: only what no Switchyard path holds
  r.get(['/api', '/api/v1'], wrap(authenticate), wrap(api(true)));
  r.all(/^\/apis(\/.*)?$/, wrap(authenticate), wrap(api(false)));
  r.get('/openapi/v2', wrap(authenticate), wrap(openapiV2));
  r.get(/^\/openapi\/v3(\/.*)?$/, wrap(authenticate), wrap(openapiV3));
  // the prefix: all of it
  const prefixed = Router();
  prefixed.use(wrap(authenticate));
  prefixed.get('/version', wrap(version));
  prefixed.get('/openapi/v2', wrap(openapiV2));
  prefixed.get(/^\/openapi\/v3(\/.*)?$/, wrap(openapiV3));
  prefixed.all(/^\/api(\/.*)?$/, wrap(api(true)));
  prefixed.all(/^\/apis(\/.*)?$/, wrap(api(false)));
  prefixed.use((req: Request, res: Response) => sendStatus(res, failure(404, `the server could not find the requested resource (${req.method} ${req.path})`)));
  r.use(KUBE_PREFIX, prefixed);
  r.use(KUBE_PREFIX, kubeErrors(ctx.logger));
  r.use(/^\/(apis|openapi\/v[23]|api)(\/.*)?$/, kubeErrors(ctx.logger));
  return r;
}
