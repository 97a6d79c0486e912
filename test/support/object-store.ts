// Objects in memory with the API's write rules, for tests that need a store but no database:
// keyed by kind/namespace/name, stored defaulted (src/core/validate's applyDefaults), generation 1
// on create and +1 when the spec changes, creationTimestamp set on create in the order of writes.
// A status given with an object is kept with it (tests use it to set up a previous state).
import { worldOf } from '../../src/core/model/world';
import type { K8sObject } from '../../src/core/model/objects';
import type { World } from '../../src/core/model/world';
import { canonicalJson } from '../../src/core/objects/canonical';
import { applyDefaults } from '../../src/core/validate';
import { conformanceEndpointSlice } from './conformance';

export const CONTROLLER = 'switchyard.dev/gateway-controller';

type Defaulter = (obj: any) => any;

/** Objects are stored defaulted, as the API stores them. */
export const defaults: Defaulter = (o) => applyDefaults(o);

const CLUSTER_KINDS = new Set(['GatewayClass', 'Namespace']);

export function objectKey(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${CLUSTER_KINDS.has(kind) ? '' : namespace ?? ''}/${name}`;
}

function contentOf(o: K8sObject): unknown {
  const { apiVersion: _a, kind: _k, metadata: _m, status: _s, ...rest } = o;
  return rest;
}

export class Store {
  readonly objects = new Map<string, K8sObject>();
  private tick = 0;
  constructor(private readonly epoch = Date.parse('2026-01-01T00:00:00.000Z'), private readonly defaulter: Defaulter = defaults) {}

  /** creationTimestamps follow the order of writes, one second apart */
  nextTimestamp(): string {
    return new Date(this.epoch + 1000 * this.tick++).toISOString();
  }

  apply(input: K8sObject): K8sObject {
    const obj = this.defaulter(structuredClone(input)) as K8sObject;
    obj.metadata = { ...obj.metadata };
    if (CLUSTER_KINDS.has(obj.kind)) delete obj.metadata.namespace;
    if (obj.kind === 'Namespace')
      obj.metadata.labels = { ...(obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': obj.metadata.name };
    const k = objectKey(obj.kind, obj.metadata.namespace, obj.metadata.name);
    const cur = this.objects.get(k);
    if (cur) {
      const changed = canonicalJson(contentOf(cur)) !== canonicalJson(contentOf(obj));
      obj.metadata.generation = input.metadata.generation ?? (cur.metadata.generation ?? 1) + (changed ? 1 : 0);
      obj.metadata.creationTimestamp = cur.metadata.creationTimestamp;
      if (input.status === undefined && cur.status !== undefined) obj.status = cur.status;
    } else {
      obj.metadata.generation = input.metadata.generation ?? 1;
      obj.metadata.creationTimestamp = input.metadata.creationTimestamp ?? this.nextTimestamp();
    }
    this.objects.set(k, obj);
    return obj;
  }

  delete(ref: { kind: string; namespace?: string; name: string }): K8sObject | undefined {
    const k = objectKey(ref.kind, ref.namespace, ref.name);
    const cur = this.objects.get(k);
    this.objects.delete(k);
    return cur;
  }

  get(kind: string, namespace: string | undefined, name: string): K8sObject | undefined {
    return this.objects.get(objectKey(kind, namespace, name));
  }

  list(kind?: string): K8sObject[] {
    return [...this.objects.values()].filter((o) => kind === undefined || o.kind === kind);
  }

  /** The World of the stored objects; a Service annotated conformance/endpoints=N gets a slice of N ready endpoints. */
  world(): World {
    const all = this.list();
    return worldOf([...all, ...all.filter((o) => o.kind === 'Service').flatMap(syntheticSlices)]);
  }
}

function syntheticSlices(svc: K8sObject): any[] {
  const slice = conformanceEndpointSlice(svc);
  return slice ? [slice] : [];
}
