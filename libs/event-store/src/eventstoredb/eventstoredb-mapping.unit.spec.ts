import { WrongExpectedVersionError } from '@eventstore/db-client';
import { describe, expect, it } from 'vitest';
import { UnsupportedOperationError, WrongExpectedRevisionError } from '../port/index.js';
import { createEventStoreDbEventStore } from './eventstoredb-event-store.js';
import { matchesFilter, toWrongExpectedRevision } from './eventstoredb-mapping.js';

const wrongVersion = (current: bigint | 'no_stream'): WrongExpectedVersionError =>
  new WrongExpectedVersionError(undefined, { streamName: 's', expected: 0n, current });

describe('EventStoreDB error mapping', () => {
  it("maps actualVersion 'no_stream' to 'no_stream' (not through BigInt)", () => {
    const error = toWrongExpectedRevision(wrongVersion('no_stream'), 's', 0n);
    expect(error).toBeInstanceOf(WrongExpectedRevisionError);
    expect(error).toMatchObject({ stream: 's', expected: 0n, actual: 'no_stream' });
    expect(error?.cause).toBeInstanceOf(WrongExpectedVersionError);
  });

  it('maps a numeric actual version, and a negative one to no_stream', () => {
    expect(toWrongExpectedRevision(wrongVersion(4n), 's', 'no_stream')?.actual).toBe(4n);
    expect(toWrongExpectedRevision(wrongVersion(-1n), 's', 'stream_exists')?.actual).toBe('no_stream');
  });

  it('leaves other errors alone', () => {
    expect(toWrongExpectedRevision(new Error('boom'), 's', 'any')).toBeUndefined();
  });

  it('hides system events from global reads and applies both filters', () => {
    const event = {
      id: 'e',
      stream: 'invoice-1',
      revision: 0n,
      type: 'InvoiceIssued',
      data: {},
      metadata: {},
      position: { commit: 1n, prepare: 1n },
      recordedAt: new Date(),
    };
    expect(matchesFilter(event, undefined)).toBe(true);
    expect(matchesFilter({ ...event, stream: '$$invoice-1' }, undefined)).toBe(false);
    expect(matchesFilter({ ...event, type: '$metadata' }, undefined)).toBe(false);
    expect(matchesFilter(event, { streamPrefixes: ['invoice-'], eventTypes: ['InvoiceIssued'] })).toBe(true);
    expect(matchesFilter(event, { streamPrefixes: ['invoice-'], eventTypes: ['InvoicePaid'] })).toBe(false);
  });
});

describe('EventStoreDB adapter without a server', () => {
  it('does not offer appendMulti', async () => {
    const store = createEventStoreDbEventStore('esdb://127.0.0.1:1?tls=false');
    expect(store.capabilities).toEqual({
      atomicMultiStreamAppend: false,
      strictIdempotentAppend: false,
      maxAgeFromEachWrite: true,
    });
    await expect(store.appendMulti([])).rejects.toBeInstanceOf(UnsupportedOperationError);
    await store.close();
  });
});
