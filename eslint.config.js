import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', '.test-build/**', '.test-build-*/**', '.tools-build/**', 'node_modules/**', 'subgraphs/*/migrations/Migration*.ts', '.data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Decorated classes use `!` for fields the ORM or GraphQL fills in.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // type-graphql needs Function in places (resolver and entity lists).
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    files: ['test/**/*.ts', '**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Benchmarks print their figures.
    files: ['test/bench/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
);
