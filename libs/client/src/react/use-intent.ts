import { useCallback, useEffect, useRef, useState } from 'react';
import type { IdempotentClient, SubmitOptions, SubmitOutcome } from '../client/index.js';
import type { Intent, IntentRequest } from '../intent/index.js';

/** Where the intent of a `useIntent` stands: nothing sent yet, sending under its key, or answered. */
export type IntentState =
  | { readonly status: 'idle' }
  | { readonly status: 'sending'; readonly key: string }
  | { readonly status: 'answered'; readonly key: string; readonly outcome: SubmitOutcome };

/** What `useIntent` gives a component. */
export interface IntentHandle {
  readonly state: IntentState;
  /**
   * Sends the user's intent. The first call makes its key and stores the request; a call while it is sending gets
   * the same send (a double tap is one request); a call after `gave-up` (or a 401/403) sends it again under the
   * same key; a call after a definitive answer returns that answer and sends nothing. The request is the one of the
   * first call until `reset`.
   */
  submit(request: IntentRequest, options?: SubmitOptions): Promise<SubmitOutcome>;
  /**
   * Starts over: the next `submit` is a new intent with a new key. An intent that never got a definitive answer is
   * discarded from the client's storage, so it is not sent again later.
   */
  reset(): Promise<void>;
}

const isFinished = (outcome: SubmitOutcome): boolean =>
  outcome.kind === 'succeeded' || (outcome.kind === 'rejected' && outcome.final);

/**
 * One user intent in a React component: its key lives as long as the component means the same thing (until
 * `reset`), so a nervous double tap, a retry after a failure or a re-render never makes a second key.
 *
 * @example
 * const pay = useIntent(client);
 * <button disabled={pay.state.status === 'sending'} onClick={() => void pay.submit({ method: 'POST', path, body })}>
 */
export const useIntent = (client: IdempotentClient): IntentHandle => {
  const [state, setState] = useState<IntentState>({ status: 'idle' });
  // Refs, not state: two taps in one event turn must see the first one's intent and send before any re-render.
  const intent = useRef<Promise<Intent> | undefined>(undefined);
  const sending = useRef<Promise<SubmitOutcome> | undefined>(undefined);
  const answer = useRef<SubmitOutcome | undefined>(undefined);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const show = (next: IntentState) => {
    if (mounted.current) setState(next);
  };

  const submit = useCallback(
    (request: IntentRequest, options?: SubmitOptions): Promise<SubmitOutcome> => {
      if (sending.current) return sending.current;
      if (answer.current && isFinished(answer.current)) return Promise.resolve(answer.current);
      intent.current ??= client.createIntent(request);
      const current = intent.current;
      const send = (async () => {
        const made = await current;
        show({ status: 'sending', key: made.key });
        try {
          const outcome = await client.submit(made, options);
          if (intent.current === current) {
            answer.current = outcome;
            show({ status: 'answered', key: made.key, outcome });
          }
          return outcome;
        } finally {
          // One send at a time per intent: this one ends unless `reset` already moved on to another intent.
          if (intent.current === current) sending.current = undefined;
        }
      })();
      sending.current = send;
      return send;
    },
    [client],
  );

  const reset = useCallback(async (): Promise<void> => {
    const current = intent.current;
    const last = answer.current;
    intent.current = undefined;
    sending.current = undefined;
    answer.current = undefined;
    show({ status: 'idle' });
    if (current && !(last && isFinished(last))) await client.discard((await current).key);
  }, [client]);

  return { state, submit, reset };
};
