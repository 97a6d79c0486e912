// Linkerd's destination and outbound-policy APIs on the gRPC server of XDS_PORT: what a mesh proxy
// of a client namespace asks about the Services it sends to.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Authenticator } from '../../service/principal';
import type { Database } from '../store/database';
import type { Bus } from '../delivery/bus';
import type { GrpcServices } from './services';
import { DESTINATION_SERVICE, OUTBOUND_SERVICE, serviceDefinition } from './linkerd-protos';
import { EndpointsHub } from './linkerd-endpoints-hub';
import { serveGet, type GetCall } from './linkerd-destination';
import { endCall } from './linkerd-caller';
import type { MeshHub } from '../delivery/mesh-snapshots';
import { serveGetPolicy, serveGetProfile, serveWatchPolicy } from './linkerd-policies';

export interface LinkerdOptions {
  auth: Authenticator;
  db: Database;
  bus: Bus;
  clusterDomain: string;
  logger: Logger;
  /** the mesh tables, per client namespace, that profiles and policies are made of */
  mesh: MeshHub;
}

type Msg = Record<string, unknown>;
type Stream = grpc.ServerWritableStream<Msg, Msg>;

export function linkerdServices(opts: LinkerdOptions): GrpcServices {
  const hub = new EndpointsHub(opts.db, opts.bus, opts.logger);
  const deps = { auth: opts.auth, hub, clusterDomain: opts.clusterDomain, logger: opts.logger, mesh: opts.mesh };
  let draining = false;
  // a call that arrives while the server shuts down goes elsewhere at once, rather than being
  // served a moment and then cut off
  const refused = (call: grpc.ServerWritableStream<unknown, unknown>) => {
    if (draining) endCall(call, grpc.status.UNAVAILABLE, 'server shutting down');
    return draining;
  };
  return {
    drain: () => {
      draining = true;
    },
    register(server, track) {
      server.addService(serviceDefinition(DESTINATION_SERVICE), {
        Get: (call: GetCall) => refused(call as never) || serveGet(deps, track(call as never) as GetCall),
        GetProfile: (call: Stream) => refused(call as never) || serveGetProfile(deps, track(call as never) as Stream),
      });
      server.addService(serviceDefinition(OUTBOUND_SERVICE), {
        Get: (call: grpc.ServerUnaryCall<Msg, Msg>, done: grpc.sendUnaryData<Msg>) => serveGetPolicy(deps, call, done),
        Watch: (call: Stream) => refused(call as never) || serveWatchPolicy(deps, track(call as never) as Stream),
      });
    },
    close: () => hub.close(),
  };
}
