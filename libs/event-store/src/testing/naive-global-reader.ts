import type { Pool } from 'pg';
import type { EventStore, ReadAllBatch, RecordedEvent } from '../port/index.js';

interface NaiveRow {
  event_id: string;
  stream: string;
  revision: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  global_position: string;
  recorded_at: Date;
}

/**
 * A deliberately wrong global reader over the PostgreSQL schema: it orders by `global_position` alone and uses it as
 * the checkpoint. An event whose transaction commits after a later-numbered one is skipped for good. Test-only: it
 * exists so a test can show that the late-commit property catches it.
 *
 * @example
 * const readAll = createNaiveGlobalReader(pool);
 * await expect(assertLateCommitProperty(subject, { readAll })).rejects.toThrow();
 */
export const createNaiveGlobalReader =
  (pool: Pool): EventStore['readAll'] =>
  async (options = {}): Promise<ReadAllBatch> => {
    const maxCount = options.maxCount ?? 1_000;
    const prefixes =
      options.filter?.streamPrefixes?.map((prefix) => `${prefix.replace(/[\\%_]/g, '\\$&')}%`) ?? null;
    const { rows } = await pool.query<NaiveRow>(
      `SELECT event_id, stream, revision, type, data, metadata, global_position, recorded_at FROM events
        WHERE global_position > $1 AND ($3::text[] IS NULL OR stream LIKE ANY($3::text[]))
        ORDER BY global_position LIMIT $2`,
      [options.after?.prepare.toString() ?? '0', maxCount, prefixes],
    );
    const events = rows.map((row): RecordedEvent => ({
      id: row.event_id,
      stream: row.stream,
      revision: BigInt(row.revision),
      type: row.type,
      data: row.data,
      metadata: row.metadata,
      position: { commit: 0n, prepare: BigInt(row.global_position) },
      recordedAt: row.recorded_at,
    }));
    return {
      events,
      checkpoint: events.at(-1)?.position ?? options.after,
      caughtUp: events.length < maxCount,
    };
  };
