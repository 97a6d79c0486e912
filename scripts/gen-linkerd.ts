// The TypeScript types of Linkerd's destination and outbound-policy messages (src/generated/linkerd/),
// made by proto-loader's generator from our own protos in proto/linkerd, the way gen-xds.ts makes
// the xDS ones, and the JSON descriptor the server loads them from.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { files, syncGenerated } from './generated-dir';
import protobuf from 'protobufjs';

const require = createRequire(import.meta.url);

export const LINKERD_GENERATED = 'src/generated/linkerd';
export const LINKERD_PROTOS = 'proto/linkerd';

function generate(root: string): string {
  const bin = join(dirname(require.resolve('@grpc/proto-loader/package.json')), 'build/bin/proto-loader-gen-types.js');
  const out = mkdtempSync(join(tmpdir(), 'sy-linkerd-gen-'));
  const protos = join(root, LINKERD_PROTOS);
  execFileSync(process.execPath, [bin, '--keepCase', '--longs=String', '--enums=String', '--defaults', '--oneofs', '--grpcLib=@grpc/grpc-js',
    `--outDir=${out}`, '--includeDirs', protos, '--', 'destination.proto', 'outbound.proto'], { stdio: ['ignore', 'ignore', 'pipe'] });
  // the generator names each proto by absolute path: named from the repository instead
  for (const f of files(out)) {
    const text = readFileSync(join(out, f), 'utf8');
    writeFileSync(join(out, f), text.split(protos + '/').join(LINKERD_PROTOS + '/'));
  }
  // the messages and services as JSON, which the server loads (bundled into dist/ like any import,
  // so no .proto file has to travel beside it)
  const loaded = new protobuf.Root();
  loaded.resolvePath = (_origin, target) => (existsSync(join(protos, target)) ? join(protos, target) : target);
  loaded.loadSync(['destination.proto', 'outbound.proto'], { keepCase: true });
  loaded.resolveAll();
  writeFileSync(join(out, 'descriptor.json'), JSON.stringify(loaded.toJSON(), null, 1) + '\n');
  return out;
}

/** Writes src/generated/linkerd, or (check) counts the files that differ from what would be written. */
export function genLinkerd(root: string, check: boolean): number {
  return syncGenerated(root, LINKERD_GENERATED, generate(root), check);
}
