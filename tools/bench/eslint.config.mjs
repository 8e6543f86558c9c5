import baseConfig from '../../eslint.config.mjs';

// The root config allows console output under `tools/**`, but its globs resolve relative to this folder when lint
// runs here; benchmarks print their tables, so allow it explicitly.
export default [...baseConfig, { files: ['**/*.ts'], rules: { 'no-console': 'off' } }];
