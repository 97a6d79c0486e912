// Every command the CLI has, with its one-line summary: the top help's list, and the table the docs'
// tests check the pages against. Each command's module is loaded only when that command runs.
import type { Command } from './command';

/**
 * Each command's module is loaded only when it runs: a call that only talks to the API does not load
 * what the proxy, apply or analyze need (the validator, the proxy's HTTP stack, metrics), which took
 * about half of the bundle's start-up.
 */
export interface Entry { name: string; summary: string; load: () => Promise<Command> }

export const COMMANDS: Entry[] = [
  { name: 'apply', summary: 'Apply manifests (YAML or JSON files, a directory of them, or - for standard input) in one all-or-nothing request.', load: async () => (await import('./commands/apply')).applyCommand },
  { name: 'analyze', summary: 'Check manifests before applying them: dangling parentRefs, missing Services or ports, references without a ReferenceGrant, hostnames no listener admits, shadowed rules.', load: async () => (await import('./commands/analyze')).analyzeCommand },
  { name: 'get', summary: 'List objects of a kind, or show one.', load: async () => (await import('./commands/get')).getCommand },
  { name: 'describe', summary: 'Show one object: metadata, spec, listeners or parents, its conditions in a table, and why a status is missing.', load: async () => (await import('./commands/describe')).describeCommand },
  { name: 'history', summary: 'Every version of an object, oldest first (version, change, actor, time), and a diff of what each change made.', load: async () => (await import('./commands/history')).historyCommand },
  { name: 'resolve', summary: 'Ask where a request to a Gateway would go, and why (the decision and its explanation).', load: async () => (await import('./commands/resolve')).resolveCommand },
  { name: 'watch', summary: "Follow a Gateway's compiled snapshot: print each new version and what changed. Stop with Ctrl-C.", load: async () => (await import('./commands/watch')).watchCommand },
  { name: 'proxy', summary: 'Run the reference proxy: route real traffic from the snapshots of these Gateways.', load: async () => (await import('./commands/proxy')).proxyCommand },
  { name: 'nginx', summary: 'Program a stock nginx from the snapshots of these Gateways: render, check with nginx -t, reload; run it or reload one run by someone else.', load: async () => (await import('./commands/nginx')).nginxCommand },
  { name: 'proxy-status', summary: 'Show the proxies of a Gateway: SYNCED, STALE or NOT_SENT, and when each last reported.', load: async () => (await import('./commands/proxy-status')).proxyStatusCommand },
];
