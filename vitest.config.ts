import { defineConfig } from 'vitest/config';
import { sourceResolution, tierProjects } from './vitest.shared.ts';

/** The whole suite in one run: one Vitest project per tier across every app, lib and tool. */
export default defineConfig({
  ...sourceResolution,
  test: {
    projects: tierProjects(['libs/*/src', 'apps/*/src', 'tools/*/src']),
    reporters: ['default', './libs/testing/src/reporter/summary-reporter.ts'],
  },
});
