/**
 * Polls `condition` every 25 ms until it holds; throws, naming `what`, once `timeoutMs` (default 30 s) has passed.
 * A bound against a hung test, never a timing assertion.
 *
 * @example
 * await waitFor(async () => (await getIdempotencyKey(pool, key))?.status === 'completed', 'the key to complete');
 */
export const waitFor = async (
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};
