import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { once } from 'node:events';
import type { HistoryRecord } from './history-records.js';

/** Appends history records to a JSONL file as they happen; keeps them in memory for the checker too. */
export interface HistoryWriter {
  record(entry: HistoryRecord): void;
  readonly records: readonly HistoryRecord[];
  close(): Promise<void>;
}

/**
 * Opens a JSONL history file (one record a line).
 *
 * @example
 * const history = openHistory('/tmp/run/history.jsonl');
 * history.record({ type: 'fault', at: Date.now(), fault: 'kill-9', target: 'api-1' });
 */
export const openHistory = (path: string): HistoryWriter => {
  const stream = createWriteStream(path, { flags: 'w' });
  const records: HistoryRecord[] = [];
  return {
    records,
    record: (entry) => {
      records.push(entry);
      stream.write(`${JSON.stringify(entry)}\n`);
    },
    close: async () => {
      stream.end();
      await once(stream, 'finish');
    },
  };
};

/** Reads a JSONL history back. */
export const readHistory = async (path: string): Promise<HistoryRecord[]> =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as HistoryRecord);
