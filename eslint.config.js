// Lint for src/ and test/ (npm run lint, part of npm test). Typed linting is left out: tsc already
// checks types (npm run typecheck), and the lint stays a few seconds.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Every `eslint-disable` says why, after ` -- `, or lint fails. */
const explainedDisables = {
  meta: { type: 'problem', messages: { unexplained: 'say why after " -- " in every eslint-disable comment' }, schema: [] },
  create(context) {
    return {
      Program() {
        for (const comment of context.sourceCode.getAllComments()) {
          if (/^\s*eslint-disable/.test(comment.value) && !/ -- \S/.test(comment.value)) {
            context.report({ loc: comment.loc, messageId: 'unexplained' });
          }
        }
      },
    };
  },
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { crawl: { rules: { 'explained-disables': explainedDisables } } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'crawl/explained-disables': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // Only the process adapter, the system's streams and the platform facts about this process
    // touch `process`: everything else gets what it needs through Deps, so it runs in a test.
    files: ['src/**/*.ts', 'src/**/*.cts'],
    ignores: ['src/main.ts', 'src/io/system-streams.ts', 'src/platform/host.ts', 'src/launch/**', 'src/build/**', 'src/bench/**', 'src/demo/**'],
    rules: {
      'no-restricted-globals': ['error', { name: 'process', message: 'take it from Deps (env, io, clock, signal): only src/main.ts, io/system-streams.ts and platform/host.ts touch process' }],
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'node:process', message: 'take it from Deps' },
          { name: 'commander', message: 'use @commander-js/extra-typings, so flags are typed' },
        ],
      }],
    },
  },
  {
    files: ['**/*.cjs', '**/*.cts', 'bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', Buffer: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests hold terminal escapes and control characters on purpose: they are what is tested.
    files: ['test/**'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    files: ['test/**/*.mjs', 'src/build/**', 'src/bench/**', 'src/demo/**'],
    languageOptions: { globals: { process: 'readonly', Buffer: 'readonly', console: 'readonly' } },
  },
);
