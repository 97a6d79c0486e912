// The service as `npm start` runs it serves xDS on XDS_PORT (the protos found from the sources, or
// from dist/ with SERVICE_FROM_DIST=1), and SIGTERM ends its streams so clients reconnect elsewhere.
import { expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { startProcess } from '../support/process';
import { freePort, client, mintToken } from '../support/server';
import { tempDir } from '../support/temp-dir';
import { adsService } from '../../src/adapters/grpc/ads-service';
import { TYPE_URL } from '../../src/core/xds/types';

const Ads = grpc.makeGenericClientConstructor(adsService(), 'AggregatedDiscoveryService');

it('serves ADS on XDS_PORT and ends its streams UNAVAILABLE on SIGTERM', async () => {
  const xdsPort = await freePort();
  const svc = await startProcess({ SWITCHYARD_DATA_DIR: tempDir('sy-xds-'), ADMIN_TOKEN: 'xds-admin-token-0123456789', XDS_PORT: String(xdsPort) });
  try {
    const ads = new Ads(`127.0.0.1:${xdsPort}`, grpc.credentials.createInsecure());
    const node = { id: 'n', cluster: 'default/gw' };
    // no token: the server is up, and says why it ends the stream
    const anon = (ads as any).StreamAggregatedResources(new grpc.Metadata()) as grpc.ClientDuplexStream<any, any>;
    const refused = new Promise<grpc.ServiceError>((r) => anon.on('error', r));
    anon.write({ node, type_url: TYPE_URL.listener, resource_names: ['a.example.com:80'] });
    expect((await refused).code).toBe(grpc.status.UNAUTHENTICATED);

    const api = client(svc.url, 'xds-admin-token-0123456789');
    const token = await mintToken({ api } as never, { name: 'gw-proxy', role: 'proxy', gateways: ['default/gw'] });
    const md = new grpc.Metadata();
    md.set('authorization', `Bearer ${token}`);
    const call = (ads as any).StreamAggregatedResources(md) as grpc.ClientDuplexStream<any, any>;
    const first = new Promise((r) => call.once('data', r));
    const ended = new Promise<grpc.ServiceError>((r) => call.on('error', r));
    call.write({ node, type_url: TYPE_URL.listener, resource_names: ['a.example.com:80'] });
    // the Gateway does not exist: an empty answer, so the client need not wait to learn it
    expect(((await first) as any).resources).toEqual([]);
    expect(await svc.stop('SIGTERM')).toBe(0);
    const e = await ended;
    expect([e.code, e.details]).toEqual([grpc.status.UNAVAILABLE, 'server shutting down']);
    ads.close();
  } finally {
    await svc.stop('SIGKILL').catch(() => undefined);
  }
}, 180_000);
