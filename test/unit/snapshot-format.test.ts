// The snapshot layout: what the text assembly writes is what JSON.stringify of the Snapshot would.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  mayReferenceSecrets, parseSnapshot, secretDigests, secretRefsOf, snapshotBody, snapshotHash, snapshotHead, snapshotTail, withSecretData,
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

  it('hashes the table and the digests of the Secrets it uses, in namespace/name order', () => {
    const digests = secretDigests([
      { metadata: { namespace: 'infra', name: 'z' }, data: { b: '2', a: '1' } },
      { metadata: { namespace: 'certs', name: 'shared' }, data: {} },
    ]);
    expect(digests.map((d) => `${d.namespace}/${d.name}`)).toEqual(['certs/shared', 'infra/z']);
    expect(digests[1].digest).toBe(createHash('sha256').update(canonicalJson({ a: '1', b: '2' })).digest('hex'));
    const expected = createHash('sha256').update(`{"table":${tableText},"secrets":${canonicalJson(digests)}}`).digest('hex');
    expect(snapshotHash(tableText, digests)).toBe(expected);
    // a rotated Secret moves the hash
    const rotated = secretDigests([{ metadata: { namespace: 'infra', name: 'z' }, data: { a: '3' } }, { metadata: { namespace: 'certs', name: 'shared' }, data: {} }]);
    expect(snapshotHash(tableText, rotated)).not.toBe(expected);
  });

  it('names each Secret the listeners reference once, in the Gateway namespace unless given', () => {
    const body = snapshotBody('infra', 'edge', 1, snapshotTail('h', tableText));
    expect(mayReferenceSecrets(body)).toBe(true);
    expect(secretRefsOf(parseSnapshot(body).table, 'infra')).toEqual([{ namespace: 'infra', name: 'cert' }, { namespace: 'certs', name: 'shared' }]);
    expect(mayReferenceSecrets(snapshotBody('infra', 'edge', 1, snapshotTail('h', '{"listeners":[],"rules":[]}')))).toBe(false);
  });
});
