// Lint rules that carry the house style (../shared/STYLE.md), so nobody has to remember them.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const bareBuiltins = builtinModules.filter((name) => !name.startsWith('_') && !name.startsWith('node:'));

export default tseslint.config(
  { ignores: ['node_modules/', '.abp/', '.tools/', 'coverage/', 'db/migrations/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'bin/*.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { paths: bareBuiltins.map((name) => ({ name, message: `Use 'node:${name}'.` })) }],
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O modules.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', ...bareBuiltins],
              message: 'Workflows are deterministic: do I/O in an activity.',
            },
            {
              group: ['**/db/**', '**/github/**', '**/registry/**', '**/freeze/**', '**/signing/**', '**/grader/**', '**/simulator/**'],
              allowTypeImports: true,
              message: 'Workflows import domain modules as types only; call them through activities.',
            },
            {
              group: ['**/activities/**'],
              allowTypeImports: true,
              message: 'Import activities with `import type` and call them through proxyActivities.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['*.config.ts', '*.config.js', 'eslint.config.js'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
