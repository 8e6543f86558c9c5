import type { Pool, PoolClient } from 'pg';
import { migrate } from '@once/postgres';
import type { ProjectionDefinition } from '../runner/projection-definition.js';
import { physicalTableName, quote, tableDdl } from '../tables/table-definition.js';

/** One version of a projection and its state. */
export interface ProjectionVersion {
  readonly name: string;
  readonly version: number;
  readonly definitionVersion: number;
  readonly state: 'building' | 'live' | 'retired';
}

interface VersionRow {
  name: string;
  version: number;
  definition_version: number;
  state: ProjectionVersion['state'];
}

const toVersion = (row: VersionRow): ProjectionVersion => ({
  name: row.name,
  version: row.version,
  definitionVersion: row.definition_version,
  state: row.state,
});

/** Every version of a projection, oldest first. */
export const listVersions = async (
  pool: Pool | PoolClient,
  name: string,
): Promise<readonly ProjectionVersion[]> => {
  const result = await pool.query<VersionRow>(
    'SELECT name, version, definition_version, state FROM projection_versions WHERE name = $1 ORDER BY version',
    [name],
  );
  return result.rows.map(toVersion);
};

/** The version reads are served from, if any. */
export const getLiveVersion = async (
  pool: Pool | PoolClient,
  name: string,
): Promise<ProjectionVersion | undefined> =>
  (await listVersions(pool, name)).find((version) => version.state === 'live');

/**
 * Makes sure a projection has a live version: on first start, version 1 is created and goes live at once
 * (its tables fill as the runner catches up). Returns the live version.
 *
 * @example
 * const live = await ensureLiveVersion(pool, invoicesProjection);
 */
export const ensureLiveVersion = async (
  pool: Pool,
  projection: ProjectionDefinition,
): Promise<ProjectionVersion> => {
  const live = await withVersionsLock(
    pool,
    projection.name,
    async (client) =>
      (await getLiveVersion(client, projection.name)) ?? insertVersion(client, projection, 'live'),
  );
  await createVersionTables(pool, projection, live.version);
  await withVersionsLock(pool, projection.name, async (client) => {
    const current = await getLiveVersion(client, projection.name);
    if (current?.version !== live.version) return;
    const views = await client.query<{ missing: boolean }>(
      'SELECT bool_or(to_regclass(name) IS NULL) AS missing FROM unnest($1::text[]) AS name',
      [projection.tables.map((table) => table.name)],
    );
    if (views.rows[0]?.missing) await pointViewsAt(client, projection, live.version);
  });
  return live;
};

/**
 * The version a rebuild fills: the one already being built by this definition (so an interrupted rebuild resumes),
 * or a new one with empty tables. A building version left by another definition revision is dropped.
 *
 * @example
 * const building = await startBuildingVersion(pool, invoicesProjection);
 */
export const startBuildingVersion = async (
  pool: Pool,
  projection: ProjectionDefinition,
): Promise<ProjectionVersion> => {
  const { version, stale } = await withVersionsLock(pool, projection.name, async (client) => {
    const versions = await listVersions(client, projection.name);
    const building = versions.find((candidate) => candidate.state === 'building');
    if (building && building.definitionVersion === projection.version)
      return { version: building, stale: undefined };
    if (building) {
      await client.query('UPDATE projection_versions SET state = $3 WHERE name = $1 AND version = $2', [
        projection.name,
        building.version,
        'retired',
      ]);
    }
    return { version: await insertVersion(client, projection, 'building'), stale: building };
  });
  if (stale) await dropVersion(pool, projection, stale.version);
  await createVersionTables(pool, projection, version.version);
  return version;
};

/**
 * Switches reads to `version` in one transaction: it becomes live, the previous live version is retired, and the
 * views named after the tables point at its tables. Returns false when `version` is no longer being built.
 *
 * @example
 * await makeVersionLive(pool, invoicesProjection, 2);
 */
