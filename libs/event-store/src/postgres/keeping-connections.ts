import type { Pool } from 'pg';

/**
 * The pool, with a `query` that leaves a connection in the pool when the statement failed with an error the server
 * reported for that statement alone (severity ERROR). pg-pool's own `query` ends the connection on any error; an
 * append that loses a race fails by design (a fast-path miss, a wrong expected revision), and each loss then cost a
 * new server process, which starts cold and plans every statement again. A statement sent through `pool.query` runs
 * in a transaction of its own, so after such an error the connection is as good as before. A connection that broke,
 * or that the server ended (FATAL), is discarded as before.
 */
export const keepingConnections = (pool: Pool): Pool => {
  const query = async (...args: unknown[]): Promise<unknown> => {
    const client = await pool.connect();
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on('error', onError);
    let failure: Error | undefined;
    try {
      return await (client.query as (...a: unknown[]) => Promise<unknown>)(...args);
    } catch (error) {
      if (!failedStatementOnly(error)) failure = asError(error);
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken ?? failure);
    }
  };
  return new Proxy(pool, {
    get: (target, property, receiver) =>
      property === 'query' ? query : Reflect.get(target, property, receiver),
  });
};

/** A server's error report for the statement (pg's DatabaseError: a SQLSTATE and a severity), not a broken link. */
const failedStatementOnly = (error: unknown): boolean => {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && severity === 'ERROR';
};

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
