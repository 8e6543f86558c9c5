import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { parsePosition } from '@once/event-store';
import type { EventStore } from '@once/event-store';
import { createPostgresEventStore } from '@once/event-store/postgres';
import { physicalTableName, readLiveCheckpoint, rebuildProjections } from '@once/projections';
import { allProjections } from '@once/read-models';
import { tenantStreamPrefixes } from './system-facts.js';
import type { GatewayCharge, LoggedEvent, ReadModelDifference } from './system-facts.js';

/** The tenant's domain events, in the global order. */
export const readTenantEvents = async (pool: pg.Pool, tenantId: string): Promise<LoggedEvent[]> => {
  const patterns = tenantStreamPrefixes(tenantId).map((prefix) => `${prefix}%`);
  const { rows } = await pool.query<LoggedEvent>(
    'SELECT stream, type, data FROM events WHERE stream LIKE ANY($1) ORDER BY global_position',
    [patterns],
  );
  return rows;
};

/** Every charge the gateway simulator recorded in its own database. */
export const readGatewayCharges = async (gatewayDatabaseUrl: string): Promise<GatewayCharge[]> => {
  const pool = new pg.Pool({ connectionString: gatewayDatabaseUrl, max: 1 });
  try {
    const { rows } = await pool.query<{ data: GatewayCharge }>(
      "SELECT data FROM events WHERE type = 'ChargeRecorded' ORDER BY global_position",
    );
    return rows.map(({ data }) => ({
      id: data.id,
      reference: data.reference,
      amount: data.amount,
      status: data.status,
    }));
  } finally {
    await pool.end();
  }
};

/** Keys of the tenant the key table still shows in flight. */
export const readKeysInFlight = async (pool: pg.Pool, tenantId: string): Promise<string[]> => {
  const { rows } = await pool.query<{ key: string }>(
    "SELECT key FROM idempotency_keys WHERE tenant_id = $1 AND status = 'inFlight'",
    [tenantId],
  );
  return rows.map((row) => row.key);
};

/**
 * Waits until every projection's live checkpoint has reached the end of the log (the run wrote its last event
 * before this is called); false when `timeoutMs` passes first. The log is PostgreSQL's unless `store` names another.
 */
export const waitForProjections = async (
  pool: pg.Pool,
  timeoutMs: number,
  store: EventStore = createPostgresEventStore(pool),
): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    let behind = false;
    for (const projection of allProjections) {
      const text = await readLiveCheckpoint(pool, projection.name);
      const after = text === null ? undefined : parsePosition(text);
      const page = await store.readAll({ ...(after ? { after } : {}), maxCount: 1 });
      if (text === null || page.events.length > 0) behind = true;
    }
    if (!behind) return true;
    await sleep(250);
  }
  return false;
};

const rowsOnlyIn = async (pool: pg.Pool, table: string, other: string): Promise<number> => {
  const { rows } = await pool.query<{ count: string }>(
    `SELECT count(*) AS count FROM (SELECT a::text FROM ${table} a EXCEPT ALL SELECT b::text FROM ${other} b) only_here`,
  );
  return Number(rows[0]?.count ?? 0);
};

/**
 * Folds the whole log again into new versions of every read model (the blue/green rebuild, which keeps the
 * previous version's tables) and compares each table of the fresh fold with the one that was live, row by row. The
 * log is PostgreSQL's unless `store` names another (EventStoreDB).
 */
export const compareReadModelsWithFold = async (
  pool: pg.Pool,
  store: EventStore = createPostgresEventStore(pool),
): Promise<ReadModelDifference[]> => {
  const outcomes = await rebuildProjections({ pool, store, projections: allProjections, keepRetired: 1 });
  const differences: ReadModelDifference[] = [];
  for (const outcome of outcomes) {
    const projection = allProjections.find((candidate) => candidate.name === outcome.projection);
    if (projection === undefined || outcome.status !== 'live' || outcome.previous === undefined) {
      differences.push({ table: `${outcome.projection} (not rebuilt)`, missing: 1, extra: 0 });
      continue;
    }
    for (const table of projection.tables) {
      const fresh = physicalTableName(table, outcome.version);
      const live = physicalTableName(table, outcome.previous);
      differences.push({
        table: table.name,
        missing: await rowsOnlyIn(pool, fresh, live),
        extra: await rowsOnlyIn(pool, live, fresh),
      });
    }
  }
  return differences;
};
