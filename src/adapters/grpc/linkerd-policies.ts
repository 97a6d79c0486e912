// Destination.GetProfile and OutboundPolicies.Get/Watch: translations of the mesh table of the
// client's namespace (src/core/linkerd/profile.ts, outbound-policy.ts), sent again whenever a new
// version of that table changes what they say. The tables come from the MeshHub that serves the
// mesh snapshots, so every API process serves them whichever worker computed them.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Authenticator } from '../../service/principal';
import type { MeshHub, MeshSnapshot } from '../delivery/mesh-snapshots';
import type { DestinationTarget } from '../../core/linkerd/destination-path';
import { destinationProfile } from '../../core/linkerd/profile';
import { outboundPolicy } from '../../core/linkerd/outbound-policy';
import { authorityOf } from '../../core/linkerd/destination-path';
import { ipText } from '../../core/linkerd/ip';
import { CallError, endCall, meshCaller } from './linkerd-caller';
import { targetOf } from './linkerd-destination';

export interface PolicyDeps {
  auth: Authenticator;
  mesh: MeshHub;
  clusterDomain: string;
  logger: Logger;
}

type Msg = Record<string, unknown>;
type Stream = grpc.ServerWritableStream<Msg, Msg>;

interface TrafficSpec { source_workload?: string; addr?: { ip?: { ipv4?: number | null; ipv6?: { first: string; last: string } | null } | null; port?: number } | null; authority?: string; target?: string }

/** The target of a TrafficSpec: an authority as Destination paths are written, or an address. */
function specTarget(spec: TrafficSpec, clusterDomain: string): DestinationTarget {
  if (spec.target === 'addr' || (spec.addr && !spec.authority)) {
    const ip = spec.addr?.ip ? ipText(spec.addr.ip) : '';
    if (!ip || !spec.addr?.port) throw new CallError(grpc.status.INVALID_ARGUMENT, 'target addr: want an IP address and a port');
    return { by: 'address', ip, port: spec.addr.port };
  }
  return targetOf(spec.authority ?? '', clusterDomain);
}

const clientNamespace = (ns: string | undefined) => {
  // an admin's request that names no client: the table of which namespace is unknown
  if (ns === undefined) throw new CallError(grpc.status.INVALID_ARGUMENT, 'name the client\'s namespace ({"ns": "..."}): routes depend on it');
  return ns;
};

/**
 * Sends `make(table)` now and whenever a new table version changes it. `none` is what to do when
 * the target is no Service port of the mesh (undefined from `make`).
 */
function follow(deps: PolicyDeps, call: Stream, namespace: string, make: (snap: MeshSnapshot | undefined) => Msg | undefined, none: () => void): void {
  let ended = false;
  let last = '';
  let stop: (() => void) | undefined;
  const cleanup = () => {
    ended = true;
    stop?.();
  };
  call.on('cancelled', cleanup);
  call.on('close', cleanup);
  call.on('error', cleanup);
  const send = (snap: MeshSnapshot | undefined) => {
    if (ended) return;
    const msg = make(snap);
    if (!msg) return none();
    const text = JSON.stringify(msg);
    if (text === last) return;
    last = text;
    call.write(msg);
  };
  stop = deps.mesh.watch(namespace, send);
  deps.mesh.get(namespace).then(send, (err) => {
    deps.logger.warn({ err }, 'Linkerd APIs: reading a mesh table failed');
    if (!ended) endCall(call as never, grpc.status.UNAVAILABLE, 'the mesh table could not be read; try again');
  });
}

function fail(deps: PolicyDeps, call: Stream, err: unknown): void {
  if (err instanceof CallError) return endCall(call as never, err.code, err.message);
  deps.logger.warn({ err }, 'Linkerd APIs: serving a call failed');
  endCall(call as never, grpc.status.UNAVAILABLE, 'the call could not be served; try again');
}

export function serveGetProfile(deps: PolicyDeps, call: Stream): void {
  void (async () => {
    const req = call.request as { path?: string; context_token?: string };
    const who = await meshCaller(deps.auth, call.metadata, req.context_token ?? '', 'context_token');
    const target = targetOf(req.path ?? '', deps.clusterDomain);
    const ns = clientNamespace(who.namespace);
    follow(deps, call, ns, (snap) => destinationProfile(snap?.table(), target, { clusterDomain: deps.clusterDomain }), () => undefined);
  })().catch((err) => fail(deps, call, err));
}

const notFound = (target: DestinationTarget, clusterDomain: string) => `no Service port of the mesh at ${target.by === 'name' ? authorityOf(target.namespace, target.service, target.port, clusterDomain) : `${target.ip}:${target.port}`}`;

export function serveWatchPolicy(deps: PolicyDeps, call: Stream): void {
  void (async () => {
    const spec = call.request as TrafficSpec;
    const who = await meshCaller(deps.auth, call.metadata, spec.source_workload ?? '', 'source_workload');
    const target = specTarget(spec, deps.clusterDomain);
    const ns = clientNamespace(who.namespace);
    follow(deps, call, ns, (snap) => outboundPolicy(snap?.table(), target, { clusterDomain: deps.clusterDomain }),
      () => endCall(call as never, grpc.status.NOT_FOUND, notFound(target, deps.clusterDomain)));
  })().catch((err) => fail(deps, call, err));
}

export function serveGetPolicy(deps: PolicyDeps, call: grpc.ServerUnaryCall<Msg, Msg>, done: grpc.sendUnaryData<Msg>): void {
  void (async () => {
    const spec = call.request as TrafficSpec;
    const who = await meshCaller(deps.auth, call.metadata, spec.source_workload ?? '', 'source_workload');
    const target = specTarget(spec, deps.clusterDomain);
    const ns = clientNamespace(who.namespace);
    const snap = await deps.mesh.get(ns);
    const policy = outboundPolicy(snap?.table(), target, { clusterDomain: deps.clusterDomain });
    if (!policy) return done({ code: grpc.status.NOT_FOUND, details: notFound(target, deps.clusterDomain) });
    done(null, policy);
  })().catch((err) => {
    if (err instanceof CallError) return done({ code: err.code, details: err.message });
    deps.logger.warn({ err }, 'Linkerd APIs: serving a call failed');
    done({ code: grpc.status.UNAVAILABLE, details: 'the call could not be served; try again' });
  });
}
