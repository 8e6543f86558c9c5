import { defineConfig } from 'vitest/config';
import { sourceResolution, tierProjects } from './vitest.shared.ts';

/** The whole suite in one run: one Vitest project per tier across every app, lib and tool. */
export default defineConfig({
  ...sourceResolution,
  test: {
    // Two workers: most int and e2e files wait on PostgreSQL and child processes, not on a core. Each gets its own
    // embedded server (see the postgres global setup); one shared external server (TEST_DATABASE_URL) runs one.
    maxWorkers: process.env['TEST_DATABASE_URL'] ? 1 : 2,
    projects: tierProjects(['libs/*/src', 'apps/*/src', 'tools/*/src']),
    reporters: ['default', './libs/testing/src/reporter/summary-reporter.ts'],
  },
});
