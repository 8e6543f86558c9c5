/** The client whose own test suite the wire server is held to: the version Once depends on, at its release tag. */
export const clientSuiteTag = 'v6.2.1';

/**
 * The server version the suite's `matchServerVersion` sees: the EventStoreDB image `docker-compose.yml` runs, so
 * version-gated cases run as they would against it (batch appends, checkpoints, `caught_up`).
 */
export const clientSuiteServerVersion = '24.10.0';

/** The suite's files for the features Once uses (relative to `packages/test/src/streams/`). */
export const clientSuiteFiles = [
  'appendToStream.test.ts',
  'appendToStream-errors.test.ts',
  'appendToStream-batch-append.test.ts',
  'appendToStream-batch-append-flood.test.ts',
  'readStream.test.ts',
  'readAll.test.ts',
  'getStreamMetadata.test.ts',
  'setStreamMetadata.test.ts',
  'deleteStream.test.ts',
  'tombstoneStream.test.ts',
  'subscribeToAll.test.ts',
  'subscribeToAll-filters.test.ts',
] as const;

const systemEvents =
  "counts the events EventStoreDB writes itself on start ($epoch-information, $scavenges, …) next to the test's own; " +
  'the wire server writes none. Once reads and subscribes to $all with system events filtered out';
const links =
  'link events and resolveLinkTos (here through the system projections): Once writes no links, runs no ' +
  'projections on the server, and reads without resolving links';
const deletes =
  'deleting a stream (Streams.Delete): Once never deletes a stream, its retention is $maxAge metadata and ' +
  'scavenges; the wire server answers UNIMPLEMENTED';
const tombstones =
  'tombstoning a stream (Streams.Tombstone): Once never tombstones a stream, so it never meets a deleted one; the ' +
  'wire server answers UNIMPLEMENTED';
const acls =
  'stream ACLs ($acl metadata) and other users: Once signs in with one identity and sets no ACLs; the wire server ' +
  'authenticates nobody and ignores ACLs';
const deadlines =
  'a per-call deadline on a 30,000-event append: Once sets no deadline on its calls; the wire server enforces none, ' +
  'and the in-memory store takes minutes over the append';
const appendSize =
  "the server's maximum append size (1 MiB by default), met with a 40,000-event append: Once appends a few small " +
  'events per command; the wire server does not enforce the limit, and the in-memory store takes minutes over it';

const appendErrors = (prefix: string) =>
  `appendToStream-errors.test.ts > appendToStream - errors > ${prefix}`;

/**
 * Cases the wire server fails on purpose, each with why Once never needs it. The key is the case's full name as the
 * report gives it (`<file> > <describe> > … > <test>`). The harness fails when a case fails that is not here, and
 * when a case here passes (the entry is stale).
 */
export const outsideOncesUse: Readonly<Record<string, string>> = {
  'appendToStream.test.ts > appendToStream > should successfully append to stream > linkTo': links,
  [`${appendErrors('Batch append (>21.10)')} > StreamDeleted`]: tombstones,
  [`${appendErrors('Normal Append')} > StreamDeleted`]: tombstones,
  [`${appendErrors('Batch append (>21.10)')} > AccessDenied`]: acls,
  [`${appendErrors('Normal Append')} > AccessDenied`]: acls,
  'readStream.test.ts > readStream > should successfully read from stream > options > resolve link tos':
    links,
  'readStream.test.ts > readStream > should successfully read from stream > errors > stream deleted':
    tombstones,
  'readAll.test.ts > readAll > should successfully read from $all > from start': systemEvents,
  'readAll.test.ts > readAll > should successfully read from $all > backwards from end': systemEvents,
  'readAll.test.ts > readAll > should successfully read from $all > resolve link tos': links,
  'setStreamMetadata.test.ts > setStreamMetadata > should successfully set metadata of stream > metadata goes to the right place':
    '$maxCount: Once bounds a stream by age ($maxAge) only; the wire server ignores $maxCount',
  'deleteStream.test.ts > deleteStream > should successfully delete a stream > any revision > succeeds':
    deletes,
  'deleteStream.test.ts > deleteStream > should successfully delete a stream > expected revision > exact > fails':
    deletes,
  'deleteStream.test.ts > deleteStream > should successfully delete a stream > expected revision > exact > succeeds':
    deletes,
  'deleteStream.test.ts > deleteStream > should successfully delete a stream > expected revision > no_stream > fails if stream exists':
    deletes,
  "deleteStream.test.ts > deleteStream > should successfully delete a stream > expected revision > no_stream > fails if stream doesn't exist":
    deletes,
  'deleteStream.test.ts > deleteStream > should successfully delete a stream > expected revision > no_stream > succeeds if stream implicityly exists':
    deletes,
  'tombstoneStream.test.ts > tombstoneStream > should successfully tombstone a stream > any revision > succeeds':
    tombstones,
  'tombstoneStream.test.ts > tombstoneStream > should successfully tombstone a stream > expected revision > exact > fails':
    tombstones,
  'tombstoneStream.test.ts > tombstoneStream > should successfully tombstone a stream > expected revision > exact > succeeds':
    tombstones,
  'tombstoneStream.test.ts > tombstoneStream > should successfully tombstone a stream > expected revision > no stream > fails':
    tombstones,
  'tombstoneStream.test.ts > tombstoneStream > should successfully tombstone a stream > expected revision > no stream > succeeds':
    tombstones,
  'subscribeToAll.test.ts > subscribeToAll > should subscribe to $all > from start': systemEvents,
  'subscribeToAll.test.ts > subscribeToAll > should return a readable stream > pipeline':
    'subscribes to one stream (subscribeToStream) next to $all: Once subscribes to $all only; the wire server ' +
    'answers UNIMPLEMENTED for a stream subscription',
};

/** Cases the harness does not run at all (matched by their test title), with why. */
export const leftOutOfTheRun: Readonly<Record<string, string>> = {
  [`${appendErrors('Batch append (>21.10)')} > DeadlineExceeded`]: deadlines,
  [`${appendErrors('Normal Append')} > DeadlineExceeded`]: deadlines,
  [`${appendErrors('Batch append (>21.10)')} > MaximumAppendSizeExceeded`]: appendSize,
  [`${appendErrors('Normal Append')} > MaximumAppendSizeExceeded`]: appendSize,
};
