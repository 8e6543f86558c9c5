import type { PoolClient } from 'pg';
import type { ColumnDefinition, ColumnValue, RowKey, TableDefinition } from './table-definition.js';
import { physicalTableName, quote } from './table-definition.js';

type AnyRow = Record<string, ColumnValue>;
type AnyTable = TableDefinition<AnyRow>;

/** A row a projection will read while applying an event, so the batch can load it up front. */
export interface RowRef {
  readonly table: AnyTable;
  readonly key: Readonly<Record<string, ColumnValue>>;
}

/**
 * Names a row to load before a batch is applied.
 *
 * @example
 * rowRef(invoicesTable, { tenant_id: 't1', invoice_id: 'i1' });
 */
export const rowRef = <Row extends AnyRow>(table: TableDefinition<Row>, key: RowKey<Row>): RowRef => ({
  table: table as unknown as AnyTable,
  key: key as Readonly<Record<string, ColumnValue>>,
});

/**
 * What a projection sees while applying one event: rows by primary key, read through a batch cache,
 * and writes that are buffered and written at the end of the batch, one statement for the whole batch.
 */
export interface ProjectionTransaction {
  /** The current row (including this batch's writes), or undefined. */
  get<Row extends AnyRow>(table: TableDefinition<Row>, key: RowKey<Row>): Promise<Row | undefined>;
  /** Inserts or replaces a row. */
  put<Row extends AnyRow>(table: TableDefinition<Row>, row: Row): void;
  /** Removes a row if present. */
  delete<Row extends AnyRow>(table: TableDefinition<Row>, key: RowKey<Row>): void;
}

interface TableState {
  readonly table: AnyTable;
  readonly physical: string;
  readonly rows: Map<string, AnyRow | null>;
  readonly dirty: Set<string>;
  /** Dirty rows known to be absent from the table when this batch first wrote them: a plain INSERT creates them. */
  readonly fresh: Set<string>;
}

interface CachedTable {
  readonly rows: Map<string, AnyRow | null>;
  /** Every row of the table is in `rows` (it was empty when the writer took over, and nothing was evicted). */
  complete: boolean;
}

/**
 * Rows kept across the batches of one writer's session, so a batch reads from memory what earlier batches wrote.
 * Sound only while that writer holds the lease (nobody else writes the tables), with batches handed over in the order
 * they are written, and while a failed batch ends the session and its cache: a batch's rows are handed over before
 * its commit, so the next batch can be applied while this one is being written.
 */
export class RowCache {
  private readonly tables = new Map<string, CachedTable>();

  constructor(private readonly capacityPerTable: number) {}

  /** Records that a physical table holds no rows, so a miss means "absent" without asking the database. */
  markEmpty(physical: string): void {
    this.tableOf(physical).complete = true;
  }

  /** The cached row (null: known absent), or undefined when the cache does not know. */
  lookup(physical: string, id: string): AnyRow | null | undefined {
    const table = this.tables.get(physical);
    if (!table) return undefined;
    const row = table.rows.get(id);
    if (row !== undefined) return row;
    return table.complete ? null : undefined;
  }

  /** Takes a batch's rows (read or written). */
  remember(physical: string, rows: ReadonlyMap<string, AnyRow | null>): void {
    const table = this.tableOf(physical);
    for (const [id, row] of rows) {
      table.rows.delete(id);
      table.rows.set(id, row);
    }
    if (table.rows.size <= this.capacityPerTable) return;
    table.complete = false;
    for (const id of table.rows.keys()) {
      if (table.rows.size <= this.capacityPerTable * 0.8) break;
      table.rows.delete(id);
    }
  }

  private tableOf(physical: string): CachedTable {
    let table = this.tables.get(physical);
    if (!table) this.tables.set(physical, (table = { rows: new Map(), complete: false }));
    return table;
  }
}

/** A statement being built from parts: its values, each added where its text needs it, and its parts' names. */
export class StatementParameters {
  readonly values: unknown[] = [];
  private parts = 0;

  /** Adds a value; answers its placeholder (`$3`). */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** A name for one more part of the statement's `WITH` (`change_2`). */
  partName(): string {
    this.parts += 1;
    return `change_${this.parts}`;
  }
}

/** What a batch changed in one table: rows to delete, to insert (known new), and to insert or replace. */
interface TableChanges {
  readonly state: TableState;
  readonly deletes: readonly AnyRow[];
  readonly inserts: readonly AnyRow[];
  readonly upserts: readonly AnyRow[];
}

/** The batch-scoped implementation of `ProjectionTransaction` over one PostgreSQL connection. */
export class BatchUnitOfWork implements ProjectionTransaction {
  private readonly tables = new Map<string, TableState>();

  /**
   * @param client the connection the batch reads (and, with `flush`, writes) on
   * @param version the projection version whose tables are written
   * @param cache the session's rows, read before the database
   * @param readsAfter reads from the database wait for it: the write of the batch before, still in flight while
   *   this one is applied (so a row that batch wrote and the cache no longer holds is read once committed)
   */
  constructor(
    private readonly client: PoolClient,
    private readonly version: number,
    private readonly cache?: RowCache,
    private readonly readsAfter?: Promise<void>,
  ) {}

