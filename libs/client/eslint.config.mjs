import baseConfig from '../../eslint.config.mjs';

export default [
  ...baseConfig,
  // The README's samples import the package by its name, as its users do (a test runs them against the api).
  {
    files: ['samples/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
];
