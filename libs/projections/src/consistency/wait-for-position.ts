import type { Pool } from 'pg';
import type { GlobalPosition } from '@once/event-store';
import { formatPosition } from '@once/event-store';

/** How a bounded wait for a projection ended. */
export type WaitForPositionResult =
  | { readonly reached: true; readonly checkpoint: string }
  | { readonly reached: false; readonly checkpoint: string | null };

export interface WaitForPositionOptions {
  /** The longest the read may wait. Default 2,000 ms. */
  readonly timeoutMs?: number;
  /** First pause between checks; doubles up to 100 ms. Default 5 ms. */
  readonly initialDelayMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * Waits, at most `timeoutMs`, until the live version of a projection has applied everything up to `position`
 * (the position a write returned), so a read after a write sees it. Never throws on timeout: the result says
 * whether the position was reached, and the caller decides whether to answer with what is there.
 *
 * @param pool the read-model database
 * @param projection the projection's name (e.g. `invoices`)
 * @param position a position from an append result, or its `formatPosition` text
 * @example
 * const { reached } = await waitForPosition(pool, 'invoices', appendResult.position, { timeoutMs: 1000 });
 */
export const waitForPosition = async (
  pool: Pool,
  projection: string,
  position: GlobalPosition | string,
  options: WaitForPositionOptions = {},
): Promise<WaitForPositionResult> => {
  const target = typeof position === 'string' ? position : formatPosition(position);
  const deadline = Date.now() + (options.timeoutMs ?? 2000);
  let delay = options.initialDelayMs ?? 5;
  for (;;) {
    const checkpoint = await readLiveCheckpoint(pool, projection);
    if (checkpoint !== null && checkpoint >= target) return { reached: true, checkpoint };
    const remaining = deadline - Date.now();
    if (remaining <= 0 || options.signal?.aborted) return { reached: false, checkpoint };
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, remaining)));
    delay = Math.min(delay * 2, 100);
  }
};

/**
 * The checkpoint (as `formatPosition` text) of a projection's live version, or null when it has none yet.
 *
 * @example
 * const checkpoint = await readLiveCheckpoint(pool, 'invoices');
 */
export const readLiveCheckpoint = async (pool: Pool, projection: string): Promise<string | null> => {
  const result = await pool.query<{ position: string | null }>(
    `SELECT c.position FROM projection_versions v
       JOIN projection_checkpoints c ON c.name = v.name AND c.version = v.version
      WHERE v.name = $1 AND v.state = 'live'`,
    [projection],
  );
  return result.rows[0]?.position ?? null;
};
