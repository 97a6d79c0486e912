// The TypeScript types of the xDS discovery messages (src/generated/xds/), made by proto-loader's
// generator from the Envoy v3 protos that ship inside @grpc/grpc-js-xds. Only ads.proto and what it
// imports: the discovery requests and responses the ADS server reads and writes. The resources
// themselves are typed narrowly in src/core/xds/types.ts (see there why).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { files, syncGenerated } from './generated-dir';

const require = createRequire(import.meta.url);

export const XDS_GENERATED = 'src/generated/xds';

/** Generates into a fresh folder and returns it (the caller removes it). */
function generate(): string {
  const deps = join(dirname(require.resolve('@grpc/grpc-js-xds/package.json')), 'deps');
  const bin = join(dirname(require.resolve('@grpc/proto-loader/package.json')), 'build/bin/proto-loader-gen-types.js');
  const out = mkdtempSync(join(tmpdir(), 'sy-xds-gen-'));
  execFileSync(process.execPath, [bin, '--keepCase', '--longs=String', '--enums=String', '--defaults', '--oneofs', '--grpcLib=@grpc/grpc-js',
    `--outDir=${out}`, '--includeDirs', ...['envoy-api', 'xds', 'googleapis', 'protoc-gen-validate'].map((d) => join(deps, d)), '--',
    'envoy/service/discovery/v3/ads.proto'], { stdio: ['ignore', 'ignore', 'pipe'] });
  // each file names the proto it comes from by absolute path: named from the package instead, so
  // that every checkout generates the same bytes
  for (const f of files(out)) {
    const text = readFileSync(join(out, f), 'utf8');
    writeFileSync(join(out, f), text.split(deps + '/').join('@grpc/grpc-js-xds/deps/'));
  }
  return out;
}

/** Writes src/generated/xds, or (check) counts the files that differ from what would be written. */
export function genXds(root: string, check: boolean): number {
  return syncGenerated(root, XDS_GENERATED, generate(), check);
}
