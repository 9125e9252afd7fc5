// Lint rules that carry the house style (docs/style.md) and the package layout (docs/adr/0005), so nobody has to
// remember them.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const bareBuiltins = builtinModules.filter((name) => !name.startsWith('_') && !name.startsWith('node:'));
const nodePrefix = bareBuiltins.map((name) => ({ name, message: `Use 'node:${name}'.` }));

// Dependencies point one way (main-job → pipeline → grader → protocol, github-sim → grader, provider-sim → protocol): a
// package's sources may import only the packages below it, and the consumer's packages none of the operator's heavy
// dependencies.
const packages = ['protocol', 'grader', 'github-sim', 'provider-sim', 'pipeline', 'main-job'];
const upward = (names, why) => ({ group: names.flatMap((name) => [`@abp/${name}`, `@abp/${name}/*`]), message: why });
const heavy = {
  group: [
    '@temporalio/*',
    '@electric-sql/*',
    'drizzle-orm',
    'drizzle-orm/*',
    'postgres',
    '@octokit/*',
    'graphql',
    'graphql/*',
    '@sigstore/sign',
  ],
  message:
    'The grader is what consumers install: no Temporal, database, GitHub client or signer in it (they belong to the pipeline).',
};
const layering = {
  protocol: [
    upward(
      ['grader', 'github-sim', 'provider-sim', 'pipeline', 'main-job'],
      '@abp/protocol depends on no other abp package.',
    ),
    {
      group: ['node:child_process', 'node:http', 'node:https', 'node:net', 'node:dgram'],
      message: '@abp/protocol starts no process and opens no connection: that is the grader’s execution layer.',
    },
    heavy,
  ],
  grader: [
    upward(['github-sim', 'provider-sim', 'pipeline', 'main-job'], '@abp/grader depends only on @abp/protocol.'),
    heavy,
  ],
  'github-sim': [
    upward(
      ['pipeline', 'main-job'],
      'The simulator is a test double: it depends on @abp/protocol and @abp/grader only.',
    ),
    { group: ['@temporalio/*'], message: 'The simulator knows nothing of Temporal.' },
  ],
  'provider-sim': [
    upward(
      ['grader', 'github-sim', 'pipeline', 'main-job'],
      'The provider stand-in is a test double of a model API: it depends on @abp/protocol only.',
    ),
    heavy,
  ],
  pipeline: [
    upward(
      ['main-job'],
      '@abp/pipeline depends on @abp/grader and @abp/protocol; the main job is built on it, not the other way.',
    ),
    upward(['github-sim'], 'The simulator is the pipeline’s dev dependency: only its tests may import it.'),
    upward(['provider-sim'], 'The provider stand-in is a dev dependency: only tests may import it.'),
  ],
  'main-job': [],
};
const restrictImports = (patterns) => ['error', { paths: nodePrefix, patterns }];

// Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O modules, activities by type only.
const workflowPatterns = [
  { group: ['node:*', ...bareBuiltins], message: 'Workflows are deterministic: do I/O in an activity.' },
  {
    group: [
      '**/db/**',
      '**/github/**',
      '**/registry/**',
      '**/freeze/**',
      '**/signing/**',
      '@abp/grader',
      '@abp/grader/*',
      '@abp/github-sim/*',
    ],
    allowTypeImports: true,
    message: 'Workflows import domain modules as types only; call them through activities.',
  },
  {
    group: ['**/activities/**'],
    allowTypeImports: true,
    message: 'Import activities with `import type` and call them through proxyActivities.',
  },
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/',
      '**/dist/',
      '.abp/',
      '.tools/',
      '.cache/',
      'coverage/',
      'packages/pipeline/migrations/',
      // Other repositories' manifests, captured for the detection coverage bench.
      'bench/corpus/',
      // Deliberate rule breaches that test/layering.test.ts lints on purpose.
      'test/fixtures/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        projectService: { allowDefaultProject: ['*.config.ts', 'packages/pipeline/drizzle.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    // Imports resolve as TypeScript does here: './x.js' to x.ts, '@abp/<package>/…' to its sources (the "source" condition).
    settings: {
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: ['packages/*/tsconfig.json', 'packages/*/test/tsconfig.json'],
          noWarnOnMultipleProjects: true,
          conditionNames: ['source', 'types', 'import', 'default'],
        }),
      ],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/extensions': ['.ts', '.js'],
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-imports': restrictImports([]),
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
      // A module that imports itself back through others cannot be reasoned about (or loaded) in isolation.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  ...packages.map((name) => ({
    files: [`packages/${name}/src/**/*.ts`],
    rules: { 'no-restricted-imports': restrictImports(layering[name]) },
  })),
  {
    files: ['packages/pipeline/src/workflows/**/*.ts'],
    rules: { 'no-restricted-imports': restrictImports([...layering.pipeline, ...workflowPatterns]) },
  },
  {
    // Tables reference each other's columns through callbacks drizzle calls later (references(() => tasks.id)), and two
    // of them reference each other (a task and its bundle): the schema's domain files import one another by design.
    files: ['packages/pipeline/src/db/schema/*.ts'],
    rules: { 'import-x/no-cycle': 'off' },
  },
  {
    files: ['**/*.config.ts', '**/*.config.js', 'eslint.config.js'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
