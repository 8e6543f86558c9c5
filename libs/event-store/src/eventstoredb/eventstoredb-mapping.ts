import type { AllStreamResolvedEvent, JSONType, Position, ResolvedEvent } from '@eventstore/db-client';
import { WrongExpectedVersionError } from '@eventstore/db-client';
import type { ExpectedRevision, GlobalFilter, RecordedEvent } from '../port/index.js';
import { WrongExpectedRevisionError } from '../port/index.js';

/**
 * Turns the client's `WrongExpectedVersionError` into ours. `actualVersion` is the string `no_stream` (or a negative
 * number on some servers) when the stream does not exist; it never goes through `BigInt()` as such.
 */
export const toWrongExpectedRevision = (
  error: unknown,
  stream: string,
  expected: ExpectedRevision,
): WrongExpectedRevisionError | undefined => {
  if (!(error instanceof WrongExpectedVersionError)) return undefined;
  const actual: unknown = error.actualVersion;
  const revision =
    typeof actual === 'bigint' ? actual : typeof actual === 'number' ? BigInt(actual) : undefined;
  return new WrongExpectedRevisionError(
    stream,
    expected,
    revision === undefined || revision < 0n ? 'no_stream' : revision,
    { cause: error },
  );
};

/** A system event (`$`-prefixed type or stream) that no application reader should see. */
export const isSystemEvent = (stream: string, type: string): boolean =>
  stream.startsWith('$') || type.startsWith('$');

const decoder = new TextDecoder();

const toMetadata = (metadata: unknown): Record<string, unknown> => {
  if (metadata instanceof Uint8Array) {
    if (metadata.length === 0) return {};
    try {
      return JSON.parse(decoder.decode(metadata)) as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  return typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>) : {};
};

/** Maps a resolved event of the client; undefined for links that resolve to nothing. */
export const toRecordedEvent = (
  resolved: ResolvedEvent | AllStreamResolvedEvent,
): RecordedEvent | undefined => {
  const event = resolved.event;
  if (event === undefined) return undefined;
  const position: Position = event.position ?? {
    commit: resolved.commitPosition ?? 0n,
    prepare: resolved.commitPosition ?? 0n,
  };
  return {
    id: event.id,
    stream: event.streamId,
    revision: event.revision,
    type: event.type,
    data: event.data,
    metadata: toMetadata(event.metadata),
    position: { commit: position.commit, prepare: position.prepare },
    recordedAt: event.created,
  };
};

/** Whether an event passes a global filter (applied client-side where the server filter cannot express it). */
export const matchesFilter = (event: RecordedEvent, filter: GlobalFilter | undefined): boolean =>
  !isSystemEvent(event.stream, event.type) &&
  (filter?.eventTypes === undefined || filter.eventTypes.includes(event.type)) &&
  (filter?.streamPrefixes === undefined ||
    filter.streamPrefixes.some((prefix) => event.stream.startsWith(prefix)));

/** The event data as the client takes it (it serialises JSON data with `JSON.stringify`). */
export const toJsonData = (data: unknown): JSONType => (data ?? null) as JSONType;
