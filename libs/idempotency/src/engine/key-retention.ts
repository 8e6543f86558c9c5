import type { ExpectedRevision, StreamRetention } from '@once/event-store';
import type { EngineSettings, ExecuteInput } from './engine-settings.js';

/** A key's retention (seconds): the route's, else the handler's, else the engine's. */
export const retentionOf = (settings: EngineSettings, input: ExecuteInput): number =>
  input.retentionSeconds ?? input.handler.retentionSeconds ?? settings.retentionSeconds;

/**
 * The retention of a claim that completes the key in its own write (the atomic protocol, or a rejection decided
 * with the claim): a new key stream gets it in the same commit as its first events (no separate call, no second
 * commit); a stream that already exists keeps the one its earlier life ended with.
 */
export const claimRetention = (
  settings: EngineSettings,
  input: ExecuteInput,
  expected: ExpectedRevision,
): { readonly retention?: StreamRetention } =>
  expected === 'no_stream' ? { retention: { maxAgeSeconds: retentionOf(settings, input) } } : {};

/**
 * The retention of a claim that leaves the key in flight: none, so nothing of a key in flight ever expires or is
 * scavenged, however long it waits for its completer. A new stream gets none; a stream with an earlier life
 * (released, or expired and not yet removed) hides that life below the claim, by revision and never by age.
 */
export const inFlightClaimRetention = (
  expected: ExpectedRevision,
): { readonly retention?: StreamRetention } =>
  typeof expected === 'bigint' ? { retention: { truncateBefore: expected + 1n } } : {};

/**
 * The retention written with a key's completion or release: its clock starts there. Events age from their own
 * record time, so the age counts the time the key spent in flight too: its claim then expires a whole retention
 * after the completion, and the key answers at least that long.
 */
export const endOfLifeRetention = (
  settings: EngineSettings,
  input: ExecuteInput,
  claimedAt: string,
  now: number,
): StreamRetention => ({
  maxAgeSeconds: retentionOf(settings, input) + Math.max(0, Math.ceil((now - Date.parse(claimedAt)) / 1000)),
});
