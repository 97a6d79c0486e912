// A Destination.Get stream across a restart of the API process it is connected to: the stream ends
// UNAVAILABLE, the client reconnects to the process started in its place (same port, same
// database) and is sent the whole set as it is then, changes made while it was away included.
// Every change is written through another API process, so each one reaches the stream's process
// over the bus (or its poll), never from its own writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { freePort, mintToken, startTestServer, type TestServer } from '../support/server';
import { bearer, destinationClient, Follower } from '../support/linkerd-client';

let first: TestServer;
let writer: TestServer;
let again: TestServer | undefined;
let client: grpc.Client;
let follower: Follower | undefined;
let xdsPort = 0;

async function put(path: string, body: Record<string, unknown>): Promise<void> {
  const r = await writer.api('PUT', path, body);
  if (r.status >= 300) throw new Error(`PUT ${path}: ${r.status} ${r.text}`);
}
const slice = (ips: string[]) => put('/api/v1/namespaces/apps/endpointslices/web-1', {
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4', ports: [{ name: 'http', port: 8080 }], endpoints: ips.map((ip) => ({ addresses: [ip] })),
});

beforeAll(async () => {
  xdsPort = await freePort();
  first = await startTestServer({ xdsPort });
  // the process every change is written through: an API with no worker and no gRPC server
  writer = await startTestServer({}, { sameDatabaseAs: first, worker: false });
  await put('/api/v1/namespaces/apps/services/web', { apiVersion: 'v1', kind: 'Service', spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] } });
  await slice(['10.7.0.1']);
  client = destinationClient(xdsPort);
}, 60_000);

afterAll(async () => {
  follower?.close();
  client?.close();
  await again?.close();
  await writer?.close();
  await first?.close();
});

describe('a Destination.Get stream across an API restart', () => {
  it('reconnects to the restarted process and holds the set as it is then, and takes later changes', async () => {
    const token = await mintToken(writer, { name: 'mesh-client', role: 'proxy', mesh: 'client' });
    follower = new Follower(() => client, { scheme: 'k8s', path: 'web.apps.svc.cluster.local:80', context_token: '{"ns":"client"}' }, () => bearer(token), true);
    await follower.until('10.7.0.1:8080');
    // a change written through another process reaches this one's stream
    await slice(['10.7.0.1', '10.7.0.2']);
    await follower.until('10.7.0.1:8080,10.7.0.2:8080');

    await first.running.close();
    expect(follower.ended.map((e) => e.code)).toContain(grpc.status.UNAVAILABLE);
    // changed while no process serves the stream
    await slice(['10.7.0.3']);
    again = await startTestServer({ xdsPort }, { sameDatabaseAs: first });
    await follower.until('10.7.0.3:8080');
    expect(follower.connects).toBeGreaterThan(1);

    await slice(['10.7.0.3', '10.7.0.4']);
    await follower.until('10.7.0.3:8080,10.7.0.4:8080');
  }, 60_000);
});
