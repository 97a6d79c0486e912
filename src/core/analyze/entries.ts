// The analysis of manifests as they are read (apply's entries, unvalidated): each object
// identified and validated as apply would (its refusals are the errors), then the valid ones
// analyzed (the warnings). `switchyard analyze` runs this on files, with or without the stored objects.
import type { K8sObject } from '../model/objects';
import type { ManifestEntry, Origin } from '../apply/types';
import { identify } from '../apply/identify';
import { validateObject } from '../validate';
import { streamKey } from '../objects/keys';
import { analyzeManifests } from './analyze';
import type { AnalysisWarning } from './types';

export type Finding = AnalysisWarning & Origin;

export interface EntriesAnalysis {
  /** what apply would refuse (code InvalidObject) */
  errors: Finding[];
  warnings: Finding[];
  /** the objects that validated */
  objects: number;
}

export function analyzeEntries(
  entries: ManifestEntry[], opts: { defaultNamespace?: string; stored?: readonly K8sObject[]; controllerName: string },
): EntriesAnalysis {
  const ident = identify(entries, opts.defaultNamespace);
  const errors: Finding[] = ident.issues.map((i) => finding({ document: i.document ?? 0, item: i.item }, i.kind ?? '', i.namespace, i.name ?? '', i.path, i.message));
  const valid: K8sObject[] = [];
  const origins = new Map<string, Origin>();
  for (const e of ident.entries) {
    const metadata = { ...(e.raw.metadata as object), name: e.name, ...(e.namespace ? { namespace: e.namespace } : {}) };
    const { object, errors: problems } = validateObject({ ...e.raw, metadata });
    for (const p of problems) errors.push(finding(e, e.info.kind, e.namespace || undefined, e.name, p.path, p.message));
    if (problems.length) continue;
    valid.push(object as K8sObject);
    origins.set(e.stream, e.item === undefined ? { document: e.document } : { document: e.document, item: e.item });
  }
  const warnings = analyzeManifests({ manifest: valid, stored: opts.stored, controllerName: opts.controllerName })
    .map((w) => ({ ...w, ...origins.get(streamKey(w.kind, w.namespace ?? '', w.name)) }) as Finding);
  return { errors, warnings, objects: valid.length };
}

function finding(o: Origin, kind: string, namespace: string | undefined, name: string, path: string, text: string): Finding {
  const who = `${kind || 'object'} ${namespace ? `${namespace}/` : ''}${name || '(no name)'}`;
  return {
    code: 'InvalidObject', kind, ...(namespace ? { namespace } : {}), name, path,
    message: `${who}${path ? ` ${path}` : ''}: ${text}`,
    document: o.document, ...(o.item !== undefined ? { item: o.item } : {}),
  };
}
