import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * Typed documents for the operations the tests and benchmarks send: every `graphql(...)` call
 * under test/ and bench/, and the example operations the gateway ships (GraphiQL's, and the
 * built-in manifest of persisted operations), are checked against schema.graphql and get their
 * result type.
 * `npm run codegen` writes them to test/graphql/ (generated, not committed; `npm test` runs it first).
 */
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['test/**/*.ts', 'bench/**/*.ts', 'src/gateway/examples/operations.ts', '!test/graphql/**'],
  ignoreNoDocuments: false,
  emitLegacyCommonJSImports: false,
  generates: {
    'test/graphql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { DateTime: 'string', JSON: 'unknown' },
      },
    },
  },
};

export default config;
