// The upcoming conformance cases (test/corpora/conformance/upcoming: tests that open upstream pull
// requests add or change) through the real service: the runner of conformance-api.test.ts on that
// folder (base.json plus upcoming/base.json), counts printed.
process.env.CONFORMANCE_SUITE = 'upcoming';
await import('./conformance-api.test');
export {};
