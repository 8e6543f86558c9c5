import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveId } from '../ids/index.js';
import { incrementInput } from '../testing/index.js';
import type { CommandHandler } from './command-handler.js';
import { Execution } from './execution.js';

describe("a command context's IDs", () => {
  it('are the IDs derived from the key for each purpose and index, the same however often a handler asks', () => {
    const scope = { tenantId: 'tenant-1', actorId: 'actor-1' };
    const key = 'key-12345678';
    // The execution only hands its context to a handler; this one is never run.
    const handler: CommandHandler = {
      kind: 'decide',
      streams: () => [],
      decide: () => {
        throw new Error('not run');
      },
    };
    const execution = new Execution({ scope, key, ...incrementInput('counter-1', 1), handler });
    const asks = fc.array(
      fc.tuple(
        fc.constantFrom('payment', 'invoice', '1:payment', 'payment:1', ''),
        fc.integer({ min: 0, max: 3 }),
      ),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(asks, (asked) => {
        const { ids } = execution.context(0);
        for (const [purpose, index] of asked) {
          expect(ids.next(purpose, index)).toBe(deriveId(scope, key, purpose, index));
        }
        expect(ids.next('payment')).toBe(deriveId(scope, key, 'payment', 0));
      }),
    );
  });
});
