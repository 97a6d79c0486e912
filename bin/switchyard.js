#!/usr/bin/env node
// The `switchyard` command: runs the TypeScript CLI (src/cli/main.ts) through tsx, no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
