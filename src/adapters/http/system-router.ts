// Liveness, readiness, metrics, the spec and its rendering, the console, and the version.
import { Router } from 'express';
import { readFileSync } from 'node:fs';
import { runtimePath } from '../../runtime/files';
import type { AppContext } from './context';
import { docsRouter } from './docs-router';
import { consoleRouter } from './console-router';
import { GATEWAY_API_VERSION } from '../../runtime/version';

export { GATEWAY_API_VERSION };

export function systemRouter(ctx: AppContext): Router {
  const r = Router();
  const spec = readFileSync(runtimePath('openapiSpec'), 'utf8');

  r.get('/healthz', (_req, res) => {
    res.locals.route = '/healthz';
    res.json({ status: 'ok' });
  });
  r.get('/readyz', async (_req, res) => {
    res.locals.route = '/readyz';
    const answer = await ctx.readiness();
    res.status(answer.down.length ? 503 : 200).json(answer);
  });
  r.get('/metrics', async (_req, res) => {
    res.locals.route = '/metrics';
    res.type(ctx.metrics.contentType).send(await ctx.metrics.text());
  });
  r.get('/openapi.json', (_req, res) => {
    res.locals.route = '/openapi.json';
    res.type('application/json').send(spec);
  });
  r.use(docsRouter());
  r.use(consoleRouter());
  r.get('/version', (_req, res) => {
    res.locals.route = '/version';
    res.json({ version: ctx.version, gatewayAPIVersion: GATEWAY_API_VERSION, channel: 'experimental' });
  });
  return r;
}
