// ESLint flat config: typescript-eslint's recommended rules (syntax only, no type information, so
// `npm run lint` stays fast) and the house rule that src/ is portable Web-standard code.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// Every Node built-in by its bare name ('fs', 'crypto', 'fs/promises' …); 'node:*' covers the rest.
const nodeBuiltins = builtinModules.filter((m) => !m.startsWith('_') && !m.startsWith('node:'));
const builtinRoots = [...new Set(nodeBuiltins.map((m) => m.split('/')[0]))];
const portableMessage = 'src/ runs on workerd, Deno, Bun and browsers: use Web APIs, or a seam the adapters fill.';

export default defineConfig(
  {
    ignores: ['node_modules/', 'dist/', '**/.wrangler/', 'apiserver.local.config/', '.build-test-*/'],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    rules: {
      // `let t; const finish = () => clearTimeout(t); … t = setTimeout(…)`: a const there would be
      // read in its temporal dead zone when finish runs first.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Errors rethrown from a catch carry upstream's message text, which already includes the
      // cause's text (`…: ${err.message}`); attaching `cause` everywhere is a sweep of its own.
      'preserve-caught-error': 'off',
      // Go's escaping and unicode.IsControl are reproduced byte for byte: character classes over
      // C0/C1 controls are the point, not an accident.
      'no-control-regex': 'off',
      // Tests match exact output (help text columns, indented JSON): literal spaces read best.
      'no-regex-spaces': 'off',
      // `_`-prefixed names are deliberately unused (callback arity, destructuring the rest away).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // Plain JavaScript (scripts, the CLI entry, this file) runs on Node; TypeScript files leave
    // undefined names to tsc (typescript-eslint turns no-undef off for them).
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        Buffer: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        clearImmediate: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        performance: 'readonly',
        AbortController: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
      },
    },
  },
  {
    // The portability rule (stronger than test/portability.test.ts's regex): no Node built-in, by
    // 'node:' or bare name, static, re-exported or dynamic, and no Node-only global.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: builtinRoots.map((name) => ({ name, message: portableMessage })),
          patterns: [
            { group: ['node:*'], message: portableMessage },
            { group: builtinRoots.map((m) => `${m}/*`), message: portableMessage },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: `ImportExpression[source.value=/^(node:|(${builtinRoots.join('|')})($|\\u002F))/]`,
          message: portableMessage,
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['process', 'Buffer', 'require', 'module', 'exports', '__dirname', '__filename', 'global'].map((name) => ({
          name,
          message: `${name} is Node-only. ${portableMessage}`,
        })),
      ],
    },
  },
);
