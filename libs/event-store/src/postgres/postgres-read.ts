import type { Pool } from 'pg';
import type {
  GlobalFilter,
  ReadAllBatch,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamRevision,
  StreamTail,
  StreamTailRead,
} from '../port/index.js';
import { eventRowTypes } from './event-row-types.js';

interface EventRow {
  event_id: string;
  stream: string;
  revision: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  transaction_id: string;
  global_position: string;
  recorded_at: Date;
}

// A tail read knows each row's stream by its place in the list, so it leaves the name out.
const eventColumnsButStream =
  'e.event_id, e.revision, e.type, e.data, e.metadata, e.transaction_id::text AS transaction_id, e.global_position, e.recorded_at';
const eventColumns = `e.stream, ${eventColumnsButStream}`;

// The same rule for reads of one stream, against that stream's own row joined by its name: at most one row found
// through the primary key, whatever the planner thinks of the table. (A correlated NOT EXISTS leaves the planner
// free to hash the whole set of retention rows, one per idempotency key, and a cached plan that does so made every
// read cost milliseconds once there were a few thousand keys.)
const streamWithRetention = (stream: string): string =>
  `LEFT JOIN streams r ON r.stream = ${stream}
     AND (r.max_age_seconds IS NOT NULL OR r.truncate_before IS NOT NULL)`;
const visibleInStream = (now: string): string =>
  `NOT coalesce(e.revision < r.truncate_before, false)
   AND NOT coalesce(e.recorded_at < coalesce(${now}, now()) - make_interval(secs => r.max_age_seconds), false)`;

const toRecordedEvent = (row: Omit<EventRow, 'stream'>, stream: string): RecordedEvent => ({
  id: row.event_id,
  stream,
  revision: BigInt(row.revision),
  type: row.type,
  data: row.data,
  metadata: row.metadata,
  position: { commit: BigInt(row.transaction_id), prepare: BigInt(row.global_position) },
  recordedAt: row.recorded_at,
});

const readForwards = {
  name: 'once_event_store_read_forwards',
  types: eventRowTypes,
  text: `SELECT ${eventColumns} FROM events e ${streamWithRetention('$1')}
          WHERE e.stream = $1 AND e.revision >= $2 AND ${visibleInStream('$4::timestamptz')}
          ORDER BY e.revision ASC LIMIT $3`,
};
const readBackwards = {
  name: 'once_event_store_read_backwards',
  types: eventRowTypes,
  text: `SELECT ${eventColumns} FROM events e ${streamWithRetention('$1')}
          WHERE e.stream = $1 AND e.revision <= $2 AND ${visibleInStream('$4::timestamptz')}
          ORDER BY e.revision DESC LIMIT $3`,
};

const maxRevision = '9223372036854775807';

/** Reads one stream; an absent or fully expired stream reads as empty. */
export const readStreamRows = async (
  pool: Pool,
  stream: string,
  options: ReadStreamOptions,
  now: Date | null,
): Promise<readonly RecordedEvent[]> => {
  const direction = options.direction ?? 'forwards';
  const from = options.fromRevision ?? (direction === 'forwards' ? 'start' : 'end');
  const limit = options.maxCount === undefined ? null : Math.max(0, options.maxCount);
  if (limit === 0) return [];
  if (direction === 'forwards') {
    if (from === 'end') return [];
    const start = from === 'start' ? '0' : from.toString();
    const { rows } = await pool.query<EventRow>({ ...readForwards, values: [stream, start, limit, now] });
    return rows.map((row) => toRecordedEvent(row, row.stream));
  }
  if (from === 'start') return [];
  const start = from === 'end' ? maxRevision : from.toString();
  const { rows } = await pool.query<EventRow>({ ...readBackwards, values: [stream, start, limit, now] });
  return rows.map((row) => toRecordedEvent(row, row.stream));
};

// Several streams in one statement, one index range each, driven by a VALUES list of scalar parameters: one prepared
// statement per stream count. The array form below plans the same ranges, but PostgreSQL re-plans it on every call
// (its generic plan, costed for an array of unknown length, never wins) and that planning cost more than the read.
// A VALUES list has a known length, so its generic plan is cached; and unlike a UNION ALL of single-stream reads it
// gives the planner no Parallel Append to start workers for. Above `maxListedStreams` the array form is used.
const maxListedStreams = 8;

