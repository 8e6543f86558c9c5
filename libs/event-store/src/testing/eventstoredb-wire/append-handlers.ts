import type { ServerDuplexStream, ServerReadableStream, sendUnaryData } from '@grpc/grpc-js';
import type {
  AppendReq,
  AppendResp,
  BatchAppendReq,
  BatchAppendResp,
} from '@eventstore/db-client/generated/streams_pb.js';
import { WrongExpectedRevisionError } from '../../port/index.js';
import type { AppendResult, ExpectedRevision } from '../../port/index.js';
import type { WireEvent, WireLog } from './wire-log.js';
import {
  expectedRevisionOf,
  streamIdentifier,
  streamNameOf,
  toWireEvent,
  uuidText,
  wrongExpectedVersionStatus,
} from './wire-messages.js';
import { emptyPb, sharedPb, streamsPb } from './wire-protocol.js';
import { toServiceError } from './wire-errors.js';

const empty = () => new sharedPb.Empty();

/** The answer to a wrong expected revision on `Append`: the expectation echoed, the stream's actual revision. */
const appendWrongExpectedVersion = (error: WrongExpectedRevisionError): AppendResp => {
  const wrong = new streamsPb.AppendResp.WrongExpectedVersion();
  if (error.actual === 'no_stream') wrong.setCurrentNoStream(empty()).setNoStream2060(empty());
  else wrong.setCurrentRevision(error.actual.toString()).setCurrentRevision2060(Number(error.actual));
  const expected = error.expected;
  if (expected === 'any') wrong.setExpectedAny(empty()).setAny2060(empty());
  else if (expected === 'stream_exists') wrong.setExpectedStreamExists(empty()).setStreamExists2060(empty());
  else if (expected === 'no_stream') wrong.setExpectedNoStream(empty());
  else wrong.setExpectedRevision(expected.toString()).setExpectedRevision2060(Number(expected));
  return new streamsPb.AppendResp().setWrongExpectedVersion(wrong);
};

const appendSuccess = (result: AppendResult): AppendResp => {
  const success = new streamsPb.AppendResp.Success();
  if (result.nextExpectedRevision < 0n) success.setNoStream(empty()).setNoPosition(empty());
  else
    success
      .setCurrentRevision(result.nextExpectedRevision.toString())
      .setPosition(
        new streamsPb.AppendResp.Position()
          .setCommitPosition(result.position.commit.toString())
          .setPreparePosition(result.position.prepare.toString()),
      );
  return new streamsPb.AppendResp().setSuccess(success);
};

/**
 * `Streams.Append`: the options first, then one proposed message per event, answered once the client ends. A wrong
 * expected revision is an answer (`wrong_expected_version`), not an error status, as on EventStoreDB.
 */
export const appendHandler =
  (log: WireLog) =>
  (call: ServerReadableStream<AppendReq, AppendResp>, callback: sendUnaryData<AppendResp>): void => {
    let options: AppendReq.Options | undefined;
    const events: WireEvent[] = [];
    let failure: unknown;
    call.on('data', (request: AppendReq) => {
      try {
        if (request.hasOptions()) options = request.getOptions();
        else if (request.hasProposedMessage())
          events.push(toWireEvent(request.getProposedMessage() as AppendReq.ProposedMessage));
      } catch (error) {
        failure ??= error;
      }
    });
    call.on('end', () => {
      void (async () => {
        if (failure !== undefined) throw failure;
        if (options === undefined) throw new TypeError('the first message of an append carries its options');
        const expected = expectedRevisionOf({
          any: options.hasAny(),
          noStream: options.hasNoStream(),
          streamExists: options.hasStreamExists(),
          revision: options.hasRevision() ? options.getRevision() : undefined,
        });
        return appendSuccess(await log.append(streamNameOf(options.getStreamIdentifier()), events, expected));
      })().then(
        (response) => callback(null, response),
        (error: unknown) =>
          error instanceof WrongExpectedRevisionError
            ? callback(null, appendWrongExpectedVersion(error))
            : callback(toServiceError(error)),
      );
    });
  };

