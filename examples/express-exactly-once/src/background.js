import { startStreamScavenger } from '@once/event-store/postgres';
import { startCompleter } from '@once/idempotency';

/**
 * What runs beside the routes. The completer finishes keys whose request died half-way (its process crashed, its
 * lease ran out) from where they stopped, exactly as the client's retry would. Retention removes key streams once
 * their retention has passed (24 h after they completed, by default). Every instance may run both: a lease lets one
 * completer finish a key, and one scavenger at a time leads (a PostgreSQL advisory lock). `onError(error, part)`
 * hears of a failed round; the next one runs as usual.
 */
export const startBackgroundWork = ({ pool, engine, handlers, onError }) => {
  const scavenger = startStreamScavenger({
    pool,
    intervalMs: 60_000,
    onError: (error) => onError(error, 'retention'),
  });
  // Each round reads every key event the store still keeps: retention is what keeps that bounded.
  const completer = startCompleter({
    engine,
    handlers,
    intervalMs: 10_000,
    onError: (error) => onError(error, 'completer'),
  });
  return {
    /** One completer round now: the results of the keys it looked at. */
    completeAbandonedKeys: () => completer.runRound(),
    /** One retention round now: how many expired streams it removed. */
    removeExpiredKeys: () => scavenger.runRound(),
    stop: async () => {
      await completer.stop();
      await scavenger.stop();
    },
  };
};