// Each stream's events from a revision of its own, and its head row (revision and retention) found through the
// primary key: one row per stream at least (event columns NULL when nothing is new), so the caller learns the head of
// a stream that has nothing new. A read with an `unless_exists` name is skipped when that stream's row (`gate`, by
// the primary key) has a head: it is filtered out right after that lookup, before its own head and events, and sends
// no row at all (a replay's read of its key log is one row, not one per stream listed). A stream's row moves with
// every append, in the same transaction, so no event lies beyond its head: a stream that has no row, or nothing past
// `from_revision`, costs no probe of the events.
const readTailsText = (reads: string, now: string): string =>
  `SELECT r.ord, h.revision AS head,
          coalesce(h.max_age_seconds IS NOT NULL OR h.truncate_before IS NOT NULL, false) AS retained,
          ${eventColumnsButStream}
     FROM ${reads}
     LEFT JOIN streams gate ON gate.stream = r.unless_exists
     CROSS JOIN LATERAL (SELECT coalesce(gate.revision >= 0, false) AS skipped) k
     LEFT JOIN streams h ON h.stream = r.stream AND NOT k.skipped
     LEFT JOIN LATERAL (
       SELECT e.* FROM events e
        WHERE h.revision >= r.from_revision AND e.stream = r.stream AND e.revision >= r.from_revision
          AND NOT coalesce(e.revision < h.truncate_before, false)
          AND NOT coalesce(e.recorded_at < coalesce(${now}, now()) - make_interval(secs => h.max_age_seconds), false)
        ORDER BY e.revision ASC) e ON true
    WHERE NOT k.skipped
    ORDER BY r.ord, e.revision ASC`;
/** The tail read's prepared statements, by how many streams they list (one to `maxListedStreams`). */
export const readTailsStatements = Array.from({ length: maxListedStreams }, (_, index) => {
  const count = index + 1;
  const list = Array.from(
    { length: count },
    (_, item) => `(${item + 1}, $${3 * item + 1}::text, $${3 * item + 2}::bigint, $${3 * item + 3}::text)`,
  ).join(', ');
  return {
    name: `once_event_store_read_tails_${count}`,
    types: eventRowTypes,
    text: readTailsText(
      `(VALUES ${list}) AS r(ord, stream, from_revision, unless_exists)`,
      `$${3 * count + 1}::timestamptz`,
    ),
  };
});
const readTailsByArray = {
  name: 'once_event_store_read_tails',
  types: eventRowTypes,
  text: readTailsText(
    'unnest($1::text[], $2::bigint[], $3::text[]) WITH ORDINALITY AS r(stream, from_revision, unless_exists, ord)',
    '$4::timestamptz',
  ),
};

interface TailRow extends Omit<EventRow, 'stream'> {
  ord: number;
  head: string | null;
  retained: boolean;
}

/** A `StreamTail` as its rows arrive. */
interface TailBeingRead {
  events: RecordedEvent[];
  head: StreamRevision | undefined;
  retained: boolean;
}

/** Reads each stream given from its own revision, with its head, in one statement (see `EventStore.readStreamTails`). */
export const readStreamTailsRows = async (
  pool: Pool,
  reads: readonly StreamTailRead[],
  now: Date | null,
): Promise<readonly StreamTail[]> => {
  if (reads.length === 0) return [];
  const statement = readTailsStatements[reads.length - 1];
  const { rows } = await pool.query<TailRow>(
    statement === undefined
      ? {
          ...readTailsByArray,
          values: [
            reads.map((read) => read.stream),
            reads.map((read) => read.fromRevision.toString()),
            reads.map((read) => read.unlessExists ?? null),
            now,
          ],
        }
      : {
          ...statement,
          values: [
            ...reads.flatMap((read) => [
              read.stream,
              read.fromRevision.toString(),
              read.unlessExists ?? null,
            ]),
            now,
          ],
        },
  );
  // A read that is not skipped sends a row at least, so a tail is made by its first row; a read with none was skipped.
  const tails: (TailBeingRead | undefined)[] = [];
  for (const row of rows) {
    const index = row.ord - 1;
    const read = reads[index];
    if (read === undefined) continue;
    const tail = (tails[index] ??= { events: [], head: undefined, retained: false });
    tail.head = row.head === null || row.head === '-1' ? undefined : BigInt(row.head);
    tail.retained = row.retained;
    if (row.event_id !== null) tail.events.push(toRecordedEvent(row, read.stream));
  }
  return reads.map(
    (_, index) => tails[index] ?? { events: [], head: undefined, retained: false, skipped: true },
  );
};

