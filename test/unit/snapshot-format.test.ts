// The snapshot layout: what the text assembly writes is what JSON.stringify of the Snapshot would.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  mayReferenceSecrets, parseSnapshot, secretDigests, secretRefsOf, snapshotBody, snapshotHead, snapshotTail, withSecretData,
} from '../../src/core/snapshot/format';
import { canonicalJson } from '../../src/core/objects/canonical';

const table = {
  gateway: { namespace: 'infra', name: 'edge' },
  listeners: [
    { name: 'https', port: 443, protocol: 'HTTPS', tls: { mode: 'Terminate', certificateRefs: [{ name: 'cert' }, { namespace: 'certs', name: 'shared' }, { name: 'cert' }] } },
  ],
  rules: [],
};
const tableText = JSON.stringify(table);

describe('snapshot format', () => {
  it('writes the body JSON.stringify({gateway, version, hash, table}) writes, head and tail apart', () => {
    const body = snapshotBody('infra', 'edge', 7, snapshotTail('abc', tableText));
    expect(body).toBe(JSON.stringify({ gateway: { namespace: 'infra', name: 'edge' }, version: 7, hash: 'abc', table }));
    expect(body.startsWith(snapshotHead('infra', 'edge'))).toBe(true);
    expect(parseSnapshot(body)).toEqual({ gateway: { namespace: 'infra', name: 'edge' }, version: 7, hash: 'abc', table });
  });

  it('adds the Secret data as the last member, as a Snapshot with secrets serializes', () => {
    const body = snapshotBody('infra', 'edge', 2, snapshotTail('h', tableText));
    const secrets = [{ namespace: 'infra', name: 'cert', type: 'kubernetes.io/tls', data: { 'tls.crt': 'Y3J0', 'tls.key': 'a2V5' } }];
    expect(withSecretData(body, secrets)).toBe(JSON.stringify({ ...JSON.parse(body), secrets }));
    expect(withSecretData(body, [])).toBe(JSON.stringify({ ...JSON.parse(body), secrets: [] }));
    expect(() => withSecretData('{"a":1', [])).toThrow(/not a snapshot body/);
  });

  it('gives the digests of the Secrets a table uses in namespace/name order, over their canonical data', () => {
    const digests = secretDigests([
      { metadata: { namespace: 'infra', name: 'z' }, data: { b: '2', a: '1' } },
      { metadata: { namespace: 'certs', name: 'shared' }, data: {} },
    ]);
    expect(digests.map((d) => `${d.namespace}/${d.name}`)).toEqual(['certs/shared', 'infra/z']);
    expect(digests[1].digest).toBe(createHash('sha256').update(canonicalJson({ a: '1', b: '2' })).digest('hex'));
  });

  it('names each Secret the listeners reference once, in the Gateway namespace unless given', () => {
    const body = snapshotBody('infra', 'edge', 1, snapshotTail('h', tableText));
    expect(mayReferenceSecrets(body)).toBe(true);
    expect(secretRefsOf(parseSnapshot(body).table, 'infra')).toEqual([{ namespace: 'infra', name: 'cert' }, { namespace: 'certs', name: 'shared' }]);
    expect(mayReferenceSecrets(snapshotBody('infra', 'edge', 1, snapshotTail('h', '{"listeners":[],"rules":[]}')))).toBe(false);
  });

  it('names the backend client certificate and the CA Secrets of backend TLS, wherever a backend is', () => {
    const tls = (name: string) => ({ policy: { group: 'gateway.networking.k8s.io', kind: 'BackendTLSPolicy', namespace: 'apps', name: 'p' }, sni: 's',
      subjectAltNames: [], caCertificateSecrets: [{ group: '', kind: 'Secret', namespace: 'apps', name }] });
    const b = (name: string) => ({ group: '', kind: 'Service', namespace: 'apps', name: 'svc', weight: 1, valid: true, endpoints: [], tls: tls(name) });
    const table = { listeners: [], backendClientCertificate: { group: '', kind: 'Secret', namespace: 'infra', name: 'client' }, rules: [
      { route: 0, index: 0, backends: [{ ...b('ca-rule'), filters: [{ type: 'RequestMirror', requestMirror: { backend: b('ca-backend-mirror'), percent: 100 } }] }],
        filters: [{ type: 'RequestMirror', requestMirror: { backend: b('ca-mirror'), percent: 10 } }] },
    ] };
    for (const only of ['{"backendClientCertificate":{"name":"c"}}', '{"rules":[{"backends":[{"tls":{"caCertificateSecrets":[]}}]}]}'])
      expect(mayReferenceSecrets(snapshotBody('infra', 'edge', 1, snapshotTail('h', only))), only).toBe(true);
    expect(secretRefsOf(table as never, 'infra').map((r) => `${r.namespace}/${r.name}`))
      .toEqual(['infra/client', 'apps/ca-rule', 'apps/ca-mirror', 'apps/ca-backend-mirror']);
  });
});
