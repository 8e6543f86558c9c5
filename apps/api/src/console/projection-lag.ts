import type { Pool } from 'pg';
import type { EventStore } from '@once/event-store';
import { parsePosition } from '@once/event-store';

/** Lag is counted event by event up to this many; more reads as "at least this many". */
export const lagCountLimit = 1000;

/**
 * How far each live projection is behind the log: the events written after its checkpoint (up to
 * {@link lagCountLimit}) and when the oldest of them was written. Projections are shared by every tenant, so this
 * names no tenant's data.
 *
 * @example
 * const lag = await measureProjectionLag({ pool, eventStore });
 */
export const measureProjectionLag = async (deps: {
  readonly pool: Pool;
  readonly eventStore: EventStore;
}) => {
  const { rows } = await deps.pool.query<{
    name: string;
    version: number;
    position: string | null;
    updated_at: Date;
  }>(
    `SELECT v.name, v.version, c.position, c.updated_at FROM projection_versions v
       JOIN projection_checkpoints c ON c.name = v.name AND c.version = v.version
      WHERE v.state = 'live' ORDER BY v.name`,
  );
  return Promise.all(
    rows.map(async (row) => {
      const after = row.position === null ? undefined : parsePosition(row.position);
      const batch = await deps.eventStore.readAll({
        ...(after ? { after } : {}),
        maxCount: lagCountLimit,
      });
      const oldest = batch.events[0];
      return {
        name: row.name,
        version: row.version,
        ...(row.position === null ? {} : { checkpoint: row.position }),
        checkpointUpdatedAt: row.updated_at.toISOString(),
        behindEvents: Math.min(batch.events.length, lagCountLimit),
        countLimit: lagCountLimit,
        ...(oldest ? { oldestUnappliedAt: oldest.recordedAt.toISOString() } : {}),
      };
    }),
  );
};