// What a page of the global order sends for each row: its place and identity, and its payload only where it matches.
const pageColumns = `e.transaction_id::text AS transaction_id, e.global_position, m.matches,
          e.event_id, e.stream, e.revision, e.type, e.recorded_at,
          CASE WHEN m.matches THEN e.data END AS data,
          CASE WHEN m.matches THEN e.metadata END AS metadata`;

// Whether the row `e` type and stream pass the filters (`$types`, `$prefixes`).
const passesFilters = (types: string, prefixes: string): string =>
  `(${types}::text[] IS NULL OR e.type = ANY(${types}::text[]))
          AND (${prefixes}::text[] IS NULL OR e.stream LIKE ANY(${prefixes}::text[]))`;

// Whether the row `e` is still visible under its stream's retention `r` (not below truncateBefore, not past the age).
const visibleUnderRetention = (now: string): string =>
  `NOT coalesce(e.revision < r.truncate_before, false)
          AND NOT coalesce(e.recorded_at < coalesce(${now}, now()) - make_interval(secs => r.max_age_seconds), false)`;

// The retention of the row's stream, when it has one (`when`: a condition that skips the lookup).
const retentionOfStream = (when = ''): string =>
  `SELECT r.truncate_before, r.max_age_seconds FROM streams r
        WHERE ${when}r.stream = e.stream AND (r.max_age_seconds IS NOT NULL OR r.truncate_before IS NOT NULL)
        LIMIT 1`;

// A page of the global order: the rows `page` selects, each flagged by the filters and its stream's retention, in
// the page's order. Retention is a lookup of the row's stream alone, with a LIMIT so the planner keeps it a lookup: a
// NOT EXISTS over the row let it scan the whole streams table for every row once statistics said the table was small.
// Depending on the stream only, the lookup can also be remembered for the next row of the same stream.
const pageOfGlobalOrder = (page: string, types: string, prefixes: string, now: string): string =>
  `SELECT ${pageColumns}
     FROM (${page}) e
     LEFT JOIN LATERAL (${retentionOfStream()}) r ON true
     CROSS JOIN LATERAL (
       SELECT ${passesFilters(types, prefixes)}
          AND ${visibleUnderRetention(now)}
          AS matches) m
    ORDER BY e.transaction_id, e.global_position`;

// A page of the global order for a read with a filter: the same flags, but only the rows the filters and retention let
// through come back, with the page's last two rows whatever they are, each row with the number the page scanned (so
// a relay that subscribes to a few types is not sent the whole log). A row the filters leave out is not looked up in
// the streams either.
const filteredPageOfGlobalOrder = (page: string, types: string, prefixes: string, now: string): string =>
  `SELECT ${pageColumns}, e.scanned
     FROM (SELECT p.*, (count(*) OVER ())::integer AS scanned,
                  (row_number() OVER (ORDER BY p.transaction_id, p.global_position))::integer AS place
             FROM (${page}) p) e
     CROSS JOIN LATERAL (SELECT ${passesFilters(types, prefixes)} AS wanted) w
     LEFT JOIN LATERAL (${retentionOfStream('w.wanted AND ')}) r ON true
     CROSS JOIN LATERAL (SELECT w.wanted AND ${visibleUnderRetention(now)} AS matches) m
    WHERE m.matches OR e.place >= e.scanned - 1
    ORDER BY e.transaction_id, e.global_position`;

