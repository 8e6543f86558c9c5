import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceRoot } from '../workspace-root.js';
import { readmeSamples, sampleFileText } from './readme-samples.js';

// These READMEs show only code that runs: each JavaScript/TypeScript block is a file that a test executes, and
// the README names it (`<!-- sample: path -->`), so the text a reader copies is the text that was tested.
const readmesWithRunningSamples = ['examples/fastify-exactly-once/README.md', 'libs/client/README.md'];

describe.each(readmesWithRunningSamples)('%s', (readme) => {
  const path = join(workspaceRoot, readme);
  const codeSamples = readmeSamples(path).filter((sample) => ['js', 'ts'].includes(sample.language));

  it('has code samples', () => {
    expect(codeSamples.length).toBeGreaterThan(0);
  });

  it.each(codeSamples.map((sample) => [sample.line, sample] as const))(
    'shows, at line %i, a file that a test runs, word for word',
    (_line, sample) => {
      expect(sample.file, 'a <!-- sample: path --> line before the block').toBeDefined();
      expect(sample.code).toBe(sampleFileText(path, sample.file as string));
    },
  );
});
