// How a gRPC service other than ADS joins the one gRPC server on XDS_PORT (the Linkerd APIs do):
// the server hands it the grpc-js server to add itself to, and a `track` that registers a call so
// that shutdown ends it UNAVAILABLE, as it ends the ADS streams, for its client to reconnect.
import type * as grpc from '@grpc/grpc-js';

/** a streaming call: it ends when an 'error' is emitted with a status */
export type TrackedCall = grpc.ServerWritableStream<unknown, unknown> | grpc.ServerDuplexStream<unknown, unknown>;

export interface GrpcServices {
  register(server: grpc.Server, track: <T extends TrackedCall>(call: T) => T): void;
  /** the server is shutting down: calls that arrive now are to be refused UNAVAILABLE */
  drain?(): void;
  /** stops what the services follow (after their calls have been ended) */
  close?(): void | Promise<void>;
}