export const makeVersionLive = async (
  pool: Pool,
  projection: ProjectionDefinition,
  version: number,
): Promise<boolean> =>
  withVersionsLock(pool, projection.name, async (client) => {
    const versions = await listVersions(client, projection.name);
    const target = versions.find((candidate) => candidate.version === version);
    if (!target || target.state !== 'building') return false;
    await client.query(
      `UPDATE projection_versions SET state = 'retired' WHERE name = $1 AND state = 'live'`,
      [projection.name],
    );
    await client.query(
      `UPDATE projection_versions SET state = 'live', live_since = now() WHERE name = $1 AND version = $2`,
      [projection.name, version],
    );
    await pointViewsAt(client, projection, version);
    return true;
  });

/**
 * Drops the tables and checkpoint of retired versions, keeping the `keep` most recent ones (to switch back to).
 *
 * @example
 * await dropRetiredVersions(pool, invoicesProjection, 1);
 */
export const dropRetiredVersions = async (
  pool: Pool,
  projection: ProjectionDefinition,
  keep: number,
): Promise<readonly number[]> => {
  const retired = (await listVersions(pool, projection.name)).filter(
    (version) => version.state === 'retired',
  );
  const doomed = retired.slice(0, Math.max(0, retired.length - keep)).map((version) => version.version);
  for (const version of doomed) await dropVersion(pool, projection, version);
  return doomed;
};

const dropVersion = async (pool: Pool, projection: ProjectionDefinition, version: number): Promise<void> => {
  await withVersionsLock(pool, projection.name, async (client) => {
    for (const table of projection.tables) {
      await client.query(`DROP TABLE IF EXISTS ${quote(physicalTableName(table, version))}`);
    }
    await client.query('DELETE FROM projection_checkpoints WHERE name = $1 AND version = $2', [
      projection.name,
      version,
    ]);
    await client.query('DELETE FROM projection_versions WHERE name = $1 AND version = $2', [
      projection.name,
      version,
    ]);
    await client.query('DELETE FROM once_migrations WHERE component = $1', [
      versionComponent(projection, version),
    ]);
  });
};

const insertVersion = async (
  client: PoolClient,
  projection: ProjectionDefinition,
  state: 'building' | 'live',
): Promise<ProjectionVersion> => {
  const result = await client.query<VersionRow>(
    `INSERT INTO projection_versions (name, version, definition_version, state, live_since)
     SELECT $1, COALESCE(MAX(version), 0) + 1, $2, $3, CASE WHEN $3 = 'live' THEN now() END
       FROM projection_versions WHERE name = $1
     RETURNING name, version, definition_version, state`,
    [projection.name, projection.version, state],
  );
  const row = result.rows[0] as VersionRow;
  await client.query(
    'INSERT INTO projection_checkpoints (name, version, position) VALUES ($1, $2, NULL) ON CONFLICT DO NOTHING',
    [projection.name, row.version],
  );
  return toVersion(row);
};

const versionComponent = (projection: ProjectionDefinition, version: number): string =>
  `projection:${projection.name}:v${version}`;

const createVersionTables = async (
  pool: Pool,
  projection: ProjectionDefinition,
  version: number,
): Promise<void> => {
  await migrate(pool, versionComponent(projection, version), [
    {
      version: 1,
      name: `${projection.name} tables`,
      sql: projection.tables.map((table) => tableDdl(table, version)).join('\n'),
    },
  ]);
};

const pointViewsAt = async (
  client: PoolClient,
  projection: ProjectionDefinition,
  version: number,
): Promise<void> => {
  for (const table of projection.tables) {
    await client.query(`DROP VIEW IF EXISTS ${quote(table.name)}`);
    await client.query(
      `CREATE VIEW ${quote(table.name)} AS SELECT * FROM ${quote(physicalTableName(table, version))}`,
    );
  }
};

const withVersionsLock = async <T>(
  pool: Pool,
  name: string,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> => {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `projection-versions:${name}`,
    ]);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
};
