import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { workspaceRoot } from './workspace-root.js';

// Lints source text as if it stood at a path in the workspace, with the workspace's own config.
// Type-aware rules are switched off: the text is not on disk, and the boundary rule needs no types.
const lintAt = async (filePath: string, code: string): Promise<string[]> => {
  const eslint = new ESLint({
    cwd: workspaceRoot,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parserOptions: { projectService: false } },
        rules: {
          '@typescript-eslint/switch-exhaustiveness-check': 'off',
          '@typescript-eslint/no-floating-promises': 'off',
          '@typescript-eslint/consistent-type-imports': 'off',
          '@typescript-eslint/no-unused-vars': 'off',
        },
      },
    ],
  });
  const [result] = await eslint.lintText(code, { filePath: `${workspaceRoot}${filePath}` });
  return (result?.messages ?? [])
    .filter((message) => message.severity === 2)
    .map((message) => message.ruleId ?? message.message);
};

const boundaryViolations = async (filePath: string, code: string) =>
  (await lintAt(filePath, code)).filter((rule) => rule === '@nx/enforce-module-boundaries');

describe('import boundaries (docs/ARCHITECTURE.md "Packages": apps -> libs, domain does no I/O, no lib imports an app)', () => {
  it('fails lint when the domain imports an I/O module', async () => {
    expect(
      await boundaryViolations('libs/domain/src/probe.ts', "import pg from 'pg';\nexport const x = pg;\n"),
    ).toHaveLength(1);
  });

  it('fails lint when a lib imports an app', async () => {
    const code = "import { buildApp } from '@once/api';\nexport const x = buildApp;\n";
    expect(await boundaryViolations('libs/event-store/src/probe.ts', code)).toHaveLength(1);
  });

  it('fails lint when an app imports another app: the projector shares the write side through @once/cafe', async () => {
    const fromApi = "import { buildApp } from '@once/api';\nexport const x = buildApp;\n";
    expect(await boundaryViolations('apps/projector/src/probe.ts', fromApi)).toHaveLength(1);
    const fromCafe =
      "import { startBackgroundWork } from '@once/cafe';\nexport const x = startBackgroundWork;\n";
    expect(await boundaryViolations('apps/projector/src/probe.ts', fromCafe)).toEqual([]);
  });

  it('fails lint when the event store imports the idempotency engine (the arrow points the other way)', async () => {
    const code = "import { x } from '@once/idempotency';\nexport const y = x;\n";
    expect(await boundaryViolations('libs/event-store/src/probe.ts', code)).toHaveLength(1);
  });

  it('fails lint when production code imports the test harness', async () => {
    const code =
      "import { createTestDatabase } from '@once/testing';\nexport const x = createTestDatabase;\n";
    expect(await boundaryViolations('libs/event-store/src/probe.ts', code)).toHaveLength(1);
  });

  it('passes the imports the package graph allows (docs/ARCHITECTURE.md "Packages")', async () => {
    const code =
      "import { comparePositions } from '@once/event-store';\nexport const x = comparePositions;\n";
    expect(await boundaryViolations('libs/idempotency/src/probe.ts', code)).toEqual([]);
    const spec =
      "import { createTestDatabase } from '@once/testing';\nexport const x = createTestDatabase;\n";
    expect(await boundaryViolations('libs/event-store/src/probe.int.spec.ts', spec)).toEqual([]);
  });
});
