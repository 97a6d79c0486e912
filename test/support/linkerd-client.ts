// A Linkerd destination client for tests, generated at load time from our protos (proto/linkerd)
// by @grpc/proto-loader, as any third-party client would be: it knows nothing of the server's code.
// `follow` keeps the endpoint set a proxy would hold from a Get stream, and can reconnect.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PROTOS = join(fileURLToPath(new URL('../..', import.meta.url)), 'proto/linkerd');

type Ctor = new (address: string, creds: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => grpc.Client;

let pkg: grpc.GrpcObject | undefined;
function loaded(): grpc.GrpcObject {
  return (pkg ??= grpc.loadPackageDefinition(protoLoader.loadSync(['destination.proto', 'outbound.proto'], {
    includeDirs: [PROTOS], keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
  })));
}

function ctor(path: string): Ctor {
  let o: any = loaded();
  for (const p of path.split('.')) o = o[p];
  return o as Ctor;
}

export function destinationClient(port: number): grpc.Client {
  return new (ctor('io.linkerd.proxy.destination.Destination'))(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
}

export function outboundClient(port: number): grpc.Client {
  return new (ctor('io.linkerd.proxy.outbound.OutboundPolicies'))(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
}

export function bearer(token: string | null): grpc.Metadata {
  const md = new grpc.Metadata();
  if (token) md.set('authorization', `Bearer ${token}`);
  return md;
}

export interface IPAddress { ipv4?: number; ipv6?: { first: string; last: string }; ip?: string }
export interface TcpAddress { ip: IPAddress; port: number }
export interface Update {
  update: 'add' | 'remove' | 'no_endpoints';
  add?: { addrs: { addr: TcpAddress; weight: number; metric_labels: Record<string, string>; resource_ref?: unknown }[]; metric_labels: Record<string, string> };
  remove?: { addrs: TcpAddress[] };
  no_endpoints?: { exists: boolean };
}

export function addrText(a: TcpAddress): string {
  const v4 = a.ip.ipv4;
  if (typeof v4 === 'number') return `${[24, 16, 8, 0].map((s) => (v4 >>> s) & 255).join('.')}:${a.port}`;
  const half = (v: string) => [48n, 32n, 16n, 0n].map((s) => ((BigInt(v) >> s) & 0xffffn).toString(16));
  return `[${[...half(a.ip.ipv6!.first), ...half(a.ip.ipv6!.last)].join(':')}]:${a.port}`;
}

/** The first status a call ends with (for calls expected to fail). */
export function getStatus(client: grpc.Client, req: Record<string, unknown>, md: grpc.Metadata, method = 'Get'): Promise<{ code: grpc.status; details: string; first?: Update }> {
  return new Promise((resolve) => {
    const call = (client as any)[method](req, md) as grpc.ClientReadableStream<Update>;
    let first: Update | undefined;
    call.on('data', (u: Update) => {
      first ??= u;
      call.cancel();
    });
    call.on('error', (e: grpc.ServiceError) => resolve({ code: e.code, details: e.details, first }));
    call.on('end', () => resolve({ code: grpc.status.OK, details: '', first }));
  });
}

const REFUSALS = new Set([grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED, grpc.status.INVALID_ARGUMENT, grpc.status.UNIMPLEMENTED]);

/** A proxy's view of one destination: the endpoints it holds and every message it was sent. */
export class Follower {
  readonly endpoints = new Set<string>();
  exists: boolean | undefined;
  readonly messages: Update[] = [];
  /** the set after each message, as text ("" for none) */
  readonly states: string[] = [];
  /** statuses of the streams that ended (each reconnect follows one) */
  readonly ended: { code: grpc.status; details: string }[] = [];
  connects = 0;
  private call: grpc.ClientReadableStream<Update> | null = null;
  private stopped = false;
  private waiters: (() => void)[] = [];

  constructor(private readonly client: () => grpc.Client, private readonly req: Record<string, unknown>, private readonly md: () => grpc.Metadata, private readonly reconnect = false) {
    this.open();
  }

  private open(): void {
    this.connects++;
    // a new stream starts from nothing: its first message is the whole set
    let fresh = true;
    const call = (this.call = (this.client() as any).Get(this.req, this.md()) as grpc.ClientReadableStream<Update>);
    call.on('data', (u: Update) => {
      if (fresh) {
        this.endpoints.clear();
        fresh = false;
      }
      this.messages.push(u);
      if (u.update === 'add') for (const a of u.add!.addrs) this.endpoints.add(addrText(a.addr));
      if (u.update === 'remove') for (const a of u.remove!.addrs) this.endpoints.delete(addrText(a));
      if (u.update === 'no_endpoints') this.exists = u.no_endpoints!.exists;
      else this.exists = true;
      this.states.push(this.state());
      for (const w of this.waiters.splice(0)) w();
    });
    call.on('error', (e: grpc.ServiceError) => {
      this.ended.push({ code: e.code, details: e.details });
      for (const w of this.waiters.splice(0)) w();
      // as a proxy does: any end but a refusal of the request itself is followed by a new stream
      if (this.reconnect && !this.stopped && !REFUSALS.has(e.code)) setTimeout(() => !this.stopped && this.open(), 100);
    });
  }

  state(): string {
    return [...this.endpoints].sort().join(',');
  }

  /** Waits until the held set is `want` (sorted, comma-joined). */
  async until(want: string, ms = 15_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.state() !== want || this.messages.length === 0) {
      if (Date.now() > deadline) throw new Error(`the stream holds "${this.state()}", not "${want}", after ${ms} ms; messages: ${JSON.stringify(this.messages.slice(-10))}; ended: ${JSON.stringify(this.ended)}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  /** Waits until at least `n` messages came. */
  async count(n: number, ms = 15_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.messages.length < n) {
      if (Date.now() > deadline) throw new Error(`${this.messages.length} messages, not ${n}, after ${ms} ms: ${JSON.stringify(this.messages)}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }

  close(): void {
    this.stopped = true;
    this.call?.cancel();
  }
}
