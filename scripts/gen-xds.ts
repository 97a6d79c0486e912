// The TypeScript types of the xDS discovery messages (src/generated/xds/), made by proto-loader's
// generator from the Envoy v3 protos that ship inside @grpc/grpc-js-xds. Only ads.proto and what it
// imports: the discovery requests and responses the ADS server reads and writes. The resources
// themselves are typed narrowly in src/core/xds/types.ts (see there why).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, cpSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

const require = createRequire(import.meta.url);

export const XDS_GENERATED = 'src/generated/xds';

function files(dir: string, base = dir): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p, base) : [relative(base, p)];
  }).sort();
}

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
  const target = join(root, XDS_GENERATED);
  const made = generate();
  try {
    if (!check) {
      rmSync(target, { recursive: true, force: true });
      cpSync(made, target, { recursive: true });
      return 0;
    }
    const want = files(made);
    const have = files(target);
    let stale = 0;
    for (const f of new Set([...want, ...have])) {
      const a = want.includes(f) ? readFileSync(join(made, f), 'utf8') : null;
      const b = have.includes(f) ? readFileSync(join(target, f), 'utf8') : null;
      if (a !== b) {
        console.error(`stale: ${join(XDS_GENERATED, f)} (run npm run gen)`);
        stale++;
      }
    }
    return stale;
  } finally {
    rmSync(made, { recursive: true, force: true });
  }
}
