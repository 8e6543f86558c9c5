import baseConfig from '../../eslint.config.mjs';

// The root config allows console output under `tools/**`, but its globs resolve relative to this folder when lint
// runs here; the cluster tool prints what it starts and what it finds, so allow it explicitly.
export default [...baseConfig, { files: ['**/*.ts'], rules: { 'no-console': 'off' } }];
