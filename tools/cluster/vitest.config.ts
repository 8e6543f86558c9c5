import { defineConfig } from 'vitest/config';
import { sourceResolution, tierProjects } from '../../vitest.shared.ts';

export default defineConfig({
  ...sourceResolution,
  test: { projects: tierProjects(['src']), passWithNoTests: true },
});
