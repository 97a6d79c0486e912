#!/usr/bin/env node
// The `switchyard` command. In a checkout it runs the TypeScript CLI (src/cli/main.ts) through tsx,
// so a change needs no build; where only the built files are (the image, a production install
// without dev dependencies) it runs the bundle, dist/cli.js.
import { existsSync } from 'node:fs';

const sources = new URL('../src/cli/main.ts', import.meta.url);
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(sources.href);
} else {
  await import('../dist/cli.js');
}
