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
 * and writes that are buffered and flushed as one multi-row statement per table at the end of the batch.
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
 * Sound only while that writer holds the lease (nobody else writes the tables) and only with rows of committed
 * batches; a failed batch ends the session and its cache.
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

  /** Takes a committed batch's rows. */
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

/** The batch-scoped implementation of `ProjectionTransaction` over one PostgreSQL connection. */
export class BatchUnitOfWork implements ProjectionTransaction {
  private readonly tables = new Map<string, TableState>();

  constructor(
    private readonly client: PoolClient,
    private readonly version: number,
    private readonly cache?: RowCache,
  ) {}

  /** Hands this batch's rows to the session cache; call only after the batch committed. */
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
   * Writes every changed row: per table one DELETE, one plain INSERT of the rows known to be new, and one INSERT …
   * ON CONFLICT DO UPDATE of the others. A row is known new when the batch read it as absent (from the database or
   * the session cache) before writing it; a plain INSERT spares the speculative insertion an upsert pays (its extra
   * WAL record and conflict check), and should the cache ever be wrong it fails on the primary key instead of
   * overwriting.
   */
  async flush(): Promise<number> {
    let written = 0;
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
      if (deletes.length > 0) await this.deleteRows(state, deletes);
      if (inserts.length > 0) await this.writeRows(state, inserts, 'insert');
      if (upserts.length > 0) await this.writeRows(state, upserts, 'upsert');
      written += inserts.length + upserts.length + deletes.length;
      state.dirty.clear();
      state.fresh.clear();
    }
    return written;
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
    const pk = table.primaryKey;
    const arrays = pk.map((column) =>
      keys.map((key) => toParameter(columnOf(table, column), key[column] ?? null)),
    );
    const casts = pk.map((column, index) => `$${index + 1}::${columnOf(table, column).type}[]`).join(', ');
    const result = await this.client.query<Record<string, unknown>>(
      `SELECT * FROM ${quote(state.physical)} WHERE (${pk.map(quote).join(', ')}) IN (SELECT * FROM unnest(${casts}))`,
      arrays,
    );
    for (const key of keys) state.rows.set(keyOf(table, key), null);
    for (const raw of result.rows) {
      const row = fromDatabase(table, raw);
      state.rows.set(keyOf(table, row), row);
    }
  }

  private async writeRows(
    state: TableState,
    rows: readonly AnyRow[],
    mode: 'insert' | 'upsert',
  ): Promise<void> {
    const { table } = state;
    const columns = Object.keys(table.columns);
    const arrays = columns.map((column) =>
      rows.map((row) => toParameter(columnOf(table, column), row[column] ?? null)),
    );
    const casts = columns
      .map((column, index) => `$${index + 1}::${columnOf(table, column).type}[]`)
      .join(', ');
    const updatable = columns.filter((column) => !table.primaryKey.includes(column));
    const onConflict =
      mode === 'insert'
        ? ''
        : `ON CONFLICT (${table.primaryKey.map(quote).join(', ')}) ${
            updatable.length === 0
              ? 'DO NOTHING'
              : `DO UPDATE SET ${updatable.map((column) => `${quote(column)} = EXCLUDED.${quote(column)}`).join(', ')}`
          }`;
    await this.client.query(
      `INSERT INTO ${quote(state.physical)} (${columns.map(quote).join(', ')})
       SELECT * FROM unnest(${casts})
       ${onConflict}`,
      arrays,
    );
  }

  private async deleteRows(state: TableState, keys: readonly AnyRow[]): Promise<void> {
    const { table } = state;
    const pk = table.primaryKey;
    const arrays = pk.map((column) =>
      keys.map((key) => toParameter(columnOf(table, column), key[column] ?? null)),
    );
    const casts = pk.map((column, index) => `$${index + 1}::${columnOf(table, column).type}[]`).join(', ');
    await this.client.query(
      `DELETE FROM ${quote(state.physical)} WHERE (${pk.map(quote).join(', ')}) IN (SELECT * FROM unnest(${casts}))`,
      arrays,
    );
  }
}

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
