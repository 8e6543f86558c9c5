import type { Pool } from 'pg';
import type {
  AppendResult,
  EventToAppend,
  ExpectedRevision,
  StreamAppend,
  StreamRetention,
} from '../port/index.js';
import { eventRowTypes } from './event-row-types.js';
import type { AppendOutcome, AppendRow } from './postgres-append.js';
import { expectedCode, toAppendOutcome, toPayload, toResult, toRetentionPayload } from './postgres-append.js';

/** One caller's append, as it waits to share a statement with others: one stream, or several atomically. */
export type SharedAppend =
  | {
      readonly kind: 'one';
      readonly stream: string;
      readonly events: readonly EventToAppend[];
      readonly expectedRevision: ExpectedRevision;
      readonly retention?: StreamRetention | undefined;
    }
  | { readonly kind: 'multi'; readonly appends: readonly StreamAppend[] };

/** What a caller's append came to: a one-stream outcome (a wrong revision is a value), or a multi-stream write's results. */
export type SharedAnswer =
  | { readonly kind: 'one'; readonly outcome: AppendOutcome }
  | { readonly kind: 'multi'; readonly results: readonly AppendResult[] };

interface SharedRow extends Omit<AppendRow, 'outcome'> {
  /** The append's place in the call, 1-based. */
  item: number;
  /** The stream's place in a multi-stream append, 1-based; 0 for an append left to be sent alone. */
  part: number;
  outcome: AppendRow['outcome'] | 'deferred';
}

const appendBatchStatement = {
  name: 'once_event_store_append_batch',
  types: eventRowTypes,
  text: `SELECT item, part, outcome, revision, transaction_id, global_position, recorded_at
           FROM event_store_append_batch($1, $2, $3)`,
};

const streamPayload = (append: StreamAppend) => ({
  stream: append.stream,
  expected: expectedCode(append.expectedRevision),
  events: toPayload(append.events),
  ...(append.retention === undefined ? {} : { retention: toRetentionPayload(append.retention) }),
  ...(append.expectNoRetention === true ? { no_retention: true } : {}),
});

const streamsOf = (append: SharedAppend): readonly StreamAppend[] =>
  append.kind === 'one' ? [append] : append.appends;

/**
 * An append the statement writes together with the other plain ones before anything else: each of its streams is
 * named by no other append of the call, has events, expects no stream or an explicit revision, and carries a
 * retention only when it expects no stream.
 */
const isPlain = (append: SharedAppend, named: ReadonlyMap<string, number>): boolean =>
  streamsOf(append).every(
    (part) =>
      named.get(part.stream) === 1 &&
      part.events.length > 0 &&
      (part.expectedRevision === 'no_stream' ||
        (typeof part.expectedRevision === 'bigint' && part.retention === undefined)),
  );

/**
 * Runs several callers' appends, in the order given, as one statement and so in one transaction and one commit
 * (`event_store_append_batch`). Each answer is the append's own: a one-stream append is decided in full (a wrong
 * revision is a value, as alone); a multi-stream append is written when every head moves from where it expected,
 * and otherwise answered `undefined`, to be sent alone, as is every append after it that names one of its streams.
 * A statement that fails kept nothing of any of them.
 *
 * @param pool runs the statement in a transaction of its own
 * @param appends the callers' appends, each already validated; a multi-stream append suits the fast statement
 * @param now the clock the appends share (null: the database's)
 */
export const appendTogether = async (
  pool: Pick<Pool, 'query'>,
  appends: readonly SharedAppend[],
  now: Date | null,
): Promise<readonly (SharedAnswer | undefined)[]> => {
  const named = new Map<string, number>();
  for (const { stream } of appends.flatMap(streamsOf)) named.set(stream, (named.get(stream) ?? 0) + 1);
  const items = appends.map((append) => ({
    multi: append.kind === 'multi',
    plain: isPlain(append, named),
    appends: streamsOf(append).map(streamPayload),
  }));
  const streams = [...named.keys()];
  const { rows } = await pool.query<SharedRow>({
    ...appendBatchStatement,
    values: [JSON.stringify(items), streams, now],
  });
  const rowsOfItem = new Map<number, SharedRow[]>();
  for (const row of rows) {
    const of = rowsOfItem.get(row.item);
    if (of === undefined) rowsOfItem.set(row.item, [row]);
    else of.push(row);
  }
  return appends.map((append, index) => answerOf(append, rowsOfItem.get(index + 1) ?? []));
};

const answerOf = (append: SharedAppend, rows: readonly SharedRow[]): SharedAnswer | undefined => {
  const [first] = rows;
  if (first === undefined) throw new Error('event_store_append_batch answered no row for an append');
  const { outcome } = first;
  if (outcome === 'deferred') return undefined;
  if (append.kind === 'one') {
    return {
      kind: 'one',
      outcome: toAppendOutcome({ ...first, outcome }, append.stream, append.expectedRevision),
    };
  }
  const results = new Array<AppendResult>(append.appends.length);
  for (const row of rows) results[row.part - 1] = toResult({ ...row, outcome });
  return { kind: 'multi', results };
};
