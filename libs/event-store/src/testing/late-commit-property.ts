import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { EventStore, RecordedEvent } from '../port/index.js';
import { comparePositions } from '../port/index.js';
import { readAllUntil, someEvents } from './contract-fixtures.js';
import type { ContractSubject, HeldAppend } from './contract-subject.js';

/** One step of a late-commit scenario. */
export type LateCommitStep =
  | {
      readonly kind: 'append';
      readonly writers: readonly { readonly stream: number; readonly count: number }[];
    }
  | { readonly kind: 'hold'; readonly count: number }
  | { readonly kind: 'commit'; readonly pick: number }
  | { readonly kind: 'read'; readonly maxCount: number };

const stepArbitrary: fc.Arbitrary<LateCommitStep> = fc.oneof(
  fc.record({
    kind: fc.constant('append' as const),
    writers: fc.array(fc.record({ stream: fc.nat(3), count: fc.integer({ min: 1, max: 3 }) }), {
      minLength: 1,
      maxLength: 4,
    }),
  }),
  fc.record({ kind: fc.constant('hold' as const), count: fc.integer({ min: 1, max: 2 }) }),
  fc.record({ kind: fc.constant('commit' as const), pick: fc.nat(5) }),
  fc.record({ kind: fc.constant('read' as const), maxCount: fc.integer({ min: 1, max: 6 }) }),
);

/** The shortest scenario a reader ordered by sequence number alone gets wrong: a hold, a later write, a read, a commit. */
export const lateCommitExample: readonly LateCommitStep[] = [
  { kind: 'hold', count: 1 },
  { kind: 'append', writers: [{ stream: 0, count: 1 }] },
  { kind: 'read', maxCount: 10 },
  { kind: 'commit', pick: 0 },
  { kind: 'read', maxCount: 10 },
];

/**
 * Runs one scenario: concurrent appends, appends held open and committed late, reads in between. Then checks that
 * the reader saw every committed event exactly once, in strictly increasing checkpoint order.
 */
export const runLateCommitScenario = async (
  subject: ContractSubject,
  steps: readonly LateCommitStep[],
  readAll: EventStore['readAll'] = (options) => subject.store.readAll(options),
  settleMs = 10_000,
): Promise<void> => {
  const prefix = `late-${randomUUID()}-`;
  const filter = { streamPrefixes: [prefix] };
  const written: string[] = [];
  const held: { append: HeldAppend; ids: string[] }[] = [];
  const seen: RecordedEvent[] = [];
  let checkpoint: RecordedEvent['position'] | undefined;
  let heldStreams = 0;

  const commitHeld = async (index: number): Promise<void> => {
    const [picked] = held.splice(index, 1);
    if (!picked) return;
    await picked.append.commit();
    written.push(...picked.ids);
  };

  try {
    for (const step of steps) {
      switch (step.kind) {
        case 'append': {
          await Promise.all(
            step.writers.map(async ({ stream, count }) => {
              const events = someEvents(count);
              await subject.store.appendToStream(`${prefix}${stream}`, events, { expectedRevision: 'any' });
              written.push(...events.map((event) => event.id));
            }),
          );
          break;
        }
        case 'hold': {
          const events = someEvents(step.count);
          const stream = `${prefix}held-${heldStreams++}`;
          if (subject.beginHeldAppend) {
            held.push({
              append: await subject.beginHeldAppend(stream, events),
              ids: events.map((event) => event.id),
            });
          } else {
            await subject.store.appendToStream(stream, events, { expectedRevision: 'no_stream' });
            written.push(...events.map((event) => event.id));
          }
          break;
        }
        case 'commit': {
          if (held.length > 0) await commitHeld(step.pick % held.length);
          break;
        }
        case 'read': {
          const batch = await readAll({
            filter,
            maxCount: step.maxCount,
            ...(checkpoint ? { after: checkpoint } : {}),
          });
          seen.push(...batch.events);
          checkpoint = batch.checkpoint ?? checkpoint;
          break;
        }
        default: {
          const _exhaustive: never = step;
          throw new Error(`unknown step ${String(_exhaustive)}`);
        }
      }
    }
  } finally {
    while (held.length > 0) await commitHeld(0);
  }
  const rest = await readAllUntil(
    readAll,
    { filter, maxCount: 7, ...(checkpoint ? { after: checkpoint } : {}) },
    (more) => seen.length + more.length >= written.length,
    settleMs,
  );
  seen.push(...rest.events);

  const seenIds = seen.map((event) => event.id);
  if (new Set(seenIds).size !== seenIds.length)
    throw new Error(`the reader saw an event twice: ${seenIds.join(',')}`);
  const missing = written.filter((id) => !seenIds.includes(id));
  if (missing.length > 0 || seenIds.length !== written.length) {
    throw new Error(`the reader missed ${missing.length} of ${written.length} events`);
  }
  seen.forEach((event, index) => {
    const previous = seen[index - 1];
    if (previous && comparePositions(previous.position, event.position) >= 0) {
      throw new Error(`events out of checkpoint order at ${index}`);
    }
  });
};

/**
 * The late-commit property: for random scenarios (and the known hard one), the reader sees every event exactly
 * once and in checkpoint order. Throws fast-check's counterexample when a reader breaks it.
 *
 * @example
 * await assertLateCommitProperty(subject, { numRuns: 10 });
 */
export const assertLateCommitProperty = async (
  subject: ContractSubject,
  options: {
    readonly numRuns?: number;
    readonly readAll?: EventStore['readAll'];
    /** How long the final read waits for events still missing (a correct reader needs only until commits land). */
    readonly settleMs?: number;
  } = {},
): Promise<void> => {
  await fc.assert(
    fc.asyncProperty(fc.array(stepArbitrary, { minLength: 1, maxLength: 12 }), async (steps) => {
      await runLateCommitScenario(subject, steps, options.readAll, options.settleMs);
    }),
    { numRuns: options.numRuns ?? 12, examples: [[[...lateCommitExample]]], endOnFailure: true },
  );
};
