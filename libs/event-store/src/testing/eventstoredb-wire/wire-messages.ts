import type { ExpectedRevision, GlobalPosition } from '../../port/index.js';
import type { LoggedEvent, WireEvent } from './wire-log.js';
import { anyPb, codePb, emptyPb, sharedPb, statusPb, streamsPb } from './wire-protocol.js';

type UUID = InstanceType<typeof sharedPb.UUID>;
type StreamIdentifier = InstanceType<typeof sharedPb.StreamIdentifier>;
type ProposedMessage =
  | InstanceType<typeof streamsPb.AppendReq.ProposedMessage>
  | InstanceType<typeof streamsPb.BatchAppendReq.ProposedMessage>;

/** A request the server refuses as EventStoreDB would (status INVALID_ARGUMENT). */
export class InvalidArgument extends Error {}

const decoder = new TextDecoder();

/** The stream name of an identifier (UTF-8 bytes on the wire). */
export const streamNameOf = (identifier: StreamIdentifier | undefined): string => {
  if (identifier === undefined) throw new InvalidArgument('a stream identifier is required');
  const name = identifier.getStreamName_asU8();
  if (name.length === 0) throw new InvalidArgument('the stream name must not be empty');
  return decoder.decode(name);
};

export const streamIdentifier = (stream: string): StreamIdentifier =>
  new sharedPb.StreamIdentifier().setStreamName(new TextEncoder().encode(stream));

const hex = (value: bigint): string => BigInt.asUintN(64, value).toString(16).padStart(16, '0');

/** A UUID as text, from either of its wire forms (string, or two 64-bit halves). */
export const uuidText = (uuid: UUID | undefined): string => {
  if (uuid === undefined) throw new InvalidArgument('an event id is required');
  if (!uuid.hasStructured()) return uuid.getString();
  const structured = uuid.getStructured() as InstanceType<typeof sharedPb.UUID.Structured>;
  const digits =
    hex(BigInt(structured.getMostSignificantBits())) + hex(BigInt(structured.getLeastSignificantBits()));
  return `${digits.slice(0, 8)}-${digits.slice(8, 12)}-${digits.slice(12, 16)}-${digits.slice(16, 20)}-${digits.slice(20)}`;
};

const toUuid = (id: string, structured: boolean): UUID => {
  if (!structured) return new sharedPb.UUID().setString(id);
  const digits = id.replaceAll('-', '');
  return new sharedPb.UUID().setStructured(
    new sharedPb.UUID.Structured()
      .setMostSignificantBits(BigInt.asIntN(64, BigInt(`0x${digits.slice(0, 16)}`)).toString())
      .setLeastSignificantBits(BigInt.asIntN(64, BigInt(`0x${digits.slice(16)}`)).toString()),
  );
};

/** A proposed message as the log stores it. */
export const toWireEvent = (message: ProposedMessage): WireEvent => {
  const metadata = message.getMetadataMap();
  const type = metadata.get('type');
  const contentType = metadata.get('content-type');
  if (!type) throw new InvalidArgument('an event type is required');
  if (contentType !== 'application/json' && contentType !== 'application/octet-stream')
    throw new InvalidArgument(`content-type must be application/json or application/octet-stream`);
  return {
    id: uuidText(message.getId()),
    type,
    contentType,
    data: message.getData_asU8(),
    customMetadata: message.getCustomMetadata_asU8(),
  };
};

/** An expected revision from the four forms of the append options (`revision` as decimal text). */
export const expectedRevisionOf = (form: {
  readonly any: boolean;
  readonly noStream: boolean;
  readonly streamExists: boolean;
  readonly revision: string | undefined;
}): ExpectedRevision => {
  if (form.any) return 'any';
  if (form.noStream) return 'no_stream';
  if (form.streamExists) return 'stream_exists';
  if (form.revision !== undefined) return BigInt(form.revision);
  throw new InvalidArgument('an expected stream revision is required');
};

// .NET ticks (100 ns) since the Unix epoch, as the server sends `created`.
const ticksOf = (date: Date): string => (BigInt(date.getTime()) * 10_000n).toString();

/** A read response carrying one event, with its `$all` position. */
export const eventResponse = (event: LoggedEvent, structuredIds: boolean) => {
  const recorded = new streamsPb.ReadResp.ReadEvent.RecordedEvent()
    .setId(toUuid(event.id, structuredIds))
    .setStreamIdentifier(streamIdentifier(event.stream))
    .setStreamRevision(event.revision.toString())
    .setPreparePosition(event.position.prepare.toString())
    .setCommitPosition(event.position.commit.toString())
    .setData(event.data)
    .setCustomMetadata(event.customMetadata);
  const metadata = recorded.getMetadataMap();
  metadata.set('type', event.type);
  metadata.set('content-type', event.contentType);
  metadata.set('created', ticksOf(event.created));
  const read = new streamsPb.ReadResp.ReadEvent()
    .setEvent(recorded)
    .setCommitPosition(event.position.commit.toString());
  return new streamsPb.ReadResp().setEvent(read);
};

export const checkpointResponse = (position: GlobalPosition) =>
  new streamsPb.ReadResp().setCheckpoint(
    new streamsPb.ReadResp.Checkpoint()
      .setCommitPosition(position.commit.toString())
      .setPreparePosition(position.prepare.toString()),
  );

export const streamNotFoundResponse = (stream: string) =>
  new streamsPb.ReadResp().setStreamNotFound(
    new streamsPb.ReadResp.StreamNotFound().setStreamIdentifier(streamIdentifier(stream)),
  );

/**
 * The `google.rpc.Status` a batch append answers a wrong expected revision with: code ALREADY_EXISTS, message
 * `WrongExpectedVersion`, details an `event_store.client.WrongExpectedVersion`.
 */
export const wrongExpectedVersionStatus = (
  expected: ExpectedRevision,
  actual: bigint | 'no_stream',
): InstanceType<typeof statusPb.Status> => {
  const details = new sharedPb.WrongExpectedVersion();
  if (actual === 'no_stream') details.setCurrentNoStream(new emptyPb.Empty());
  else details.setCurrentStreamRevision(actual.toString());
  if (expected === 'any') details.setExpectedAny(new emptyPb.Empty());
  else if (expected === 'no_stream') details.setExpectedNoStream(new emptyPb.Empty());
  else if (expected === 'stream_exists') details.setExpectedStreamExists(new emptyPb.Empty());
  else details.setExpectedStreamPosition(expected.toString());
  const packed = new anyPb.Any();
  packed.pack(details.serializeBinary(), 'event_store.client.WrongExpectedVersion');
  return new statusPb.Status()
    .setCode(codePb.Code.ALREADY_EXISTS)
    .setMessage('WrongExpectedVersion')
    .setDetails(packed);
};