interface PendingBatch {
  options: BatchAppendReq.Options | undefined;
  readonly events: WireEvent[];
}

const batchExpectation = (options: BatchAppendReq.Options): ExpectedRevision =>
  expectedRevisionOf({
    any: options.hasAny(),
    noStream: options.hasNoStream(),
    streamExists: options.hasStreamExists(),
    revision: options.hasStreamPosition() ? options.getStreamPosition() : undefined,
  });

const batchAnswer = (
  correlationId: string,
  stream: string,
  expected: ExpectedRevision,
  outcome: { result: AppendResult } | { error: unknown },
): BatchAppendResp => {
  const response = new streamsPb.BatchAppendResp()
    .setCorrelationId(new sharedPb.UUID().setString(correlationId))
    .setStreamIdentifier(streamIdentifier(stream));
  if (expected === 'any') response.setAny(new emptyPb.Empty());
  else if (expected === 'no_stream') response.setNoStream(new emptyPb.Empty());
  else if (expected === 'stream_exists') response.setStreamExists(new emptyPb.Empty());
  else response.setStreamPosition(expected.toString());
  if ('error' in outcome) {
    const error = outcome.error;
    if (error instanceof WrongExpectedRevisionError)
      return response.setError(wrongExpectedVersionStatus(expected, error.actual));
    throw error;
  }
  const { result } = outcome;
  const success = new streamsPb.BatchAppendResp.Success();
  if (result.nextExpectedRevision < 0n)
    success.setNoStream(new emptyPb.Empty()).setNoPosition(new emptyPb.Empty());
  else
    success
      .setCurrentRevision(result.nextExpectedRevision.toString())
      .setPosition(
        new sharedPb.AllStreamPosition()
          .setCommitPosition(result.position.commit.toString())
          .setPreparePosition(result.position.prepare.toString()),
      );
  return response.setSuccess(success);
};

/**
 * `Streams.BatchAppend`: one long-lived two-way stream per client; each write arrives as chunks sharing a
 * correlation id (options on the first, `is_final` on the last) and is answered by that id. A wrong expected
 * revision is answered with a `google.rpc.Status` (ALREADY_EXISTS, details `WrongExpectedVersion`), as on EventStoreDB.
 * Writes are applied in the order they complete.
 */
export const batchAppendHandler =
  (log: WireLog) =>
  (call: ServerDuplexStream<BatchAppendReq, BatchAppendResp>): void => {
    const pending = new Map<string, PendingBatch>();
    let queue: Promise<void> = Promise.resolve();
    call.on('data', (request: BatchAppendReq) => {
      const correlationId = uuidText(request.getCorrelationId());
      const batch = pending.get(correlationId) ?? { options: undefined, events: [] };
      pending.set(correlationId, batch);
      if (request.hasOptions()) batch.options = request.getOptions();
      let parsed: unknown;
      try {
        for (const message of request.getProposedMessagesList()) batch.events.push(toWireEvent(message));
      } catch (error) {
        parsed = error;
      }
      if (!request.getIsFinal() && parsed === undefined) return;
      pending.delete(correlationId);
      queue = queue.then(async () => {
        try {
          if (parsed !== undefined) throw parsed;
          const options = batch.options;
          if (options === undefined) throw new TypeError('the first chunk of a batch carries its options');
          const stream = streamNameOf(options.getStreamIdentifier());
          const expected = batchExpectation(options);
          const outcome = await log.append(stream, batch.events, expected).then(
            (result) => ({ result }),
            (error: unknown) => ({ error }),
          );
          call.write(batchAnswer(correlationId, stream, expected, outcome));
        } catch (error) {
          call.emit('error', toServiceError(error));
        }
      });
    });
    call.on('end', () => {
      void queue.then(() => call.end());
    });
  };