  /** Hands this batch's rows to the session cache, for the batches after it (see `RowCache`). */
  publish(): void {
    if (!this.cache) return;
    for (const state of this.tables.values()) this.cache.remember(state.physical, state.rows);
  }

  /** Copies what the session cache knows into the batch; true when the row is now known. */
  private fromCache(state: TableState, id: string): boolean {
    const cached = this.cache?.lookup(state.physical, id);
    if (cached === undefined) return false;
    state.rows.set(id, cached);
    return true;
  }

  /** Loads the given rows (those not already cached) with one query per table. */
  async prefetch(refs: readonly RowRef[]): Promise<void> {
    const missing = new Map<TableState, Map<string, Readonly<Record<string, ColumnValue>>>>();
    for (const ref of refs) {
      const state = this.stateOf(ref.table);
      const id = keyOf(ref.table, ref.key);
      if (state.rows.has(id) || this.fromCache(state, id)) continue;
      let keys = missing.get(state);
      if (!keys) missing.set(state, (keys = new Map()));
      keys.set(id, ref.key);
    }
    for (const [state, keys] of missing) await this.load(state, [...keys.values()]);
  }

  async get<Row extends AnyRow>(table: TableDefinition<Row>, key: RowKey<Row>): Promise<Row | undefined> {
    const anyTable = table as unknown as AnyTable;
    const state = this.stateOf(anyTable);
    const id = keyOf(anyTable, key as Record<string, ColumnValue>);
    if (!state.rows.has(id) && !this.fromCache(state, id))
      await this.load(state, [key as Record<string, ColumnValue>]);
    return (state.rows.get(id) ?? undefined) as Row | undefined;
  }

  put<Row extends AnyRow>(table: TableDefinition<Row>, row: Row): void {
    const anyTable = table as unknown as AnyTable;
    const state = this.stateOf(anyTable);
    const id = keyOf(anyTable, row);
    if (!state.dirty.has(id) && state.rows.get(id) === null) state.fresh.add(id);
    state.rows.set(id, row);
    state.dirty.add(id);
  }

  delete<Row extends AnyRow>(table: TableDefinition<Row>, key: RowKey<Row>): void {
    const anyTable = table as unknown as AnyTable;
    const state = this.stateOf(anyTable);
    const id = keyOf(anyTable, key as Record<string, ColumnValue>);
    state.rows.set(id, null);
    state.dirty.add(id);
  }

  /**
   * The changes to write as parts of one statement (see `changeStatements`), their values added to `parameters` (so
   * they are fixed now, whatever later happens to the row objects); the rows are then no longer counted as changed.
   */
  takeChanges(parameters: StatementParameters): string[] {
    const changes: TableChanges[] = [];
    for (const state of this.tables.values()) {
      if (state.dirty.size === 0) continue;
      const inserts: AnyRow[] = [];
      const upserts: AnyRow[] = [];
      const deletes: AnyRow[] = [];
      for (const id of state.dirty) {
        const row = state.rows.get(id);
        if (!row) deletes.push(keyRowOf(state.table, id));
        else if (state.fresh.has(id)) inserts.push(row);
        else upserts.push(row);
      }
      changes.push({ state, deletes, inserts, upserts });
      state.dirty.clear();
      state.fresh.clear();
    }
    return changeStatements(changes, parameters);
  }

  /** Writes every changed row with one statement, on the unit's connection. */
  async flush(): Promise<void> {
    const parameters = new StatementParameters();
    const parts = this.takeChanges(parameters);
    if (parts.length === 0) return;
    await this.client.query(`WITH ${parts.join(', ')} SELECT 1`, parameters.values);
  }

  private stateOf(table: AnyTable): TableState {
    let state = this.tables.get(table.name);
    if (!state) {
      state = {
        table,
        physical: physicalTableName(table, this.version),
        rows: new Map(),
        dirty: new Set(),
        fresh: new Set(),
      };
      this.tables.set(table.name, state);
    }
    return state;
  }

  private async load(
    state: TableState,
    keys: readonly Readonly<Record<string, ColumnValue>>[],
  ): Promise<void> {
    const { table } = state;
    const parameters = new StatementParameters();
    const match = byPrimaryKey(table, keys, parameters);
    await this.readsAfter;
    const result = await this.client.query<Record<string, unknown>>(
      `SELECT * FROM ${quote(state.physical)} WHERE ${match}`,
      parameters.values,
    );
    for (const key of keys) state.rows.set(keyOf(table, key), null);
    for (const raw of result.rows) {
      const row = fromDatabase(table, raw);
      state.rows.set(keyOf(table, row), row);
    }
  }
}

