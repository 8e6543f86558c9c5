import type { ClientBase } from 'pg';
import type {
  AppendResult,
  EventToAppend,
  ExpectedRevision,
  StreamAppend,
  StreamRetention,
} from '../port/index.js';
import { WrongExpectedRevisionError } from '../port/index.js';

/** What one call of `event_store_append` decided. */
export type AppendOutcome =
  | { readonly kind: 'ok' | 'idempotent'; readonly result: AppendResult }
  | { readonly kind: 'wrong'; readonly error: WrongExpectedRevisionError };

interface AppendRow {
  outcome: 'ok' | 'idempotent' | 'wrong';
  revision: string | null;
  transaction_id: string | null;
  global_position: string | null;
}

const expectedCode = (expected: ExpectedRevision): string => {
  switch (expected) {
    case 'no_stream':
      return '-1';
    case 'any':
      return '-2';
    case 'stream_exists':
      return '-4';
    default:
      return expected.toString();
  }
};

const appendStatement = {
  name: 'once_event_store_append',
  text: 'SELECT outcome, revision, transaction_id, global_position FROM event_store_append($1, $2, $3, $4, $5)',
};

const toPayload = (events: readonly EventToAppend[]) =>
  events.map((event) => ({
    id: event.id,
    type: event.type,
    data: event.data ?? null,
    metadata: event.metadata ?? {},
  }));

/** A retention as `event_store_append` takes it (bigints as strings), or null for none. */
const toRetentionPayload = (retention: StreamRetention | undefined) =>
  retention === undefined
    ? null
    : 'truncateBefore' in retention
      ? { truncateBefore: retention.truncateBefore.toString() }
      : { maxAgeSeconds: retention.maxAgeSeconds };

const toResult = (row: AppendRow): AppendResult => ({
  nextExpectedRevision: BigInt(row.revision as string),
  position: { commit: BigInt(row.transaction_id as string), prepare: BigInt(row.global_position as string) },
});

/**
 * Runs one stream's append as a single statement on `client` (a pool, or a client inside a transaction) and turns
 * the row into a result, or a `WrongExpectedRevisionError` value. A retention given is set in the same statement.
 */
export const appendOnClient = async (
  client: Pick<ClientBase, 'query'>,
  stream: string,
  events: readonly EventToAppend[],
  expectedRevision: ExpectedRevision,
  now: Date | null,
  retention?: StreamRetention,
): Promise<AppendOutcome> => {
  const payload = JSON.stringify(toPayload(events));
  const keep = toRetentionPayload(retention);
  const { rows } = await client.query<AppendRow>({
    ...appendStatement,
    values: [
      stream,
      expectedCode(expectedRevision),
      payload,
      now,
      keep === null ? null : JSON.stringify(keep),
    ],
  });
  const row = rows[0];
  if (row === undefined) throw new Error('event_store_append returned no row');
  if (row.outcome === 'wrong') {
    const actual = row.revision === null ? 'no_stream' : BigInt(row.revision);
    return { kind: 'wrong', error: new WrongExpectedRevisionError(stream, expectedRevision, actual) };
  }
  return { kind: row.outcome, result: toResult(row) };
};

const appendMultiStatement = {
  name: 'once_event_store_append_multi',
  text: 'SELECT ord, outcome, revision, transaction_id, global_position FROM event_store_append_multi($1, $2)',
};

/**
 * Appends to several streams in one statement, so in one transaction and one round trip. A wrong revision (or a
 * write that repeats some streams and is new for others) rolls it all back and becomes `WrongExpectedRevisionError`.
 */
export const appendMultiOnClient = async (
  client: Pick<ClientBase, 'query'>,
  appends: readonly StreamAppend[],
  now: Date | null,
): Promise<readonly AppendResult[]> => {
  const payload = JSON.stringify(
    appends.map((append) => ({
      stream: append.stream,
      expected: expectedCode(append.expectedRevision),
      events: toPayload(append.events),
      ...(append.retention === undefined ? {} : { retention: toRetentionPayload(append.retention) }),
    })),
  );
  try {
    const { rows } = await client.query<AppendRow & { ord: number }>({
      ...appendMultiStatement,
      values: [payload, now],
    });
    const results = new Array<AppendResult>(appends.length);
    for (const row of rows) results[row.ord - 1] = toResult(row);
    return results;
  } catch (error) {
    throw toWrongExpectedRevision(error, appends) ?? error;
  }
};

const toWrongExpectedRevision = (
  error: unknown,
  appends: readonly StreamAppend[],
): WrongExpectedRevisionError | undefined => {
  const { code, message, detail } = (error ?? {}) as { code?: unknown; message?: unknown; detail?: unknown };
  if (code !== 'P0001' || message !== 'event_store_wrong_expected_revision' || typeof detail !== 'string') {
    return undefined;
  }
  const { index, actual } = JSON.parse(detail) as { index: number; actual: string | null };
  const append = appends[index];
  if (append === undefined) return undefined;
  return new WrongExpectedRevisionError(
    append.stream,
    append.expectedRevision,
    actual === null ? 'no_stream' : BigInt(actual),
  );
};
