// The API reference at /docs: Swagger UI, served from its npm package (swagger-ui-dist) over the
// spec at /openapi.json. Nothing on the page comes from another origin, and the policy says so.
import { Router } from 'express';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { runtimePath } from '../../runtime/files';

const here = runtimePath('docsFolder');
const renderer = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Swagger UI's inline SVG icons are data: URLs; everything else comes from this server. */
export const DOCS_CSP = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'self'";

// Only what the page uses: the package also holds a demo page that points at an outside spec.
const ASSETS = new Set(['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'favicon-16x16.png']);

export function docsRouter(): Router {
  const r = Router();
  const page = readFileSync(join(here, 'index.html'), 'utf8');
  const init = readFileSync(join(here, 'init.js'), 'utf8');

  r.get('/docs', (_req, res) => {
    res.locals.route = '/docs';
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.type('text/html').send(page);
  });
  r.get('/docs/init.js', (_req, res) => {
    res.locals.route = '/docs/init.js';
    res.type('text/javascript').send(init);
  });
  r.get('/docs/assets/:file', (req, res, next) => {
    res.locals.route = '/docs/assets';
    const file = req.params.file;
    if (!ASSETS.has(file)) return next();
    res.sendFile(join(renderer, file), { maxAge: '1h' }, (err) => err && next(err));
  });
  return r;
}