/**
 * The parts of a `WITH` that write the changes given, each named by `parameters`: per table a DELETE, a plain
 * INSERT of the rows known to be new, and an INSERT … ON CONFLICT DO UPDATE of the others, each from arrays of column
 * values. A row is known new when the batch read it as absent (from the database or the session cache) before writing
 * it; a plain INSERT spares the speculative insertion an upsert pays (its extra WAL record and conflict check), and
 * should the cache ever be wrong it fails on the primary key instead of overwriting.
 *
 * The parts of one statement run in no set order, so the inserts and upserts first read how many rows the deletes
 * removed: that runs the deletes to their end before any row is written, and a row may take the unique key of one
 * deleted in the same batch.
 */
const changeStatements = (changes: readonly TableChanges[], parameters: StatementParameters): string[] => {
  const parts: string[] = [];
  const deleted: string[] = [];
  for (const { state, deletes } of changes) {
    if (deletes.length === 0) continue;
    const match = byPrimaryKey(state.table, deletes, parameters);
    const name = parameters.partName();
    deleted.push(name);
    parts.push(`${name} AS (DELETE FROM ${quote(state.physical)} WHERE ${match} RETURNING 1)`);
  }
  const afterDeletes =
    deleted.length === 0
      ? ''
      : `WHERE (${deleted.map((part) => `(SELECT count(*) FROM ${part})`).join(' + ')}) >= 0`;
  for (const { state, inserts, upserts } of changes) {
    for (const [rows, mode] of [
      [inserts, 'insert'],
      [upserts, 'upsert'],
    ] as const) {
      if (rows.length === 0) continue;
      const { table } = state;
      const columns = Object.keys(table.columns);
      const values = columnArrays(table, columns, rows, parameters);
      const updatable = columns.filter((column) => !table.primaryKey.includes(column));
      const onConflict =
        mode === 'insert'
          ? ''
          : ` ON CONFLICT (${table.primaryKey.map(quote).join(', ')}) ${
              updatable.length === 0
                ? 'DO NOTHING'
                : `DO UPDATE SET ${updatable.map((column) => `${quote(column)} = EXCLUDED.${quote(column)}`).join(', ')}`
            }`;
      parts.push(
        `${parameters.partName()} AS (INSERT INTO ${quote(state.physical)} (${columns.map(quote).join(', ')}) SELECT * FROM unnest(${values}) ${afterDeletes}${onConflict})`,
      );
    }
  }
  return parts;
};

/** One array parameter per column, each cast to its column's type: `$3::text[], $4::bigint[]`. */
const columnArrays = (
  table: AnyTable,
  columns: readonly string[],
  rows: readonly Readonly<Record<string, ColumnValue>>[],
  parameters: StatementParameters,
): string =>
  columns
    .map((column) => {
      const definition = columnOf(table, column);
      const values = rows.map((row) => toParameter(definition, row[column] ?? null));
      return `${parameters.add(values)}::${definition.type}[]`;
    })
    .join(', ');

/** The condition that selects the rows of the given keys: `("a", "b") IN (SELECT * FROM unnest($1::text[], …))`. */
const byPrimaryKey = (
  table: AnyTable,
  keys: readonly Readonly<Record<string, ColumnValue>>[],
  parameters: StatementParameters,
): string =>
  `(${table.primaryKey.map(quote).join(', ')}) IN (SELECT * FROM unnest(${columnArrays(table, table.primaryKey, keys, parameters)}))`;

const keySeparator = '\u0000';

const keyOf = (table: AnyTable, key: Readonly<Record<string, ColumnValue>>): string =>
  table.primaryKey
    .map((column) => {
      const value = key[column];
      if (value === undefined || value === null)
        throw new Error(`${table.name}: key column ${column} is missing`);
      return String(value);
    })
    .join(keySeparator);

const keyRowOf = (table: AnyTable, id: string): AnyRow => {
  const parts = id.split(keySeparator);
  return Object.fromEntries(
    table.primaryKey.map((column, index) => {
      const text = parts[index] ?? '';
      const type = columnOf(table, column).type;
      return [column, type === 'integer' || type === 'bigint' ? Number(text) : text];
    }),
  );
};

const columnOf = (table: AnyTable, column: string): ColumnDefinition => {
  const definition = table.columns[column];
  if (!definition) throw new Error(`${table.name} has no column ${column}`);
  return definition;
};

const toParameter = (column: ColumnDefinition, value: ColumnValue): unknown => {
  if (value === null) return null;
  if (column.type === 'jsonb') return JSON.stringify(value);
  return value;
};

/** Turns a row as `pg` returns it into the JavaScript shape projections write (so rows compare equal). */
export const fromDatabase = (table: AnyTable, raw: Readonly<Record<string, unknown>>): AnyRow => {
  const row: Record<string, ColumnValue> = {};
  for (const [column, definition] of Object.entries(table.columns) as [string, ColumnDefinition][]) {
    const value = raw[column];
    if (value === null || value === undefined) row[column] = null;
    else if (definition.type === 'bigint') row[column] = Number(value);
    else if (definition.type === 'timestamptz')
      row[column] = value instanceof Date ? value.toISOString() : String(value);
    else row[column] = value as ColumnValue;
  }
  return row;
};
