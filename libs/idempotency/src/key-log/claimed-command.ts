import type { TypedCommand } from '../commands/index.js';
import type { IdempotencyKeyClaimedData, LegacyKeyClaimedData } from './key-log.events.js';

/** A claim of the first format, as an app's upcaster sees it: the HTTP request the key was claimed for. */
export interface LegacyClaimedRequest {
  readonly method: string;
  readonly route: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly body: unknown;
}

/** Turns a first-format claim into the typed command it stood for; undefined when the app no longer knows it. */
export type ClaimUpcaster = (request: LegacyClaimedRequest) => TypedCommand | undefined;

const isLegacyClaim = (
  claim: IdempotencyKeyClaimedData | LegacyKeyClaimedData,
): claim is LegacyKeyClaimedData => !('commandType' in claim) && 'request' in claim;

/**
 * The typed command a claim recorded: read as is, or upcast from the first format (which stored the request).
 *
 * @example
 * const command = claimedCommand(state.claim, upcastLegacyClaim);
 * if (command) handlers.byType(command.type);
 */
export const claimedCommand = (
  claim: IdempotencyKeyClaimedData | LegacyKeyClaimedData,
  upcast: ClaimUpcaster | undefined,
): TypedCommand | undefined => {
  if (!isLegacyClaim(claim)) {
    return { type: claim.commandType, version: claim.commandVersion, data: claim.command };
  }
  const params = claim.request.params;
  return upcast?.({
    method: claim.method,
    route: claim.route,
    params: typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {},
    body: claim.request.body,
  });
};
