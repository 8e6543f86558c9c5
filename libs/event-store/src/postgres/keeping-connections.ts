import type { Pool, PoolClient, QueryConfig, QueryResult } from 'pg';

/**
 * The pool, with a `query` that leaves a connection in the pool when the statement failed with an error the server
 * reported for that statement alone (severity ERROR). pg-pool's own `query` ends the connection on any error; an
 * append that loses a race fails by design (a fast-path miss, a wrong expected revision), and each loss then cost a
 * new server process, which starts cold and plans every statement again. A statement sent through `pool.query` runs
 * in a transaction of its own, so after such an error the connection is as good as before. A connection that broke,
 * or that the server ended (FATAL), is discarded as before.
 *
 * Written with callbacks, as pg-pool's `query` is: awaiting `pool.connect()` and then the client's own promise kept
 * every statement's query and result objects alive past a minor garbage collection, and V8 then allocated every
 * statement's results in its old generation.
 */
export const keepingConnections = (pool: Pool): Pool => {
  const query = (text: string | QueryConfig, values?: unknown[]): Promise<QueryResult> =>
    new Promise((resolve, reject) => {
      pool.connect((connectError, client, release) => {
        if (connectError || client === undefined) {
          reject(asError(connectError));
          return;
        }
        let released = false;
        const releaseOnce = (error: Error | undefined): boolean => {
          if (released) return false;
          released = true;
          release(error);
          return true;
        };
        // The connection broke while the statement ran: it leaves the pool, and the statement fails with it.
        const onError = (error: Error) => {
          if (releaseOnce(error)) reject(error);
        };
        client.once('error', onError);
        try {
          (client.query as unknown as QueryWithCallback).call(client, text, values, (error, result) => {
            client.removeListener('error', onError);
            if (!releaseOnce(!error || failedStatementOnly(error) ? undefined : error)) return;
            if (error) reject(error);
            else resolve(result);
          });
        } catch (error) {
          client.removeListener('error', onError);
          if (releaseOnce(asError(error))) reject(asError(error));
        }
      });
    });
  return new Proxy(pool, {
    get: (target, property, receiver) =>
      property === 'query' ? query : Reflect.get(target, property, receiver),
  });
};

/** pg's `query` as this sends it: a config or a text, with the values the caller gave, and a callback. */
type QueryWithCallback = (
  this: PoolClient,
  text: string | QueryConfig,
  values: unknown[] | undefined,
  // pg answers a statement that succeeded with a null error.
  callback: (error: Error | null, result: QueryResult) => void,
) => void;

/** A server's error report for the statement (pg's DatabaseError: a SQLSTATE and a severity), not a broken link. */
const failedStatementOnly = (error: unknown): boolean => {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && severity === 'ERROR';
};

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
