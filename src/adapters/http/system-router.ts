// Liveness, readiness, metrics, the spec and its rendering, and the version.
import { Router } from 'express';
import { readFileSync } from 'node:fs';
import { runtimePath } from '../../runtime/files';
import type { AppContext } from './context';

export const GATEWAY_API_VERSION = 'v1.6.1';

export function systemRouter(ctx: AppContext): Router {
  const r = Router();
  const spec = readFileSync(runtimePath('openapiSpec'), 'utf8');
  const docs = readFileSync(runtimePath('docsPage'), 'utf8');

  r.get('/healthz', (_req, res) => {
    res.locals.route = '/healthz';
    res.json({ status: 'ok' });
  });
  r.get('/readyz', async (_req, res) => {
    res.locals.route = '/readyz';
    const { ok, checks } = await ctx.readiness();
    res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'not ready', checks });
  });
  r.get('/metrics', async (_req, res) => {
    res.locals.route = '/metrics';
    res.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics());
  });
  r.get('/openapi.json', (_req, res) => {
    res.locals.route = '/openapi.json';
    res.type('application/json').send(spec);
  });
  r.get('/docs', (_req, res) => {
    res.locals.route = '/docs';
    res.type('text/html').send(docs);
  });
  r.get('/version', (_req, res) => {
    res.locals.route = '/version';
    res.json({ version: ctx.version, gatewayAPIVersion: GATEWAY_API_VERSION, channel: 'experimental' });
  });
  return r;
}
