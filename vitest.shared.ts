import { fileURLToPath } from 'node:url';
import type { TestProjectInlineConfiguration } from 'vitest/config';

/** The three test tiers; the tier is in the file name. */
export type Tier = 'unit' | 'int' | 'e2e';

const postgresGlobalSetup = fileURLToPath(
  new URL('./libs/testing/src/postgres/postgres.global-setup.ts', import.meta.url),
);

/** Resolve workspace packages to their TypeScript sources, so tests never need a build first. */
const conditions = ['@once/source', 'module', 'node', 'development|production'];
export const sourceResolution = {
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@once/source'] } },
  environments: { ssr: { resolve: { conditions } }, __vitest__: { resolve: { conditions } } },
};

const tierSettings: Record<Tier, { testTimeout: number; usesDatabase: boolean }> = {
  unit: { testTimeout: 10_000, usesDatabase: false },
  int: { testTimeout: 60_000, usesDatabase: true },
  e2e: { testTimeout: 120_000, usesDatabase: true },
};

/**
 * Vitest projects for the given source roots, one per tier that has test files.
 * The int and e2e tiers get a real PostgreSQL through the global setup (one per run).
 */
export const tierProjects = (roots: string[], tiers: Tier[] = ['unit', 'int', 'e2e']) =>
  tiers.map((tier): TestProjectInlineConfiguration => ({
    extends: false,
    ...sourceResolution,
    test: {
      name: tier,
      include: roots.map((root) => `${root}/**/*.${tier}.spec.ts`),
      exclude: ['**/node_modules/**', '**/dist/**'],
      environment: 'node',
      testTimeout: tierSettings[tier].testTimeout,
      hookTimeout: tierSettings[tier].testTimeout,
      globalSetup: tierSettings[tier].usesDatabase ? [postgresGlobalSetup] : [],
      passWithNoTests: true,
    },
  }));
