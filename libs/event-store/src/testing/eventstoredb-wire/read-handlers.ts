import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { ServerWritableStream } from '@grpc/grpc-js';
import type { ReadReq, ReadResp } from '@eventstore/db-client/generated/streams_pb.js';
import type { GlobalPosition } from '../../port/index.js';
import { comparePositions } from '../../port/index.js';
import type { LoggedEvent, WireLog } from './wire-log.js';
import { positionBefore, positionPast } from './wire-log.js';
import {
  InvalidArgument,
  checkpointResponse,
  eventResponse,
  streamNameOf,
  streamNotFoundResponse,
} from './wire-messages.js';
import { grpc, streamsPb } from './wire-protocol.js';
import { toServiceError } from './wire-errors.js';

type Call = ServerWritableStream<ReadReq, ReadResp>;
type Options = ReadReq.Options;

/** EventStoreDB's page size for `$all` reads and its default filter search window. */
const readBatchSize = 32;

/** Writes one response, waiting while the client's window is full. */
const send = async (call: Call, response: ReadResp): Promise<void> => {
  if (!call.write(response)) await once(call, 'drain');
};

/** The server-side filter of a read: on the stream name or the event type, by prefixes or by a regular expression. */
const eventFilter = (options: Options): ((event: LoggedEvent) => boolean) => {
  if (!options.hasFilter()) return () => true;
  const filter = options.getFilter() as ReadReq.Options.FilterOptions;
  const onStream = filter.hasStreamIdentifier();
  const expression = onStream ? filter.getStreamIdentifier() : filter.getEventType();
  if (expression === undefined) throw new InvalidArgument('a filter needs a stream or event type expression');
  const prefixes = expression.getPrefixList();
  const regex = prefixes.length === 0 ? new RegExp(expression.getRegex()) : undefined;
  return (event) => {
    const subject = onStream ? event.stream : event.type;
    return regex ? regex.test(subject) : prefixes.some((prefix) => subject.startsWith(prefix));
  };
};

const countOf = (options: Options): number => {
  const count = BigInt(options.getCount());
  return count > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(count);
};

const allOptionsPosition = (all: ReadReq.Options.AllOptions): GlobalPosition | 'start' | 'end' => {
  if (all.hasStart()) return 'start';
  if (all.hasEnd()) return 'end';
  const position = all.getPosition();
  if (position === undefined) throw new InvalidArgument('a $all read needs start, end or a position');
  return { commit: BigInt(position.getCommitPosition()), prepare: BigInt(position.getPreparePosition()) };
};

/** Every event of `$all` in order (the backwards read and the head of the log are rare in tests). */
const wholeLog = async (log: WireLog): Promise<LoggedEvent[]> => {
  const events: LoggedEvent[] = [];
  let after: GlobalPosition | undefined;
  for (;;) {
    const page = await log.readAllAfter(after, 1_000);
    events.push(...page.events);
    after = page.next;
    if (page.end) return events;
  }
};

const readStream = async (log: WireLog, call: Call, options: Options, structured: boolean) => {
  const stream = options.getStream() as ReadReq.Options.StreamOptions;
  const name = streamNameOf(stream.getStreamIdentifier());
  const direction = options.getReadDirection() === streamsPb.ReadReq.Options.ReadDirection.BACKWARDS;
  const events = await log.readStream(name, {
    direction: direction ? 'backwards' : 'forwards',
    from: stream.hasStart() ? 'start' : stream.hasEnd() ? 'end' : BigInt(stream.getRevision()),
    maxCount: countOf(options),
  });
  if (events === undefined) return send(call, streamNotFoundResponse(name));
  for (const event of events) await send(call, eventResponse(event, structured));
};

