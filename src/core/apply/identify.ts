// Which object each entry names: kind, namespace (from the object or the namespace query parameter)
// and name, and the problems that keep an entry from naming one. The same object twice is refused.
import { KINDS, kindInfo } from '../model/kinds';
import { streamKey } from '../objects/keys';
import { unstorableStrings } from '../validate/storable';
import type { ApplyIssue, IdentifiedEntry, ManifestEntry, Origin } from './types';

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface Identification {
  entries: IdentifiedEntry[];
  /** entries that name no storable object (their identity, as far as it is known, is in the issue) */
  unidentified: (Origin & { kind?: string; namespace?: string; name?: string })[];
  issues: ApplyIssue[];
}

function origin(e: Origin): Origin {
  return e.item === undefined ? { document: e.document } : { document: e.document, item: e.item };
}

export function identify(manifest: ManifestEntry[], defaultNamespace: string | undefined): Identification {
  const entries: IdentifiedEntry[] = [];
  const unidentified: Identification['unidentified'] = [];
  const issues: ApplyIssue[] = [];
  const seen = new Map<string, Origin>();

  for (const e of manifest) {
    const o = origin(e);
    const fail = (path: string, message: string, who: { kind?: string; namespace?: string; name?: string } = {}) => {
      issues.push({ ...o, ...who, path, message });
      unidentified.push({ ...o, ...who });
    };
    if (!isMap(e.object)) {
      fail('', `must be an object (a manifest with apiVersion, kind and metadata), not ${Array.isArray(e.object) ? 'an array' : typeof e.object}`);
      continue;
    }
    const raw = e.object;
    // before the object's name reaches a query
    const unstorable = unstorableStrings(raw);
    if (unstorable.length) {
      const m = isMap(raw.metadata) ? raw.metadata : {};
      const who = { kind: typeof raw.kind === 'string' ? raw.kind : undefined, name: typeof m.name === 'string' ? m.name : undefined };
      for (const u of unstorable) issues.push({ ...o, ...who, ...u });
      unidentified.push({ ...o, ...who });
      continue;
    }
    const kind = typeof raw.kind === 'string' ? raw.kind : undefined;
    const metadata = isMap(raw.metadata) ? raw.metadata : undefined;
    const name = typeof metadata?.name === 'string' ? metadata.name : undefined;
    const rawNs = metadata?.namespace;
    const who = { kind, name, namespace: typeof rawNs === 'string' && rawNs ? rawNs : undefined };
    if (!kind) {
      fail('kind', raw.kind === undefined ? 'Required value' : 'must be a string', who);
      continue;
    }
    const info = kindInfo(kind);
    if (!info) {
      fail('kind', `unknown kind "${kind}"${typeof raw.apiVersion === 'string' ? ` (apiVersion ${raw.apiVersion})` : ''}: Switchyard stores ${KINDS.map((k) => k.kind).join(', ')}`, who);
      continue;
    }
    if (typeof raw.apiVersion !== 'string' || raw.apiVersion === '') {
      fail('apiVersion', raw.apiVersion === undefined ? 'Required value' : 'must be a string', who);
      continue;
    }
    if (!Object.hasOwn(info.versions, raw.apiVersion)) {
      fail('apiVersion', `Unsupported value: "${raw.apiVersion}": ${kind} is served as ${Object.keys(info.versions).join(', ')}`, who);
      continue;
    }
    if (raw.metadata !== undefined && !metadata) {
      fail('metadata', 'must be an object', who);
      continue;
    }
    if (name === undefined || name === '') {
      fail('metadata.name', metadata?.name === undefined || metadata.name === '' ? 'Required value' : 'must be a string', who);
      continue;
    }
    let namespace = '';
    if (info.scope === 'Namespaced') {
      if (rawNs !== undefined && rawNs !== null && rawNs !== '' && typeof rawNs !== 'string') {
        fail('metadata.namespace', 'must be a string', who);
        continue;
      }
      namespace = (typeof rawNs === 'string' && rawNs) || defaultNamespace || '';
      if (!namespace) {
        fail('metadata.namespace', `Required value: ${kind} is namespaced; set metadata.namespace or pass ?namespace=`, who);
        continue;
      }
    } else if (rawNs !== undefined && rawNs !== null && rawNs !== '') {
      fail('metadata.namespace', `must not be set: ${kind} is cluster-scoped`, who);
      continue;
    }
    const stream = streamKey(info.kind, namespace, name);
    const first = seen.get(stream);
    const ident = { kind, namespace: namespace || undefined, name };
    if (first) {
      issues.push({ ...o, ...ident, path: 'metadata.name', message: `Duplicate value: the same object as document ${first.document}${first.item !== undefined ? `, item ${first.item}` : ''}; each object may appear once in an apply` });
      unidentified.push({ ...o, ...ident });
      continue;
    }
    seen.set(stream, o);
    entries.push({ ...o, raw, info, namespace, name, stream });
  }
  return { entries, unidentified, issues };
}
