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

export interface LinkerdOptions {
  auth: Authenticator;
  db: Database;
  bus: Bus;
  clusterDomain: string;
  logger: Logger;
}

export function linkerdServices(opts: LinkerdOptions): GrpcServices {
  const hub = new EndpointsHub(opts.db, opts.bus, opts.logger);
  const deps = { auth: opts.auth, hub, clusterDomain: opts.clusterDomain, logger: opts.logger };
  const unimplemented = (call: grpc.ServerWritableStream<unknown, unknown>) =>
    endCall(call, grpc.status.UNIMPLEMENTED, 'not served yet by this control plane: profiles and outbound policies come from the mesh routes');
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
        GetProfile: (call: grpc.ServerWritableStream<unknown, unknown>) => unimplemented(track(call)),
      });
      server.addService(serviceDefinition(OUTBOUND_SERVICE), {
        Get: (_call: grpc.ServerUnaryCall<unknown, unknown>, done: grpc.sendUnaryData<unknown>) => done({ code: grpc.status.UNIMPLEMENTED, details: 'not served yet by this control plane' }),
        Watch: (call: grpc.ServerWritableStream<unknown, unknown>) => unimplemented(track(call)),
      });
    },
    close: () => hub.close(),
  };
}
