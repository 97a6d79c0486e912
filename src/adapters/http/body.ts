// Request bodies: read with a size limit, parsed as JSON by us so that every failure is a clear 4xx.
import type { NextFunction, Request, Response } from 'express';
import { HttpError } from './problem';
import { MAX_BODY_DEPTH, nestedDeeperThan } from '../../core/validate/storable';
import { duplicateKeys } from '../../core/validate/duplicate-keys';

export function readBody(req: Request, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.header('content-length'));
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      return reject(new HttpError(413, `the request body is ${declared} bytes; the limit is ${limit} bytes`));
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        req.resume();
        reject(new HttpError(413, `the request body exceeds the limit of ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => !failed && resolve(Buffer.concat(chunks)));
    req.on('error', (e) => !failed && reject(new HttpError(400, `could not read the request body: ${e.message}`)));
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A body that is not JSON text (a caller that also takes YAML may read it as such). */
export class NotJsonError extends HttpError {}

/** `duplicates`, when given, receives the paths of the keys an object of the body holds twice (JSON.parse keeps the last). */
export function parseJson(buf: Buffer, duplicates?: string[]): unknown {
  if (buf.length === 0) throw new HttpError(400, 'the request body is empty; a JSON object is required');
  let text: string;
  try {
    // a lenient decode would store U+FFFD for the bad bytes, where apply refuses the same body
    text = utf8.decode(buf);
  } catch {
    throw new HttpError(400, 'the request body is not valid UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new NotJsonError(400, `the request body is not valid JSON: ${(e as Error).message}`);
  }
  // here, before any recursive step (merge patch, stripping server fields) can overflow the stack
  if (nestedDeeperThan(value, MAX_BODY_DEPTH)) throw new HttpError(400, `the request body is nested more than ${MAX_BODY_DEPTH} levels deep`);
  if (duplicates) duplicates.push(...duplicateKeys(text, value));
  return value;
}

/**
 * Parses JSON bodies into req.body. A body that cannot be had (too large, wrong type, not JSON) is
 * kept as res.locals.bodyError and raised by the route after authorization (see requireBody), so a
 * forbidden request is a 403 whatever its body.
 */
export function jsonBody(limit: number) {
  const read = async (req: Request, res: Response, next: NextFunction) => {
    try {
      const type = (req.header('content-type') ?? 'application/json').split(';')[0].trim().toLowerCase();
      const buf = await readBody(req, limit);
      if (req.method === 'PATCH') {
        if (type !== 'application/merge-patch+json' && type !== 'application/json')
          throw new HttpError(415, `PATCH takes application/merge-patch+json, not ${type}`);
      } else if (type !== 'application/json' && !type.endsWith('+json')) {
        throw new HttpError(415, `the body must be application/json, not ${type}`);
      }
      const duplicates: string[] = [];
      req.body = parseJson(buf, duplicates);
      res.locals.duplicateFields = duplicates;
      next();
    } catch (e) {
      if (!(e instanceof HttpError)) return next(e);
      res.locals.bodyError = e;
      req.body = undefined;
      next();
    }
  };
  // a request without a body is passed on at once, not through an async function's promise
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE' || req.method === 'OPTIONS') return next();
    if (req.path === '/api/v1/apply') return next();
    return read(req, res, next);
  };
}

/** The parsed body, or the error that kept it from being parsed. */
export function requireBody(req: Request, res: Response): unknown {
  if (res.locals.bodyError) throw res.locals.bodyError;
  return req.body;
}

/**
 * res.json without express's per-response work (content-type negotiation, JSONP and replacer
 * settings): the object endpoints answer every write of a sync with one.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
