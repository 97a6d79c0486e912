// The import graph of src/ has no cycles: layers point one way (docs/architecture.md), and a cycle is
// the first sign that two modules have become one. `npm run check:cycles` runs this in CI.
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Break the cycle by moving the shared value (a type, a channel name) down to the module both sides depend on.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // Type-only imports are included: they compile away, but they still make one module know another,
    // and a type import of a composition root from an adapter is exactly how a layer starts to point back.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Generated code (the Prisma client, the OpenAPI types) is not ours to shape.
    exclude: { path: '^src/generated/' },
    doNotFollow: { path: 'node_modules' },
  },
};
