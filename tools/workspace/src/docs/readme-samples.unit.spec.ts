import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceRoot } from '../workspace-root.js';
import { readmeSamples, sampleFileText } from './readme-samples.js';

// These READMEs show only code that runs: each JavaScript/TypeScript block (and any other block that names a file)
// is a file that a test executes, named in the README (`<!-- sample: path -->`), so the text a reader copies is the
// text that was tested.
const readmesWithRunningSamples = [
  'examples/fastify-exactly-once/README.md',
  'examples/express-exactly-once/README.md',
  'examples/nestjs-exactly-once/README.md',
  'libs/client/README.md',
];

describe.each(readmesWithRunningSamples)('%s', (readme) => {
  const path = join(workspaceRoot, readme);
  const samples = readmeSamples(path);
  const codeSamples = samples.filter((sample) => ['js', 'ts'].includes(sample.language));
  const namedSamples = samples.filter((sample) => sample.file !== undefined);

  it('has code samples, and each names the file it shows', () => {
    expect(codeSamples.length).toBeGreaterThan(0);
    expect(codeSamples.filter((sample) => sample.file === undefined).map((sample) => sample.line)).toEqual(
      [],
    );
  });

  it.each(namedSamples.map((sample) => [sample.line, sample.file, sample] as const))(
    'shows, at line %i, %s word for word',
    (_line, file, sample) => {
      expect(sample.code).toBe(sampleFileText(path, file as string));
    },
  );
});