const readAll = async (log: WireLog, call: Call, options: Options, structured: boolean) => {
  const from = allOptionsPosition(options.getAll() as ReadReq.Options.AllOptions);
  const matches = eventFilter(options);
  let remaining = countOf(options);
  if (options.getReadDirection() === streamsPb.ReadReq.Options.ReadDirection.BACKWARDS) {
    // Backwards from a position: the events before it, newest first.
    const events = (await wholeLog(log)).reverse();
    for (const event of events) {
      if (remaining <= 0) return;
      if (typeof from === 'object' && comparePositions(event.position, from) >= 0) continue;
      if (from === 'start' || !matches(event)) continue;
      await send(call, eventResponse(event, structured));
      remaining -= 1;
    }
    return;
  }
  if (from === 'end') return;
  // Forwards from a position includes the event at that position.
  let after = from === 'start' ? undefined : positionBefore(from);
  while (remaining > 0) {
    const page = await log.readAllAfter(after, readBatchSize);
    for (const event of page.events) {
      if (remaining <= 0 || call.cancelled) return;
      if (!matches(event)) continue;
      await send(call, eventResponse(event, structured));
      remaining -= 1;
    }
    after = page.next;
    if (page.end) return;
  }
};

/**
 * A catch-up subscription to `$all`, as EventStoreDB runs one: a confirmation, the events after the start (or
 * everything), then live events as they are written. With a filter, a checkpoint every `window × multiplier`
 * events considered (window: the filter's `max`, else 32) at the position just past the last one, and one when the
 * subscription catches up (at the end of the log), followed by `caught_up`.
 */
const subscribeToAll = async (log: WireLog, call: Call, options: Options, structured: boolean) => {
  const from = allOptionsPosition(options.getAll() as ReadReq.Options.AllOptions);
  const filtered = options.hasFilter();
  const filter = options.getFilter();
  const matches = eventFilter(options);
  const interval =
    filtered && filter
      ? (filter.hasMax() ? filter.getMax() : readBatchSize) * filter.getCheckpointintervalmultiplier()
      : 0;
  if (filtered && !(interval > 0)) throw new InvalidArgument('the checkpoint interval must be positive');

  let wake: (() => void) | undefined;
  const stopListening = log.onAppend(() => wake?.());
  call.on('cancelled', () => wake?.());
  try {
    await send(
      call,
      new streamsPb.ReadResp().setConfirmation(
        new streamsPb.ReadResp.SubscriptionConfirmation().setSubscriptionId(randomUUID()),
      ),
    );
    let cursor = from === 'start' ? undefined : from === 'end' ? log.head() : from;
    let considered = 0;
    let caughtUp = false;
    while (!call.cancelled) {
      const writesSeen = log.writes();
      const page = await log.readAllAfter(cursor, readBatchSize);
      for (const event of page.events) {
        if (call.cancelled) return;
        considered += 1;
        if (matches(event)) await send(call, eventResponse(event, structured));
        if (filtered && considered >= interval) {
          considered %= interval;
          await send(call, checkpointResponse(positionPast(event.position)));
        }
      }
      cursor = page.next ?? cursor;
      if (!page.end) continue;
      if (!caughtUp) {
        const head = log.head();
        const past = head ? positionPast(head) : undefined;
        const checkpoint = past && (!cursor || comparePositions(past, cursor) > 0) ? past : cursor;
        if (filtered && checkpoint) await send(call, checkpointResponse(checkpoint));
        await send(call, new streamsPb.ReadResp().setCaughtUp(new streamsPb.ReadResp.CaughtUp()));
        caughtUp = true;
      }
      if (log.writes() === writesSeen && !call.cancelled)
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      wake = undefined;
    }
  } finally {
    stopListening();
  }
};

/**
 * `Streams.Read`: reads of one stream, reads of `$all` (both directions, with or without a filter) and
 * subscriptions to `$all`. Subscriptions to a single stream are not implemented (UNIMPLEMENTED).
 */
export const readHandler =
  (log: WireLog) =>
  (call: Call): void => {
    const options = call.request.getOptions();
    void (async () => {
      if (options === undefined) throw new InvalidArgument('a read needs options');
      const structured = options.getUuidOption()?.hasStructured() ?? false;
      if (options.hasSubscription()) {
        if (!options.hasAll())
          return call.emit('error', {
            code: grpc.status.UNIMPLEMENTED,
            details: 'the test server subscribes to $all only',
          });
        return subscribeToAll(log, call, options, structured);
      }
      if (options.hasStream()) return readStream(log, call, options, structured);
      return readAll(log, call, options, structured);
    })().then(
      () => {
        if (!call.cancelled && !call.writableEnded) call.end();
      },
      (error: unknown) => {
        if (!call.cancelled) call.emit('error', toServiceError(error));
      },
    );
  };
