#!/usr/bin/env bash
# Lays out a new package-based Nx project: package.json, tsconfigs, vitest config, eslint config.
# Usage: tools/scripts/scaffold-project.sh <libs|apps|tools>/<name> "<description>" "<nx tags, comma separated>"
#
# The build convention (tools/workspace/src/packages/package-manifests.unit.spec.ts checks it for every project):
# - a tsconfig.lib.json (src -> dist) is what gives a project its Nx `build` target (@nx/js/typescript infers it),
#   so `npm run build` and the Docker image pick a new project up with no other change;
# - every export lists "@once/source" first (the TypeScript source, for npm start and the tests), then types/import/
#   default under ./dist; a subpath for tests only (./testing) has the "@once/source" condition alone;
# - dependencies between workspaces use ^<version>, never *; runtime imports go in dependencies, test and bench
#   tools in devDependencies; licence and engines are the root's; `npx nx sync` after changing dependencies;
# - to publish a lib: drop "private", add "files", README.md and a copy of the root LICENSE, depend only on
#   published @once packages, and add its folder to tools/workspace/src/packages/publishable-packages.ts (packed
#   and installed by the e2e test).
set -euo pipefail
dir=$1; description=$2; tags=$3
name=$(basename "$dir")
[ -e "$dir/package.json" ] && { echo "$dir exists" >&2; exit 1; }
mkdir -p "$dir/src"
tag_json=$(printf '%s' "$tags" | awk -F, '{for(i=1;i<=NF;i++){printf "%s\"%s\"", (i>1?", ":""), $i}}')
cat > "$dir/package.json" <<JSON
{
  "name": "@once/$name",
  "version": "0.1.0",
  "private": true,
  "description": "$description",
  "license": "MIT",
  "type": "module",
  "exports": {
    ".": {
      "@once/source": "./src/index.ts",
      "types": "./dist/index.d.ts",
      "import": "./dist/index.js",
      "default": "./dist/index.js"
    },
    "./package.json": "./package.json"
  },
  "nx": {
    "tags": [$tag_json]
  },
  "dependencies": {},
  "engines": {
    "node": "^20.19.0 || ^22.12.0 || >=24.0.0"
  }
}
JSON
cat > "$dir/tsconfig.json" <<'JSON'
{
  "extends": "../../tsconfig.base.json",
  "files": [],
  "include": [],
  "references": [{ "path": "./tsconfig.lib.json" }, { "path": "./tsconfig.spec.json" }]
}
JSON
cat > "$dir/tsconfig.lib.json" <<'JSON'
{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": {
    "rootDir": "src",
    "outDir": "dist",
    "tsBuildInfoFile": "dist/tsconfig.lib.tsbuildinfo"
  },
  "include": ["src/**/*.ts"],
  "exclude": ["src/**/*.spec.ts", "src/**/testing/**"],
  "references": []
}
JSON
cat > "$dir/tsconfig.spec.json" <<'JSON'
{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": {
    "outDir": "./out-tsc/spec",
    "tsBuildInfoFile": "./out-tsc/spec/tsconfig.spec.tsbuildinfo",
    "noEmit": false,
    "emitDeclarationOnly": true
  },
  "include": ["src/**/*.spec.ts", "src/**/testing/**/*.ts"],
  "references": [{ "path": "./tsconfig.lib.json" }]
}
JSON
cat > "$dir/vitest.config.ts" <<'TS'
import { defineConfig } from 'vitest/config';
import { sourceResolution, tierProjects } from '../../vitest.shared.ts';

export default defineConfig({
  ...sourceResolution,
  test: { projects: tierProjects(['src']), passWithNoTests: true },
});
TS
cat > "$dir/eslint.config.mjs" <<'JS'
import baseConfig from '../../eslint.config.mjs';

export default [...baseConfig];
JS
echo "scaffolded $dir"