// Only transactions below the snapshot's xmin are final: none of them can still commit an earlier event. Scanning
// in (transaction_id, global_position) order below it never skips a late commit. A page scans at most `$3` rows in
// index order and flags those the filters and retention let through; the checkpoint is the last row scanned, so a
// sparse filter still moves it.
const pageAfter = `SELECT * FROM events e
      WHERE e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
        AND (e.transaction_id, e.global_position) > ($1::xid8, $2::bigint)
      ORDER BY e.transaction_id, e.global_position
      LIMIT $3`;
const readAllStatement = {
  name: 'once_event_store_read_all',
  types: eventRowTypes,
  text: pageOfGlobalOrder(pageAfter, '$4', '$5', '$6::timestamptz'),
};
const readAllFilteredStatement = {
  name: 'once_event_store_read_all_filtered',
  types: eventRowTypes,
  text: filteredPageOfGlobalOrder(pageAfter, '$4', '$5', '$6::timestamptz'),
};

// The rest of a transaction a page ended inside (see readAllRows): same columns and flags as a page, every row.
const readRestOfTransaction = {
  name: 'once_event_store_read_rest_of_transaction',
  types: eventRowTypes,
  text: pageOfGlobalOrder(
    `SELECT * FROM events e
      WHERE e.transaction_id = $1::xid8 AND e.global_position > $2::bigint
      ORDER BY e.transaction_id, e.global_position`,
    '$3',
    '$4',
    '$5::timestamptz',
  ),
};

interface ReadAllRow extends EventRow {
  matches: boolean;
  /** How many rows the page scanned (filtered pages only). */
  scanned?: number;
}

const likePrefix = (prefix: string): string => `${prefix.replace(/[\\%_]/g, (match) => `\\${match}`)}%`;

const filterValues = (filter: GlobalFilter | undefined): [string[] | null, string[] | null] => [
  filter?.eventTypes ? [...filter.eventTypes] : null,
  filter?.streamPrefixes ? filter.streamPrefixes.map(likePrefix) : null,
];

/**
 * One page of the global order after `options.after`, never past a transaction that may still commit, and never
 * ending inside a transaction. The page statement reads one row more than the page: when that row belongs to another
 * transaction (or there is none), the page ends where a write ends; when it belongs to the same one as the page's last
 * row, a second, small statement extends the page to that transaction's last row. So a checkpoint at any event of a
 * write means the whole write was read, and a page that reaches the end says so.
 */
export const readAllRows = async (
  pool: Pool,
  options: ReadAllOptions,
  defaultMaxCount: number,
  now: Date | null,
): Promise<ReadAllBatch> => {
  const maxCount = options.maxCount ?? defaultMaxCount;
  const after = options.after;
  if (maxCount <= 0) return { events: [], checkpoint: after, caughtUp: false };
  const [types, prefixes] = filterValues(options.filter);
  const filtered = types !== null || prefixes !== null;
  const { rows } = await pool.query<ReadAllRow>({
    ...(filtered ? readAllFilteredStatement : readAllStatement),
    values: [
      after?.commit.toString() ?? '0',
      after?.prepare.toString() ?? '0',
      maxCount + 1,
      types,
      prefixes,
      now,
    ],
  });
  // A filtered page keeps its last two rows: past `maxCount` scanned, the last one sent is the row beyond the page.
  const scanned = filtered ? (rows[0]?.scanned ?? 0) : rows.length;
  const beyond = scanned > maxCount ? rows.pop() : undefined;
  const lastOfPage = rows.at(-1);
  if (beyond && lastOfPage && beyond.transaction_id === lastOfPage.transaction_id) {
    const rest = await pool.query<ReadAllRow>({
      ...readRestOfTransaction,
      values: [lastOfPage.transaction_id, lastOfPage.global_position, types, prefixes, now],
    });
    rows.push(...rest.rows);
  }
  const events = rows.filter((row) => row.matches).map((row) => toRecordedEvent(row, row.stream));
  const last = rows.at(-1);
  return {
    events,
    checkpoint: last ? { commit: BigInt(last.transaction_id), prepare: BigInt(last.global_position) } : after,
    caughtUp: beyond === undefined,
  };
};
