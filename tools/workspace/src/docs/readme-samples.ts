import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A code block of a README, and the file it says it shows (`<!-- sample: path -->` on the line before). */
export interface ReadmeSample {
  readonly language: string;
  readonly code: string;
  /** Relative to the README's folder; undefined when the block names no file. */
  readonly file: string | undefined;
  readonly line: number;
}

const SAMPLE_MARKER = /^<!-- sample: (\S+) -->$/;

/** The fenced code blocks of a markdown file, each with the sample file named just before it. */
export const readmeSamples = (readmePath: string): ReadmeSample[] => {
  const lines = readFileSync(readmePath, 'utf8').split('\n');
  const samples: ReadmeSample[] = [];
  for (let index = 0; index < lines.length; index++) {
    const opening = /^```(\w+)$/.exec(lines[index] as string);
    if (!opening) continue;
    const end = lines.indexOf('```', index + 1);
    const previous = lines.slice(0, index).findLast((line) => line.trim() !== '');
    samples.push({
      language: opening[1] as string,
      code: lines.slice(index + 1, end).join('\n'),
      file: previous === undefined ? undefined : SAMPLE_MARKER.exec(previous)?.[1],
      line: index + 1,
    });
    index = end;
  }
  return samples;
};

/** The text of the file a sample names, as the README should show it. */
export const sampleFileText = (readmePath: string, file: string): string =>
  readFileSync(join(dirname(readmePath), file), 'utf8').trimEnd();
