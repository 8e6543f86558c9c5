import baseConfig from '../../eslint.config.mjs';

// The root's console allowance names `apps/*/src/main.ts`, which does not match when lint runs from this folder.
export default [...baseConfig, { files: ['src/main.ts', 'src/cli/**/*.ts'], rules: { 'no-console': 'off' } }];
