import { defineConfig } from 'vitest/config';
import { sourceResolution, tierProjects } from './vitest.shared.ts';

/** The whole suite in one run: one Vitest project per tier across every app, lib and tool. */
export default defineConfig({
  ...sourceResolution,
  test: {
    // One worker unless ONCE_TEST_WORKERS asks for more: most int and e2e files wait on PostgreSQL and child
    // processes, so two workers take about half the time, but the gateway-fault tests' short timeouts then see slow
    // answers on a 2-core machine. Each worker gets its own embedded server (see the postgres global setup); one
    // shared external server (TEST_DATABASE_URL) always runs one.
    maxWorkers: process.env['TEST_DATABASE_URL']
      ? 1
      : Math.max(1, Number(process.env['ONCE_TEST_WORKERS'] ?? 1) || 1),
    projects: tierProjects(['libs/*/src', 'apps/*/src', 'tools/*/src']),
    reporters: ['default', './libs/testing/src/reporter/summary-reporter.ts'],
  },
});
