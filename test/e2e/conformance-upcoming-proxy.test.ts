// The upcoming conformance cases (test/corpora/conformance/upcoming: tests that open upstream pull
// requests add or change) as real traffic through the reference proxy: the runner of
// conformance-proxy.test.ts on that folder (base.json plus upcoming/base.json), counts printed.
process.env.CONFORMANCE_SUITE = 'upcoming';
await import('./conformance-proxy.test');
export {};
