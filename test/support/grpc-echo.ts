// Tiny gRPC backends for the xDS tests: each answers any of a few methods with its own name, so a
// test sees which backend a call reached. Messages are JSON: no protos needed on either side.
import * as grpc from '@grpc/grpc-js';

export const ECHO_METHODS = ['/echo.Echo/Ping', '/echo.Echo/Other', '/other.Svc/Call'];

const json = {
  serialize: (v: unknown) => Buffer.from(JSON.stringify(v ?? {})),
  deserialize: (b: Buffer) => (b.length ? JSON.parse(b.toString()) : {}),
};

export interface EchoBackend { name: string; port: number; close(): Promise<void> }

export async function startEcho(name: string, host = '127.0.0.1'): Promise<EchoBackend> {
  const server = new grpc.Server();
  const definition: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  const handlers: grpc.UntypedServiceImplementation = {};
  for (const path of ECHO_METHODS) {
    const key = path.replace(/\W/g, '_');
    definition[key] = { path, requestStream: false, responseStream: false, requestSerialize: json.serialize, requestDeserialize: json.deserialize, responseSerialize: json.serialize, responseDeserialize: json.deserialize };
    handlers[key] = (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => cb(null, { backend: name, path, headers: call.metadata.getMap() });
  }
  server.addService(definition as grpc.ServiceDefinition, handlers);
  const port = await new Promise<number>((resolve, reject) => server.bindAsync(`${host}:0`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  return { name, port, close: async () => server.forceShutdown() };
}

export interface CallResult { backend?: string; code: grpc.status; details?: string }

/** One unary call on `client` to `path`, as a result (never throws). */
export function callOnce(client: grpc.Client, path: string, metadata = new grpc.Metadata(), timeoutMs = 5000): Promise<CallResult> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(path, json.serialize, json.deserialize, {}, metadata, { deadline: Date.now() + timeoutMs }, (err, res: any) => {
      if (err) resolve({ code: err.code, details: err.details });
      else resolve({ code: grpc.status.OK, backend: res.backend });
    });
  });
}
