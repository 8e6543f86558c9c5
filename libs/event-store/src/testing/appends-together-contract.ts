import { describe, expect, it } from 'vitest';
import type { AppendResult, EventStore, StreamAppend, StreamRevision } from '../port/index.js';
import { WrongExpectedRevisionError, comparePositions } from '../port/index.js';
import { freshStream, someEvents } from './contract-fixtures.js';
import type { ContractOptions } from './contract-subject.js';

/** An append's outcome in short: the revisions it reports, or the wrong revision it failed with. */
type Outcome =
  | { readonly written: readonly StreamRevision[] }
  | { readonly wrong: { readonly stream: string; readonly actual: StreamRevision | 'no_stream' } };

const outcomeOf = (settled: PromiseSettledResult<AppendResult | readonly AppendResult[]>): Outcome => {
  if (settled.status === 'rejected') {
    if (!(settled.reason instanceof WrongExpectedRevisionError)) throw settled.reason;
    return { wrong: { stream: settled.reason.stream, actual: settled.reason.actual } };
  }
  const { value } = settled;
  const results: readonly AppendResult[] = 'nextExpectedRevision' in value ? [value] : value;
  return { written: results.map((result) => result.nextExpectedRevision) };
};

const ids = (events: readonly { id: string }[]): string[] => events.map((event) => event.id);

/**
 * Appends started together (in one turn of the event loop), with conflicts, repeated event ids and two appends to
 * one stream among them: each gets exactly the outcome it would get alone, sent in the order called (or, where the
 * adapter does not keep that order, `appendsInCallOrder: false`, in some order). PostgreSQL sends such appends as
 * one statement; this holds every adapter to the outcomes of sending them one by one.
 */
