import type { Pool } from 'pg';
import { migrate } from '@once/postgres';
import type { Migration } from '@once/postgres';

/** The SQLSTATE of a batch whose checkpoint compare-and-set found another writer's position. */
export const checkpointConflictCode = 'OP409';

const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'projection versions and checkpoints',
    sql: `
      CREATE TABLE projection_versions (
        name               text        NOT NULL,
        version            integer     NOT NULL CHECK (version > 0),
        definition_version integer     NOT NULL,
        state              text        NOT NULL CHECK (state IN ('building', 'live', 'retired')),
        created_at         timestamptz NOT NULL DEFAULT now(),
        live_since         timestamptz,
        PRIMARY KEY (name, version)
      );
      CREATE UNIQUE INDEX projection_versions_one_live ON projection_versions (name) WHERE state = 'live';
      CREATE UNIQUE INDEX projection_versions_one_building ON projection_versions (name) WHERE state = 'building';
      CREATE TABLE projection_checkpoints (
        name       text        NOT NULL,
        version    integer     NOT NULL,
        position   text,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (name, version)
      );
    `,
  },
  {
    version: 2,
    name: 'a batch fails when a checkpoint it moves was moved by another writer',
    sql: `
      CREATE FUNCTION projection_checkpoints_moved(moved bigint, expected integer) RETURNS bigint
      LANGUAGE plpgsql AS $$
      BEGIN
        IF moved <> expected THEN
          RAISE EXCEPTION 'a projection checkpoint was moved by another writer' USING ERRCODE = '${checkpointConflictCode}';
        END IF;
        RETURN moved;
      END $$;
    `,
  },
];

/**
 * Creates the bookkeeping tables every projection shares: which version of each projection is live,
 * and each (projection, version)'s checkpoint.
 *
 * @example
 * await migrateProjectionsSchema(pool);
 */
export const migrateProjectionsSchema = async (pool: Pool): Promise<void> => {
  await migrate(pool, 'projections', migrations);
};
