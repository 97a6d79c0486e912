// One check of every request's path and query before any router decodes them: malformed
// percent-encoding (express marks it 400, but a URIError thrown in a handler would be a 500) and
// an encoded NUL, which no name may hold and PostgreSQL refuses in text.
import type { NextFunction, Request, Response } from 'express';
import { HttpError } from './problem';

export function checkRequestPath(req: Request, _res: Response, next: NextFunction): void {
  const url = req.originalUrl ?? req.url;
  // without a % nothing can be badly encoded, nor an encoded NUL (the HTTP parser refuses a raw one)
  if (!url.includes('%')) return next();
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return next(new HttpError(400, `the path ${JSON.stringify(path.slice(0, 200))} is not valid percent-encoding of UTF-8`));
  }
  if (decoded.includes('\0')) return next(new HttpError(400, 'the path must not contain the NUL character (%00)'));
  if (q >= 0 && /%00|\0/i.test(url.slice(q))) return next(new HttpError(400, 'the query string must not contain the NUL character (%00)'));
  next();
}