export const describeAppendsTogether = (store: () => EventStore, options: ContractOptions): void => {
  describe('appends started together', () => {
    it('each gets the outcome it would get alone: conflicts, repeated ids and same-stream pairs', async () => {
      const multi = store().capabilities.atomicMultiStreamAppend;
      const [pair, conflict, repeated, absent, twice, any] = [
        'pair',
        'conflict',
        'repeated',
        'absent',
        'twice',
        'any',
      ].map((label) => freshStream(`together-${label}`)) as [string, string, string, string, string, string];
      await store().appendToStream(pair, someEvents(1), { expectedRevision: 'no_stream' });
      await store().appendToStream(conflict, someEvents(2), { expectedRevision: 'no_stream' });
      const original = someEvents(2);
      const originalResult = await store().appendToStream(repeated, original, {
        expectedRevision: 'no_stream',
      });
      const [first, second, twiceEvents] = [someEvents(1), someEvents(2), someEvents(1)];

      // Multi-stream writes where the adapter offers them: a new one, one refused by a conflict on one of its
      // streams, a repeat of an earlier one, a guarded one, and a one-stream append after a new write's stream.
      // The last four are named by no other append of the call: a write refused on one stream must leave the
      // other as it was, a new stream absent and a moved head back where it was.
      const [
        newA,
        newB,
        refusedNew,
        earlierA,
        earlierB,
        guardedKey,
        guardedAggregate,
        lonelyNew,
        stale,
        movable,
        taken,
      ] = [
        'new-a',
        'new-b',
        'refused-new',
        'earlier-a',
        'earlier-b',
        'guarded-key',
        'guarded-aggregate',
        'lonely-new',
        'stale',
        'movable',
        'taken',
      ].map((label) => freshStream(`together-${label}`)) as [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      const earlier: StreamAppend[] = [
        { stream: earlierA, events: someEvents(1), expectedRevision: 'no_stream' },
        { stream: earlierB, events: someEvents(2), expectedRevision: 'no_stream' },
      ];
      let earlierResults: readonly AppendResult[] = [];
      if (multi) {
        earlierResults = await store().appendMulti(earlier);
        await store().appendToStream(guardedAggregate, someEvents(1), { expectedRevision: 'no_stream' });
        for (const existing of [stale, movable, taken]) {
          await store().appendToStream(existing, someEvents(1), { expectedRevision: 'no_stream' });
        }
      }

      const calls: {
        readonly name: string;
        readonly call: () => Promise<AppendResult | readonly AppendResult[]>;
      }[] = [
        {
          name: 'pair, first',
          call: () => store().appendToStream(pair, first, { expectedRevision: 0n }),
        },
        {
          name: 'pair, second',
          call: () => store().appendToStream(pair, second, { expectedRevision: 1n }),
        },
        ...(multi
          ? [
              {
                name: 'multi, new',
                call: () =>
                  store().appendMulti([
                    { stream: newA, events: someEvents(1), expectedRevision: 'no_stream' },
                    { stream: newB, events: someEvents(3), expectedRevision: 'no_stream' },
                  ]),
              },
              {
                name: 'multi, one stream in conflict',
                call: () =>
                  store().appendMulti([
                    { stream: refusedNew, events: someEvents(1), expectedRevision: 'no_stream' },
                    { stream: conflict, events: someEvents(1), expectedRevision: 0n },
                  ]),
              },
            ]
          : []),
        {
          name: 'conflict',
          call: () => store().appendToStream(conflict, someEvents(1), { expectedRevision: 0n }),
        },
        {
          name: 'repeat of an earlier append',
          call: () => store().appendToStream(repeated, original, { expectedRevision: 'no_stream' }),
        },
        {
          name: 'stream_exists on an absent stream',
          call: () => store().appendToStream(absent, someEvents(1), { expectedRevision: 'stream_exists' }),
        },
        {
          name: 'the same ids twice, first',
          call: () => store().appendToStream(twice, twiceEvents, { expectedRevision: 'no_stream' }),
        },
        {
          name: 'the same ids twice, second',
          call: () => store().appendToStream(twice, twiceEvents, { expectedRevision: 'no_stream' }),
        },
        {
          name: 'any on a new stream',
          call: () => store().appendToStream(any, someEvents(2), { expectedRevision: 'any' }),
        },
        ...(multi
          ? [
              { name: 'multi, repeat of an earlier write', call: () => store().appendMulti(earlier) },
              {
                name: 'after the new multi-stream write',
                call: () => store().appendToStream(newA, someEvents(1), { expectedRevision: 0n }),
              },
              {
                name: 'multi, guarded',
                call: () =>
                  store().appendMulti([
                    { stream: guardedKey, events: someEvents(1), expectedRevision: 'no_stream' },
                    {
                      stream: guardedAggregate,
                      events: someEvents(1),
                      expectedRevision: 0n,
                      expectNoRetention: true,
                    },
                  ]),
              },
              {
                name: 'multi, a new stream beside a stale head',
                call: () =>
                  store().appendMulti([
                    { stream: lonelyNew, events: someEvents(1), expectedRevision: 'no_stream' },
                    { stream: stale, events: someEvents(1), expectedRevision: 5n },
                  ]),
              },
              {
                name: 'multi, a movable head beside a taken stream',
                call: () =>
                  store().appendMulti([
                    { stream: movable, events: someEvents(1), expectedRevision: 0n },
                    { stream: taken, events: someEvents(1), expectedRevision: 'no_stream' },
                  ]),
              },
            ]
          : []),
      ];
      // Started in one turn, none awaited before the last has started.
      const settled = await Promise.allSettled(calls.map(({ call }) => call()));
      const outcomes = new Map(settled.map((result, index) => [calls[index]?.name, outcomeOf(result)]));

      const inCallOrder = {
        'pair, first': { written: [1n] },
        'pair, second': { written: [3n] },
      };
      const pairOutcomes = {
        'pair, first': outcomes.get('pair, first'),
        'pair, second': outcomes.get('pair, second'),
      };
      if (options.appendsInCallOrder ?? true) expect(pairOutcomes).toEqual(inCallOrder);
      else
        expect([
          inCallOrder,
          { 'pair, second': { wrong: { stream: pair, actual: 0n } }, 'pair, first': { written: [1n] } },
        ]).toContainEqual(pairOutcomes);
      expect(outcomes.get('conflict')).toEqual({ wrong: { stream: conflict, actual: 1n } });
      expect(outcomes.get('repeat of an earlier append')).toEqual({ written: [1n] });
      expect(outcomes.get('stream_exists on an absent stream')).toEqual({
        wrong: { stream: absent, actual: 'no_stream' },
      });
      expect(outcomes.get('the same ids twice, first')).toEqual({ written: [0n] });
      expect(outcomes.get('the same ids twice, second')).toEqual({ written: [0n] });
      expect(outcomes.get('any on a new stream')).toEqual({ written: [1n] });

      const repeat = settled[calls.findIndex(({ name }) => name === 'repeat of an earlier append')];
      if ((options.exactAppendPosition ?? true) && repeat?.status === 'fulfilled') {
        expect(comparePositions((repeat.value as AppendResult).position, originalResult.position)).toBe(0);
      }
      const pairIds = ids(await store().readStream(pair)).slice(1);
      if (options.appendsInCallOrder ?? true) expect(pairIds).toEqual(ids([...first, ...second]));
      expect(ids(await store().readStream(twice))).toEqual(ids(twiceEvents));
      expect(await store().readStream(conflict)).toHaveLength(2);
      expect(ids(await store().readStream(repeated))).toEqual(ids(original));
      expect(await store().readStream(absent)).toEqual([]);

      if (!multi) return;
      expect(outcomes.get('multi, new')).toEqual({ written: [0n, 2n] });
      expect(outcomes.get('multi, one stream in conflict')).toEqual({
        wrong: { stream: conflict, actual: 1n },
      });
      expect(await store().readStream(refusedNew)).toEqual([]);
      expect(outcomes.get('multi, repeat of an earlier write')).toEqual({ written: [0n, 1n] });
      const repeatedWrite =
        settled[calls.findIndex(({ name }) => name === 'multi, repeat of an earlier write')];
      if ((options.exactAppendPosition ?? true) && repeatedWrite?.status === 'fulfilled') {
        expect((repeatedWrite.value as readonly AppendResult[]).map((result) => result.position)).toEqual(
          earlierResults.map((result) => result.position),
        );
      }
      expect(await store().readStream(earlierB)).toHaveLength(2);
      const afterNew = outcomes.get('after the new multi-stream write');
      if (options.appendsInCallOrder ?? true) expect(afterNew).toEqual({ written: [1n] });
      else
        expect([{ written: [1n] }, { wrong: { stream: newA, actual: 'no_stream' } }]).toContainEqual(
          afterNew,
        );
      expect(await store().readStream(newA)).toHaveLength('written' in (afterNew ?? {}) ? 2 : 1);
      expect(outcomes.get('multi, guarded')).toEqual({ written: [0n, 1n] });
      expect(outcomes.get('multi, a new stream beside a stale head')).toEqual({
        wrong: { stream: stale, actual: 0n },
      });
      expect(await store().readStream(lonelyNew)).toEqual([]);
      expect(outcomes.get('multi, a movable head beside a taken stream')).toEqual({
        wrong: { stream: taken, actual: 0n },
      });
      expect(await store().readStream(movable)).toHaveLength(1);
      await expect(
        store().appendToStream(movable, someEvents(1), { expectedRevision: 0n }),
      ).resolves.toMatchObject({ nextExpectedRevision: 1n });
      await expect(
        store().appendToStream(lonelyNew, someEvents(1), { expectedRevision: 'no_stream' }),
      ).resolves.toMatchObject({ nextExpectedRevision: 0n });
    });
  });
};
