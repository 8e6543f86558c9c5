import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readHistory } from '../history/index.js';
import { renderHtmlReport } from './html-report.js';
import { summariseRun } from './run-summary.js';
import type { RunSummary } from './run-summary.js';

/**
 * Writes a finished run's `summary.json` and `report.html` again from its `history.jsonl` and the verdicts its
 * summary holds (after the report learned to show more, the run need not be repeated to show it).
 *
 * @example
 * await rewriteReport('tools/chaos/results');
 */
export const rewriteReport = async (directory: string): Promise<RunSummary> => {
  const previous = JSON.parse(await readFile(join(directory, 'summary.json'), 'utf8')) as RunSummary;
  const records = await readHistory(join(directory, 'history.jsonl'));
  const startedAt = Date.parse(previous.startedAt);
  const summary = {
    ...summariseRun({
      records,
      verdicts: previous.verdicts,
      mode: previous.mode,
      ...(previous.streams ? { streams: previous.streams } : {}),
      seed: previous.seed,
      replicas: previous.replicas,
      startedAt,
      endedAt: startedAt + previous.durationSeconds * 1000,
      proxyFaults: previous.proxyFaults,
    }),
    machine: previous.machine,
  };
  await writeFile(join(directory, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  await writeFile(join(directory, 'report.html'), renderHtmlReport(summary));
  return summary;
};
