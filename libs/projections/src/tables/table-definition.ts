/** The PostgreSQL type of a read-model column, and how its values look in JavaScript. */
export type ColumnType = 'text' | 'integer' | 'bigint' | 'boolean' | 'timestamptz' | 'jsonb';

/** JavaScript values per column type: `bigint` columns hold safe integers (money in minor units). */
export type ColumnValue =
  string | number | boolean | null | readonly unknown[] | { readonly [key: string]: unknown };

/** One column of a read-model table. */
export interface ColumnDefinition {
  readonly type: ColumnType;
  /** NOT NULL unless set. */
  readonly nullable?: boolean;
  /**
   * False for a column no statement filters, joins or sorts on (a stored body, say): ANALYZE then gathers no
   * statistics of it, which for long values costs more than the rest of the row's.
   */
  readonly analyzed?: boolean;
}

/**
 * A read-model table, declared once; each projection version gets its own physical copy
 * (`<name>_v<version>`), and the live version is served through a view named `<name>`.
 */
export interface TableDefinition<Row extends Record<string, ColumnValue> = Record<string, ColumnValue>> {
  readonly name: string;
  readonly columns: { readonly [Column in keyof Row & string]: ColumnDefinition };
  readonly primaryKey: readonly (keyof Row & string)[];
  /** Extra unique constraints, each a list of columns. */
  readonly unique?: readonly (readonly (keyof Row & string)[])[];
  /** Secondary indexes, each a list of columns, or columns and the rows a partial index covers. */
  readonly indexes?: readonly IndexDefinition<Row>[];
}

/**
 * A secondary index: its columns, or its columns with `where`, an SQL condition on the row's columns naming the rows
 * it covers (a row outside it costs the index nothing on write), and `using: 'gin'` for an inverted index over a
 * `jsonb` column's elements (what `@>` looks up).
 */
export type IndexDefinition<Row extends Record<string, ColumnValue> = Record<string, ColumnValue>> =
  | readonly (keyof Row & string)[]
  | {
      readonly columns: readonly (keyof Row & string)[];
      readonly where?: string;
      readonly using?: 'gin';
    };

/** The primary-key part of a row. */
export type RowKey<Row> = Partial<Row>;

/**
 * Declares a read-model table with a typed row.
 *
 * @param definition columns, primary key, unique constraints and indexes
 * @example
 * interface NoteRow { tenant_id: string; note_id: string; body: string }
 * const notes = defineTable<NoteRow>({
 *   name: 'notes',
 *   columns: { tenant_id: { type: 'text' }, note_id: { type: 'text' }, body: { type: 'text' } },
 *   primaryKey: ['tenant_id', 'note_id'],
 * });
 */
export const defineTable = <Row extends Record<string, ColumnValue>>(
  definition: TableDefinition<Row>,
): TableDefinition<Row> => {
  assertIdentifier(definition.name);
  for (const column of Object.keys(definition.columns)) assertIdentifier(column);
  if (definition.primaryKey.length === 0) throw new Error(`table ${definition.name} needs a primary key`);
  return definition;
};

/** The physical table of one projection version. */
export const physicalTableName = (table: Pick<TableDefinition, 'name'>, version: number): string =>
  `${table.name}_v${version}`;

/** DDL creating a version's physical table with its constraints and indexes (idempotent). */
export const tableDdl = (table: TableDefinition, version: number): string => {
  const physical = physicalTableName(table, version);
  const columns = Object.entries(table.columns).map(
    ([name, column]: [string, ColumnDefinition]) =>
      `${quote(name)} ${column.type}${column.nullable ? '' : ' NOT NULL'}`,
  );
  const constraints = [
    `PRIMARY KEY (${table.primaryKey.map(quote).join(', ')})`,
    ...(table.unique ?? []).map((columns) => `UNIQUE (${columns.map(quote).join(', ')})`),
  ];
  const indexes = (table.indexes ?? []).map((definition, index) => {
    const { columns, where, using } =
      'columns' in definition ? definition : { columns: definition, where: undefined, using: undefined };
    const method = using === undefined ? '' : ` USING ${using}`;
    return `CREATE INDEX IF NOT EXISTS ${quote(`${physical}_i${index}`)} ON ${quote(physical)}${method} (${columns.map(quote).join(', ')})${where === undefined ? '' : ` WHERE ${where}`};`;
  });
  const unanalyzed = Object.entries(table.columns)
    .filter(([, column]: [string, ColumnDefinition]) => column.analyzed === false)
    .map(([name]) => `ALTER COLUMN ${quote(name)} SET STATISTICS 0`);
  return [
    `CREATE TABLE IF NOT EXISTS ${quote(physical)} (\n  ${[...columns, ...constraints].join(',\n  ')}\n);`,
    ...(unanalyzed.length === 0 ? [] : [`ALTER TABLE ${quote(physical)} ${unanalyzed.join(', ')};`]),
    ...indexes,
  ].join('\n');
};

/** Quotes a SQL identifier that `assertIdentifier` accepted. */
export const quote = (identifier: string): string => `"${identifier}"`;

const assertIdentifier = (identifier: string): void => {
  if (!/^[a-z_][a-z0-9_]{0,50}$/.test(identifier)) throw new Error(`not a plain identifier: ${identifier}`);
};
