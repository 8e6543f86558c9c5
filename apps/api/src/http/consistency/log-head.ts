import type { Pool } from 'pg';
import type { GlobalPosition } from '@once/event-store';

const maxBigint = 2n ** 63n - 1n;
const maxXid8 = 2n ** 64n - 1n;

/**
 * Whether a position lies past the end of the PostgreSQL event log, so no projection can ever reach it: its event
 * number is beyond the events' identity sequence, or its transaction has not even started.
 *
 * @example
 * if (await isPastLogHead(pool, position)) throw new HttpProblem('position-ahead');
 */
export const isPastLogHead = async (pool: Pool, position: GlobalPosition): Promise<boolean> => {
  // Beyond what the columns can hold at all (a bigint identity, an xid8).
  if (position.prepare > maxBigint || position.commit > maxXid8) return true;
  const { rows } = await pool.query<{ ahead: boolean }>(
    `SELECT $1::bigint > (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_global_position_seq)
         OR $2::text::xid8 >= pg_snapshot_xmax(pg_current_snapshot()) AS ahead`,
    [position.prepare.toString(), position.commit.toString()],
  );
  return rows[0]?.ahead === true;
};
