// The timers module's own function: a test that fakes the global timers must not stop the store's reads.
import { setImmediate } from 'node:timers';

/** Sends reads as one statement, with the clock they share, and answers one result per read, in their order. */
export type SendReads<Read, Result> = (
  reads: readonly Read[],
  now: Date | null,
) => Promise<readonly Result[]>;

/** A caller's reads in a batch, and how to answer it. */
interface Waiting<Read, Result> {
  readonly reads: readonly Read[];
  readonly resolve: (results: readonly Result[]) => void;
  readonly reject: (error: unknown) => void;
}

/** The reads asked for in this turn of the event loop: sent together once the turn's I/O callbacks have run. */
interface Batch<Read, Result> {
  readonly now: Date | null;
  readonly waiting: Waiting<Read, Result>[];
  count: number;
}

/**
 * Reads asked for in one turn of the event loop, sent as one statement. Under load the callers that the same poll of
 * the sockets woke each ask for a read before the turn ends, and every statement costs both processes a round trip of
 * parsing, messages and syscalls that a longer list barely adds to: eight engines' replays went out as one statement
 * instead of eight. A caller alone waits only for the rest of the turn (`setImmediate`). Reads on different clocks
 * (a store given a clock) are never mixed, and a batch holds at most `maxReads`: a caller asking for more is sent
 * alone. When a merged statement fails, each caller's reads are sent again alone, so that a read one caller got wrong,
 * or a connection that broke under the batch, answers each caller for its own reads.
 *
 * Each statement is a snapshot of its own taken when it starts, after every caller in it asked, so a caller still
 * reads everything committed before it asked (its own appends among them).
 */
export const coalescingReads = <Read, Result>(
  send: SendReads<Read, Result>,
  maxReads: number,
): SendReads<Read, Result> => {
  // The batch still open to callers; one sent early (full, or another clock came) is no longer pending.
  let pending: Batch<Read, Result> | undefined;

  // Sent from a timer's callback: a sender that throws instead of rejecting must fail its callers, not the process.
  const sending = (reads: readonly Read[], now: Date | null): Promise<readonly Result[]> => {
    try {
      return send(reads, now);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  };

  const sendAlone = ({ reads, resolve, reject }: Waiting<Read, Result>, now: Date | null): void => {
    sending(reads, now).then(resolve, reject);
  };

  const flushPending = (): void => {
    const batch = pending;
    if (batch === undefined) return;
    pending = undefined;
    const [only] = batch.waiting;
    if (batch.waiting.length === 1 && only !== undefined) {
      sendAlone(only, batch.now);
      return;
    }
    sending(
      batch.waiting.flatMap((waiting) => waiting.reads),
      batch.now,
    ).then(
      (results) => {
        let at = 0;
        for (const waiting of batch.waiting) {
          waiting.resolve(results.slice(at, at + waiting.reads.length));
          at += waiting.reads.length;
        }
      },
      () => {
        for (const waiting of batch.waiting) sendAlone(waiting, batch.now);
      },
    );
  };

  return (reads, now) => {
    if (reads.length >= maxReads) return send(reads, now);
    return new Promise((resolve, reject) => {
      if (
        pending !== undefined &&
        (pending.now?.getTime() !== now?.getTime() || pending.count + reads.length > maxReads)
      ) {
        flushPending();
      }
      let batch = pending;
      if (batch === undefined) {
        const started: Batch<Read, Result> = { now, waiting: [], count: 0 };
        setImmediate(() => {
          if (pending === started) flushPending();
        });
        pending = batch = started;
      }
      batch.waiting.push({ reads, resolve, reject });
      batch.count += reads.length;
    });
  };
};
