// The timers module's own function: a test that fakes the global timers must not stop the store's appends.
import { setImmediate } from 'node:timers';

/**
 * Sends several callers' appends, in the order given, as one statement with the clock they share, and answers each
 * append its own outcome, in their order; `undefined` for an append to send alone after the statement.
 */
export type SendTogether<Append, Answer> = (
  appends: readonly Append[],
  now: Date | null,
) => Promise<readonly (Answer | undefined)[]>;

/** Sends one append as a statement of its own. */
export type SendAlone<Append, Answer> = (append: Append, now: Date | null) => Promise<Answer>;

export interface SharedCommitsOptions {
  /** The most appends one statement carries; a batch that reaches it is sent at once. */
  readonly maxAppends: number;
  /**
   * How long a batch may stay open past the turn it opened in, in microseconds, while other appends are being
   * written (0: the turn only). An append that finds none in flight never waits past its turn.
   */
  readonly waitMicroseconds: number;
}

/** A caller's append in a batch, and how to answer it. */
interface Waiting<Append, Answer> {
  readonly append: Append;
  readonly resolve: (answer: Answer) => void;
  readonly reject: (error: unknown) => void;
}

/** The appends that reached the store in this turn of the event loop (or in the wait that follows it). */
interface Batch<Append, Answer> {
  readonly now: Date | null;
  readonly openedAt: bigint;
  readonly waiting: Waiting<Append, Answer>[];
}

/**
 * Appends that reach the store in one turn of the event loop, sent as one statement and so committed together:
 * under load the requests one poll of the sockets wakes each append before the turn ends, and each commit costs the
 * server a WAL flush and both processes a round trip that a longer statement barely adds to. A caller alone waits
 * only for the rest of the turn (`setImmediate`). With `waitMicroseconds`, a batch stays open over the next turns,
 * up to that long since it opened, while other appends are in flight (so more can join it); at concurrency 1 none
 * are, and nothing waits. Appends on different clocks are never mixed; a batch of one is sent alone.
 *
 * Appends the statement leaves to be sent alone, and every append of a statement that failed (it kept nothing), are
 * sent alone one after another in their order, so two appends to one stream still go in the order they came.
 */
export const sharingCommits = <Append, Answer>(
  sendTogether: SendTogether<Append, Answer>,
  sendAlone: SendAlone<Append, Answer>,
  { maxAppends, waitMicroseconds }: SharedCommitsOptions,
): SendAlone<Append, Answer> => {
  let pending: Batch<Append, Answer> | undefined;
  let inFlight = 0;
  const waitNanoseconds = BigInt(Math.round(waitMicroseconds * 1_000));

  // Sent from a timer's callback: a sender that throws instead of rejecting must fail its callers, not the process.
  const counted = <T>(send: () => Promise<T>): Promise<T> => {
    inFlight += 1;
    let sent: Promise<T>;
    try {
      sent = send();
    } catch (error) {
      sent = Promise.reject(error as Error);
    }
    return sent.finally(() => {
      inFlight -= 1;
    });
  };

  const sendEachAlone = async (
    waiting: readonly Waiting<Append, Answer>[],
    now: Date | null,
  ): Promise<void> => {
    for (const { append, resolve, reject } of waiting) {
      await counted(() => sendAlone(append, now)).then(resolve, reject);
    }
  };

  const flush = (batch: Batch<Append, Answer>): void => {
    if (pending === batch) pending = undefined;
    const { waiting, now } = batch;
    if (waiting.length === 1) {
      void sendEachAlone(waiting, now);
      return;
    }
    void counted(() =>
      sendTogether(
        waiting.map(({ append }) => append),
        now,
      ),
    ).then(
      (answers) => {
        const alone: Waiting<Append, Answer>[] = [];
        waiting.forEach((caller, index) => {
          const answer = answers[index];
          if (answer === undefined) alone.push(caller);
          else caller.resolve(answer);
        });
        void sendEachAlone(alone, now);
      },
      () => {
        void sendEachAlone(waiting, now);
      },
    );
  };

  const flushWhenDue = (batch: Batch<Append, Answer>): void => {
    if (pending !== batch) return;
    const waited = process.hrtime.bigint() - batch.openedAt;
    if (inFlight > 0 && waited < waitNanoseconds) setImmediate(() => flushWhenDue(batch));
    else flush(batch);
  };

  return (append, now) =>
    new Promise<Answer>((resolve, reject) => {
      if (pending !== undefined && pending.now?.getTime() !== now?.getTime()) flush(pending);
      let batch = pending;
      if (batch === undefined) {
        const opened: Batch<Append, Answer> = { now, openedAt: process.hrtime.bigint(), waiting: [] };
        setImmediate(() => flushWhenDue(opened));
        pending = batch = opened;
      }
      batch.waiting.push({ append, resolve, reject });
      if (batch.waiting.length >= maxAppends) flush(batch);
    });
};
