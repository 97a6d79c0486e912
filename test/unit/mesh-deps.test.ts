// The dependency model's mesh edges: a route naming a Service as parent touches MeshParent/<ns>/<name>,
// and the dispatcher turns a batch's touches into the mesh jobs it can affect (which client
// namespaces' tables, and the route statuses).
import { describe, expect, it } from 'vitest';
import { touchedBy, parseDepKey } from '../../src/core/deps';
import { meshTouched, type BatchEvent } from '../../src/adapters/queue/dispatcher';
import { jobKey, MESH_STATUS_JOB, meshJob, parseJob } from '../../src/adapters/queue/job-keys';

const route = (ns: string, parentRefs: object[]) => ({ metadata: { namespace: ns, name: 'r' }, spec: { parentRefs, rules: [] } });
const ev = (kind: string, namespace: string, name: string, object: any): BatchEvent =>
  ({ position: 1, kind, namespace, name, version: 1, object, touches: touchedBy(kind, null, object) });

describe('mesh dependencies', () => {
  it('a route naming a Service touches that Service as a mesh parent, and nothing mesh when it names a Gateway', () => {
    expect(touchedBy('HTTPRoute', null, route('shop', [{ group: '', kind: 'Service', name: 'echo', namespace: 'prod' }]))).toEqual(['MeshParent/prod/echo']);
    expect(touchedBy('GRPCRoute', null, route('prod', [{ group: '', kind: 'Service', name: 'echo' }]))).toEqual(['MeshParent/prod/echo']);
    expect(touchedBy('HTTPRoute', null, route('prod', [{ name: 'gw' }]))).toEqual(['Gateway/prod/gw']);
    expect(parseDepKey('MeshParent/prod/echo')).toEqual({ kind: 'MeshParent', namespace: 'prod', name: 'echo' });
  });

  it('asks for every table on a producer route, a Service or its endpoints; for its own namespace\'s on a consumer route', () => {
    const producer = meshTouched([ev('HTTPRoute', 'prod', 'r', route('prod', [{ group: '', kind: 'Service', name: 'echo' }]))]);
    expect(producer).toEqual({ all: true, status: true, namespaces: new Set() });
    const consumer = meshTouched([ev('HTTPRoute', 'shop', 'r', route('shop', [{ group: '', kind: 'Service', name: 'echo', namespace: 'prod' }]))]);
    expect(consumer).toEqual({ all: false, status: true, namespaces: new Set(['shop']) });
    expect(meshTouched([ev('Service', 'prod', 'echo', { metadata: { namespace: 'prod', name: 'echo' } })])).toMatchObject({ all: true, status: true });
    expect(meshTouched([ev('EndpointSlice', 'prod', 's', { metadata: { namespace: 'prod', name: 's', labels: { 'kubernetes.io/service-name': 'echo' } } })])).toMatchObject({ all: true, status: false });
    expect(meshTouched([ev('Namespace', '', 'new', { metadata: { name: 'new' } })])).toEqual({ all: false, status: false, namespaces: new Set(['new']) });
    expect(meshTouched([ev('HTTPRoute', 'prod', 'r', route('prod', [{ name: 'gw' }]))])).toEqual({ all: false, status: false, namespaces: new Set() });
  });

  it('names its jobs as keys the queue round-trips', () => {
    expect(parseJob(meshJob('shop'))).toEqual({ kind: 'Mesh', namespace: 'shop' });
    expect(parseJob(MESH_STATUS_JOB)).toEqual({ kind: 'MeshStatus' });
    expect(jobKey({ kind: 'Mesh', namespace: 'shop' })).toBe('Mesh/shop/table');
    expect(() => parseJob('Mesh//table')).toThrow();
  });
});
