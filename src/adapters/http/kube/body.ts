// Bodies on the Kubernetes paths: JSON for create and update, and for PATCH the patch types kubectl
// and client libraries send, told apart by their media type. Read here, after authorization, so a
// forbidden request is a 403 whatever its body.
import type { Request } from 'express';
import { HttpError } from '../problem';
import { NotJsonError, parseJson, readBody } from '../body';
import { parseYamlManifest } from '../../../core/apply/manifest';

export const PATCH_TYPES = [
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;
export type PatchType = (typeof PATCH_TYPES)[number];

export function mediaType(req: Request): string {
  return (req.header('content-type') ?? 'application/json').split(';')[0].trim().toLowerCase();
}

/** `duplicates` receives the paths of keys the body holds twice (see parseJson). */
export async function objectBody(req: Request, limit: number, duplicates?: string[]): Promise<unknown> {
  const type = mediaType(req);
  if (type !== 'application/json' && type !== '*/*') throw new HttpError(415, `the body must be application/json, not ${type}`);
  return parseJson(await readBody(req, limit), duplicates);
}

export async function patchBody(req: Request, limit: number, duplicates?: string[]): Promise<{ type: PatchType; body: unknown }> {
  const type = mediaType(req) as PatchType;
  if (!(PATCH_TYPES as readonly string[]).includes(type)) throw new HttpError(415, `the patch type ${type} is not supported; use one of ${PATCH_TYPES.join(', ')}`);
  const buf = await readBody(req, limit);
  if (type !== 'application/apply-patch+yaml') return { type, body: parseJson(buf, duplicates) };
  // kubectl sends JSON, which is YAML too: read as JSON, so that a key given twice is reported per
  // fieldValidation as for every other body; a YAML document is read with apply's safe parser
  if (/^\s*\{/.test(buf.subarray(0, 64).toString('latin1'))) {
    try {
      return { type, body: parseJson(buf, duplicates) };
    } catch (e) {
      if (!(e instanceof NotJsonError)) throw e; // a YAML flow mapping, say
    }
  }
  const text = buf.toString('utf8');
  const entries = parseYamlManifest(text);
  if (entries.length !== 1) throw new HttpError(400, `an apply patch must hold exactly one object, this one holds ${entries.length}`);
  return { type, body: entries[0].object };
}
