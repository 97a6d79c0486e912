// The console at /console: a page, its script and its stylesheet, built from console/ (scripts/
// console-build.ts) and read once at start. Every path under /console that is not an asset answers the
// page, so that each view's address can be shared and reloaded. Nothing on the page comes from
// another origin, and the policy lets nothing else in: no inline script or style, no eval, no frame.
import { Router, type Request, type Response } from 'express';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib';
import { runtimePath } from '../../runtime/files';
import { HttpError } from './problem';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  // the API and its event stream, on this origin only
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
  "require-trusted-types-for 'script'",
].join('; ');

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.html': 'text/html; charset=utf-8', '.svg': 'image/svg+xml' };

interface Asset {
  type: string;
  raw: Buffer;
  gzip: Buffer;
  br: Buffer;
}

function asset(file: string): Asset {
  const raw = readFileSync(file);
  const ext = file.slice(file.lastIndexOf('.'));
  return {
    type: TYPES[ext] ?? 'application/octet-stream',
    raw,
    gzip: gzipSync(raw, { level: 9 }),
    br: brotliCompressSync(raw, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
  };
}

/** The built console in `folder` (index.html and assets/), compressed once; undefined when it is not built. */
export function loadConsole(folder = runtimePath('consoleFolder')): { page: Asset; assets: Map<string, Asset> } | undefined {
  if (!existsSync(join(folder, 'index.html'))) return undefined;
  const assets = new Map<string, Asset>();
  const dir = join(folder, 'assets');
  if (existsSync(dir)) for (const f of readdirSync(dir)) assets.set(f, asset(join(dir, f)));
  return { page: asset(join(folder, 'index.html')), assets };
}

function send(req: Request, res: Response, a: Asset, cache: string): void {
  res.setHeader('Content-Security-Policy', CONSOLE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', cache);
  res.setHeader('Vary', 'Accept-Encoding');
  res.setHeader('Content-Type', a.type);
  const accepts = String(req.headers['accept-encoding'] ?? '');
  const [body, encoding] = /\bbr\b/.test(accepts) ? [a.br, 'br'] : /\bgzip\b/.test(accepts) ? [a.gzip, 'gzip'] : [a.raw, undefined];
  if (encoding) res.setHeader('Content-Encoding', encoding);
  res.setHeader('Content-Length', String(body.length));
  res.end(req.method === 'HEAD' ? undefined : body);
}

export function consoleRouter(folder?: string): Router {
  const r = Router();
  const built = loadConsole(folder);
  r.get(/^\/console(?:\/.*)?$/, (req, res, next) => {
    if (!built) return next(new HttpError(503, 'the console is not built: run `npm run build` (or `tsx scripts/console-build.ts` when running from the sources)'));
    const m = /^\/console\/assets\/([^/]+)$/.exec(req.path);
    if (m) {
      res.locals.route = '/console/assets';
      const a = built.assets.get(m[1]);
      if (!a) return next(new HttpError(404, `the console has no asset ${m[1]}`));
      // the names carry a hash of the content: a new build is a new name
      return send(req, res, a, 'public, max-age=31536000, immutable');
    }
    res.locals.route = '/console';
    // the page names the current assets, so it is asked for again each time
    send(req, res, built.page, 'no-cache');
  });
  return r;
}
