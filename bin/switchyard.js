#!/usr/bin/env node
// The `switchyard` command. It runs the bundle, dist/cli.js, whenever that is the build of the files
// as they are: always where only the built files are (the image, a production install), and in a
// checkout once `npm run build` (or any `npm start`) has built it and nothing has changed since (the
// stamp check, bin/dist-stamp.js, takes a few ms). Otherwise, in a checkout never built or edited
// since, it runs the TypeScript sources through tsx, silently: slower to start (tsx compiles every
// module, some 4 s against 0.6 s) but always what the sources say.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const sources = new URL('../src/cli/main.ts', import.meta.url);
const bundle = new URL('../dist/cli.js', import.meta.url);

async function fromSources() {
  const { register } = await import('tsx/esm/api');
  register();
  await import(sources.href);
}

if (!existsSync(sources)) {
  await import(bundle.href);
} else {
  const { staleReason } = await import('./dist-stamp.js');
  if (staleReason(fileURLToPath(new URL('..', import.meta.url))) !== null) {
    await fromSources();
  } else {
    try {
      await import(bundle.href);
    } catch (e) {
      // a build renaming the new dist/ into place leaves none for a moment: the command has not run
      if (e?.code !== 'ERR_MODULE_NOT_FOUND' || existsSync(bundle)) throw e;
      await fromSources();
    }
  }
}
