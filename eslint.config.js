// Lint guards the layer boundaries of docs/architecture.md and nothing else: no style rules, so a run
// stays fast and fails only when an import points the wrong way (http → service → core; the composition
// roots src/server.ts, src/worker.ts, src/main.ts and workers/ wire the adapters, never the reverse).
import tseslint from 'typescript-eslint';

// Imports are extensionless relative paths, and every layer is a sibling folder under src/, so an import
// that leaves a layer starts with one or more '../'. The patterns match path segments after that prefix.
const up = (segments) => `^(\\.\\./)+(${segments.join('|')})(/|$)`;

// What the core may not reach: the edges, the use cases, the roots, configuration and process runtime,
// and any module that does I/O. Keep in step with test/unit/core-purity.test.ts, which also catches
// dynamic import() and `import('x').T` types.
const CORE = [
  { regex: up(['adapters', 'service', 'server', 'worker', 'workers', 'main', 'cli', 'config', 'runtime']), message: 'src/core is pure: the edges, services and composition roots depend on it, not the other way round.' },
  { regex: 'prisma', message: 'src/core does no I/O: the database is reached through src/adapters/store.' },
  { regex: '^(express|bullmq|ioredis|pg|pg-[^/]+|pino|prom-client|@electric-sql/pglite|openapi-fetch)(/|$)', message: 'src/core does no I/O: this module belongs to an adapter.' },
  { regex: '^(node:)?(fs|net|http|https|http2|tls|dgram|dns|child_process|worker_threads|cluster)(/|$)', message: 'src/core does no I/O: take the data as a parameter instead.' },
];

// The service holds use cases and owns its errors; HTTP maps them, so the service never sees HTTP.
const SERVICE = [
  { regex: up(['adapters/http']), message: 'src/service must not know HTTP: return the service error and let src/adapters/http map it to problem+json.' },
  { regex: '^express(/|$)', message: 'src/service must not know HTTP: express belongs to src/adapters/http.' },
  { regex: up(['server', 'worker', 'workers', 'main', 'cli']), message: 'src/service must not import a composition root: the root passes what the service needs.' },
];

// Adapters are wired by the composition roots; importing a root back makes the wiring circular.
const ADAPTERS = [
  { regex: up(['server', 'worker', 'workers', 'main']), message: 'An adapter must not import a composition root: move the shared value (a channel, a type) into the adapter or the core.' },
  { regex: up(['cli']), message: 'An adapter must not import the command-line client.' },
];

// The CLI is a client of the API: it talks HTTP, it never opens the store or runs a use case itself.
const CLI = [
  { regex: up(['adapters/store', 'adapters/queue', 'service', 'server', 'worker', 'workers']), message: 'src/cli is an API client: go through the HTTP API, not the store or the services.' },
];

// The reference proxy is a client of the API too, and a data plane: it routes with the core and reads
// snapshots over HTTP, never the store, the queue or the services.
const PROXY = [
  { regex: up(['adapters', 'service', 'server', 'worker', 'workers', 'main', 'cli']), message: 'src/proxy is a data plane: it reads snapshots through the HTTP API and routes with src/core only.' },
];

// no-restricted-imports sees static imports and re-exports; the same patterns applied to import() and to
// `import('x').T` types close the gap. esquery regex literals cannot hold '/', hence \x2F.
const selectorRegex = (regex) => `/${regex.replaceAll('/', '\\x2F')}/`;
const boundary = (patterns) => ({
  'no-restricted-imports': ['error', { patterns }],
  'no-restricted-syntax': ['error', ...patterns.flatMap(({ regex, message }) => [
    { selector: `ImportExpression[source.value=${selectorRegex(regex)}]`, message },
    { selector: `TSImportType[argument.literal.value=${selectorRegex(regex)}]`, message },
  ])],
});

export default [
  { ignores: ['src/generated/**', 'node_modules/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 'latest', sourceType: 'module' },
    // Registered, with none of its rules on, so that the disable comments marking a deliberate `any`
    // name a known rule; the directives themselves are not this run's business.
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
  },
  { files: ['src/core/**/*.ts'], rules: boundary(CORE) },
  { files: ['src/service/**/*.ts'], rules: boundary(SERVICE) },
  { files: ['src/adapters/**/*.ts'], rules: boundary(ADAPTERS) },
  { files: ['src/cli/**/*.ts'], rules: boundary(CLI) },
  { files: ['src/proxy/**/*.ts'], rules: boundary(PROXY) },
];
