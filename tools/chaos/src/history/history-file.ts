import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { once } from 'node:events';
import type { HistoryRecord } from './history-records.js';

/** Appends history records to a JSONL file as they happen; keeps them in memory for the checker too. */
export interface HistoryWriter {
  /** Appends one record; once the history is closed, records are dropped. */
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
  let closed = false;
  return {
    records,
    record: (entry) => {
      // A run that gave up may still hear from clients it cut short: their records belong to no verdict.
      if (closed) return;
      records.push(entry);
      stream.write(`${JSON.stringify(entry)}\n`);
    },
    close: async () => {
      if (closed) return;
      closed = true;
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
