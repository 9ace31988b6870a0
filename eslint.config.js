// Code lint (typescript-eslint); the layers are checked by dependency-cruiser (.dependency-cruiser.cjs).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'integrations/*/node_modules/', 'clients/*/node_modules/', 'clients/*/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'Use a union of string literals (or an io-ts keyof codec) instead of an enum.' },
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    // Tests and benchmarks read arbitrary JSON answers.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['bin/**/*.js'],
    languageOptions: { globals: { URL: 'readonly', process: 'readonly', console: 'readonly', setTimeout: 'readonly' } },
  },
  {
    // The Zapier integration and the Make app's tooling: CommonJS for Node (as Zapier runs it); their tests use mocha.
    files: ['integrations/zapier/**/*.js', 'integrations/make/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: Object.fromEntries(
        ['require', 'module', 'process', 'console', '__dirname', 'Buffer', 'fetch', 'URL', 'Response', 'structuredClone', 'setTimeout', 'describe', 'it', 'before', 'after'].map((name) => [
          name,
          name === 'module' ? 'writable' : 'readonly',
        ]),
      ),
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The typed client's generator, the repository's scripts and the docs check's configuration: ES modules for Node.
    files: ['clients/typescript/scripts/*.mjs', 'scripts/*.mjs', '.remarkrc.mjs'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly', structuredClone: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
