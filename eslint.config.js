// Lint rules (run by `npm run lint`, part of `npm test`): typescript-eslint's recommended set on
// the sources, tests and benchmark, plus the few rules the house style leans on.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'bench/.data/', '.tmp/', 'src/web/assets/vendor/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // Validation refuses control characters on purpose, by matching them.
      'no-control-regex': 'off',
    },
  },
  {
    // One list of errors (src/errors.ts): routes throw its named constructors, never a hand-built ApiError.
    files: ['src/**/*.ts'],
    ignores: ['src/errors.ts'],
    rules: {
      'no-restricted-syntax': ['error', { selector: "NewExpression[callee.name='ApiError']", message: 'Use a named constructor of errors in src/errors.ts.' }],
    },
  },
  {
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    // These tests drive the untyped browser datafeed and read untyped wire messages.
    files: ['test/sdk/**', 'test/stream/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/web/**/*.js', 'src/sdk/**/*.js'],
    languageOptions: { globals: { ...globals.browser, LightweightCharts: 'readonly' } },
  },
);
