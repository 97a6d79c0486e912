// Delivery to mesh proxies (GAMMA): the mesh table of a client namespace (ETag, If-None-Match,
// ?wait= long-poll), its SSE watch, and resolve for a Service ("where would this client's request
// go, and why"), as the Gateway snapshots have them.
import { Router, type Request, type Response } from 'express';
import type { AppContext } from './context';
import { HttpError } from './problem';
import { openSse, lastEventId, sseFrame } from './sse';
import { canRead, canReadMeshSnapshot } from '../../service/access';
import type { Principal } from '../../service/principal';
import { requireBody } from './body';
import { byName, portOf, resolveMesh, xMeshOf } from '../../core/mesh';
import type { MeshHub, MeshSnapshot } from '../delivery/mesh-snapshots';

const MAX_WAIT_SECONDS = 300;
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function etagVersion(header: string | undefined): number | undefined {
  if (!header) return undefined;
  const m = header.trim().match(/^(?:W\/)?"?(\d+)"?$/);
  return m ? Number(m[1]) : undefined;
}

const noTable = (ns: string) => new HttpError(404,
  `namespace "${ns}" has no mesh table yet: one is made for every namespace with a Namespace object or any object in it`);

function access(p: Principal, ns: string): void {
  if (!canReadMeshSnapshot(p, ns)) throw new HttpError(403, `this token may not read the mesh table of namespace ${ns}`);
}

export function meshRouter(ctx: AppContext, hub: MeshHub): Router {
  const r = Router();

  r.get('/api/v1/namespaces/:namespace/mesh/snapshot', async (req: Request, res: Response, next) => {
    res.locals.route = '/api/v1/namespaces/:namespace/mesh/snapshot';
    try {
      const { namespace } = req.params as { namespace: string };
      access(res.locals.principal, namespace);
      let snap = await hub.get(namespace);
      if (!snap) throw noTable(namespace);
      const have = etagVersion(req.headers['if-none-match']);
      const waitRaw = req.query.wait;
      if (waitRaw !== undefined && (!Number.isFinite(Number(waitRaw)) || Number(waitRaw) < 0))
        throw new HttpError(400, `wait must be a number of seconds, got "${String(waitRaw)}"`);
      if (have !== undefined && have >= snap.version && waitRaw !== undefined) {
        const abort = new AbortController();
        res.on('close', () => abort.abort());
        const newer = await hub.waitNewer(namespace, have, Math.min(Number(waitRaw), MAX_WAIT_SECONDS) * 1000, abort.signal);
        if (newer) snap = newer;
      }
      res.setHeader('ETag', `"${snap.version}"`);
      res.setHeader('Cache-Control', 'no-cache');
      if (have !== undefined && have >= snap.version) return void res.status(304).end();
      res.type('application/json').send(snap.body);
    } catch (e) {
      next(e);
    }
  });

  r.get('/api/v1/namespaces/:namespace/mesh/snapshot/watch', async (req: Request, res: Response, next) => {
    res.locals.route = '/api/v1/namespaces/:namespace/mesh/snapshot/watch';
    const { namespace } = req.params as { namespace: string };
    let release: () => void;
    try {
      access(res.locals.principal, namespace);
      if (!NAMESPACE.test(namespace)) throw new HttpError(400, `"${namespace}" is not a namespace name`);
      release = ctx.limits.acquireSse(res.locals.principal);
    } catch (e) {
      return next(e);
    }
    const stream = openSse(req, res, ctx.sse);
    stream.onClose(release);
    stream.onClose(ctx.metrics.sseOpened('snapshot'));
    let sent = etagVersion(lastEventId(req)) ?? -1;
    let sending = Promise.resolve();
    const send = (snap: MeshSnapshot | undefined) => {
      sending = sending.then(async () => {
        if (!snap || snap.version <= sent || stream.closed) return;
        sent = snap.version;
        await stream.sendFrame(sseFrame({ id: snap.version, event: 'snapshot', data: snap.body }));
      }).catch(() => stream.end());
    };
    stream.onClose(hub.watch(namespace, send));
    stream.comment('connected');
    send(await hub.get(namespace).catch(() => undefined));
  });

  // the mesh's features as upstream's XMesh reports them (one mesh, this controller's)
  const meshName = ctx.config.defaultGatewayClass ?? 'switchyard';
  r.get('/api/v1/xmeshes', (_req: Request, res: Response) => {
    res.locals.route = '/api/v1/xmeshes';
    res.json({ apiVersion: 'gateway.networking.x-k8s.io/v1alpha1', kind: 'XMeshList', metadata: {}, items: [xMeshOf(meshName, ctx.config.controllerName)] });
  });
  r.get('/api/v1/xmeshes/:name', (req: Request, res: Response, next) => {
    res.locals.route = '/api/v1/xmeshes/:name';
    if (req.params.name !== meshName) return next(new HttpError(404, `XMesh "${req.params.name}" does not exist: this controller serves one mesh, "${meshName}"`));
    res.json(xMeshOf(meshName, ctx.config.controllerName));
  });

  r.post('/api/v1/namespaces/:namespace/services/:name/resolve', async (req: Request, res: Response, next) => {
    res.locals.route = '/api/v1/namespaces/:namespace/services/:name/resolve';
    try {
      const { namespace, name } = req.params as { namespace: string; name: string };
      const p: Principal = res.locals.principal;
      if (!canRead(p, 'Service', namespace, name)) throw new HttpError(403, `this token may not read Service ${namespace}/${name}`);
      const body = requireBody(req, res);
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'the resolve body must be a JSON object');
      const { client, ...request } = body as { client?: { namespace?: unknown } } & Record<string, unknown>;
      const clientNs = client?.namespace;
      if (typeof clientNs !== 'string' || !NAMESPACE.test(clientNs))
        throw new HttpError(400, 'client.namespace is required: the namespace of the client that sends the request (consumer routes apply to their own namespace\'s clients)');
      if (request.port !== undefined && (typeof request.port !== 'number' || !Number.isInteger(request.port)))
        throw new HttpError(400, `port must be an integer, got ${JSON.stringify(request.port)}`);
      const snap = await hub.get(clientNs);
      if (!snap) throw noTable(clientNs);
      const table = snap.table();
      const service = byName(table, namespace, name);
      if (!service) throw new HttpError(404, `Service ${namespace}/${name} does not exist`);
      const port = portOf(service, request.port as number | undefined);
      if (!port) throw new HttpError(404, `Service ${namespace}/${name} has no port ${String(request.port)}`);
      const answer = resolveMesh(table, { service, port }, request, { canRead: (ns) => canRead(p, 'HTTPRoute', ns) });
      res.setHeader('ETag', `"${snap.version}"`);
      res.json({ ...answer, snapshotVersion: snap.version });
    } catch (e) {
      next(e);
    }
  });
  return r;
}
