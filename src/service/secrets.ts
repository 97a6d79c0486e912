// Secret data never enters the log: the event and the projection carry a digest instead.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/objects/canonical';
import type { K8sObject } from '../core/model/objects';

export function isSecret(obj: { kind?: string }): boolean {
  return obj.kind === 'Secret';
}

/** stringData is write-only: it is folded into data (base64) as Kubernetes does. */
export function foldStringData(obj: K8sObject): K8sObject {
  if (!obj.stringData) return obj;
  const data: Record<string, string> = { ...(obj.data ?? {}) };
  for (const [k, v] of Object.entries(obj.stringData as Record<string, string>)) {
    Object.defineProperty(data, k, { value: Buffer.from(String(v), 'utf8').toString('base64'), enumerable: true, writable: true, configurable: true });
  }
  const { stringData: _s, ...rest } = obj;
  return { ...rest, data };
}

export function dataDigest(data: Record<string, string>): string {
  return 'sha256:' + createHash('sha256').update(canonicalJson(data)).digest('hex');
}

/** Split a Secret into what the log keeps (digest) and the data kept apart. */
export function splitSecret(obj: K8sObject): { object: K8sObject; data: Record<string, string> } {
  const { data, ...rest } = obj;
  const d = (data ?? {}) as Record<string, string>;
  return { object: { ...rest, dataDigest: dataDigest(d) }, data: d };
}

/** What a client sees: the digest removed, data added back only for those allowed to read it. */
export function presentSecret(obj: K8sObject, data: Record<string, string> | null | undefined): K8sObject {
  const { dataDigest: _d, ...rest } = obj;
  return data ? { ...rest, data } : rest;
}
