// io.linkerd.proxy.destination.Destination.Get: the endpoints of a Service port, by name or by
// cluster IP, as a stream: the whole set (or no_endpoints) first, then what each change added and
// removed, in the order the log holds the changes. A stream that asked by IP follows the IP: when
// another Service takes it, the stream moves to that Service's endpoints.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Authenticator } from '../../service/principal';
import type { GetDestination__Output } from '../../generated/linkerd/io/linkerd/proxy/destination/GetDestination';
import { BadDestination, parseDestination, type DestinationTarget } from '../../core/linkerd/destination-path';
import { firstUpdates, nextUpdates, setLabels, type EndpointsState, type Update } from '../../core/linkerd/endpoints';
import { CallError, endCall, meshCaller } from './linkerd-caller';
import type { EndpointsHub, FollowedService } from './linkerd-endpoints-hub';

export interface DestinationDeps {
  auth: Authenticator;
  hub: EndpointsHub;
  clusterDomain: string;
  logger: Logger;
}

export type GetCall = grpc.ServerWritableStream<GetDestination__Output, Update>;

/** Reads the target of a request, or throws INVALID_ARGUMENT naming what is wrong. */
export function targetOf(path: string, clusterDomain: string): DestinationTarget {
  try {
    return parseDestination(path, clusterDomain);
  } catch (e) {
    if (e instanceof BadDestination) throw new CallError(grpc.status.INVALID_ARGUMENT, e.message);
    throw e;
  }
}

const NO_SERVICE: EndpointsState = { exists: false, endpoints: [] };

export function serveGet(deps: DestinationDeps, call: GetCall): void {
  let ended = false;
  /** stops following the Service whose endpoints the stream sends, and (by IP) the address */
  let stopService: (() => void) | null = null;
  let stopAddress: (() => void) | null = null;
  const cleanup = () => {
    ended = true;
    stopService?.();
    stopAddress?.();
    stopService = stopAddress = null;
  };
  call.on('cancelled', cleanup);
  call.on('close', cleanup);
  call.on('error', cleanup);

  let sent: EndpointsState | null = null;
  const send = (state: EndpointsState, labels: Record<string, string>) => {
    if (ended) return;
    const updates = sent === null ? firstUpdates(state, labels) : nextUpdates(sent, state, labels);
    sent = state;
    for (const u of updates) call.write(u);
  };
  const followService = async (namespace: string, name: string, port: number) => {
    const labels = setLabels(namespace, name);
    const stop = await deps.hub.follow(namespace, name, (s: FollowedService) => send(s.endpoints(port), labels));
    if (ended) stop();
    else stopService = stop;
  };

  void (async () => {
    const req = call.request;
    await meshCaller(deps.auth, call.metadata, req.context_token ?? '', 'context_token');
    const target = targetOf(req.path ?? '', deps.clusterDomain);
    if (ended) return;
    if (target.by === 'name') return followService(target.namespace, target.service, target.port);
    // by cluster IP: whichever Service holds it now
    let current: string | null | undefined;
    let move: Promise<void> = Promise.resolve();
    const stop = await deps.hub.followAddress(target.ip, (svc) => {
      const key = svc && `${svc.namespace}/${svc.name}`;
      if (key === current) return;
      current = key;
      move = move.then(async () => {
        // the Service the stream followed is let go before the next one's state is sent
        stopService?.();
        stopService = null;
        if (ended) return;
        if (!svc) return send(NO_SERVICE, {});
        await followService(svc.namespace, svc.name, target.port);
      }).catch((err) => fail(err));
    });
    if (ended) stop();
    else stopAddress = stop;
  })().catch((err) => fail(err));

  function fail(err: unknown) {
    if (ended) return;
    if (err instanceof CallError) return endCall(call as never, err.code, err.message);
    deps.logger.warn({ err }, 'Linkerd destination API: serving a Get stream failed');
    endCall(call as never, grpc.status.UNAVAILABLE, 'the destination could not be read; try again');
  }
}
