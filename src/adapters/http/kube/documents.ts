// Sending the OpenAPI documents: built once per process (core/kube/openapi.ts), each is answered
// with its hash as ETag, 304 to a client that has it (kubectl's HTTP cache revalidates with
// If-None-Match), gzipped once for the clients that accept it (client-go always does), and kept for
// a year by clients when addressed by its hash, as kube-apiserver answers /openapi/v3/...?hash=.
import { gzipSync } from 'node:zlib';
import type { Request, Response } from 'express';

/** The protobuf form of /openapi/v2 that client-go asks for (gnostic's openapi.v2.Document). */
export const PROTOBUF_V2 = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

export function wantsProtobufV2(accept: string | undefined): boolean {
  return /application\/com\.github\.proto-openapi\.spec\.v2[@.]v1\.0\+protobuf/i.test(accept ?? '');
}

const gzipped = new Map<string, Buffer>();

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const v = t.trim().replace(/^W\//, '');
    return v === etag || v === '*';
  });
}

export function sendDocument(req: Request, res: Response, body: string | Buffer, hash: string, contentType: string, immutable = false): void {
  const etag = `"${hash}"`;
  res.setHeader('ETag', etag);
  res.setHeader('Vary', 'Accept, Accept-Encoding');
  if (immutable) {
    res.setHeader('Cache-Control', 'public, immutable');
    res.setHeader('Expires', new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString());
  } else res.setHeader('Cache-Control', 'no-cache, private');
  if (etagMatches(req.header('if-none-match'), etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', contentType);
  let bytes = typeof body === 'string' ? Buffer.from(body) : body;
  if (/\bgzip\b/.test(req.header('accept-encoding') ?? '')) {
    const key = `${contentType}\0${hash}`;
    let z = gzipped.get(key);
    if (!z) gzipped.set(key, (z = gzipSync(bytes)));
    bytes = z;
    res.setHeader('Content-Encoding', 'gzip');
  }
  res.setHeader('Content-Length', bytes.length);
  res.end(bytes);
}
