import { callApi, problemText } from '../common/index.js';
import type { KeyLogEntry } from './key-log-entry.js';

export interface KeySummary {
  readonly key: string;
  readonly actorId: string;
  readonly status: string;
  readonly method: string;
  readonly route: string;
  readonly recoveryPoint: string;
  readonly holder?: string;
  readonly leaseExpiresAt?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface KeyTimeline extends KeySummary {
  readonly response?: {
    readonly status: number;
    readonly headers: Record<string, string>;
    readonly body: string;
  };
  readonly releaseReason?: string;
  readonly events: readonly KeyLogEntry[];
}

export interface ConsoleOverview {
  readonly inFlight: readonly (KeySummary & { readonly leaseExpired: boolean })[];
  /** Keys in flight the completer cannot resume (no handler for their command): an operator must look. */
  readonly unresumable: readonly {
    readonly key: string;
    readonly commandType?: string;
    readonly leaseExpiredAt: string;
  }[];
  readonly payments: readonly {
    readonly id: string;
    readonly invoiceId: string;
    readonly method: string;
    readonly status: string;
    readonly amount: number;
    readonly currency: string;
    /** What the gateway reported charging when it was not the reservation. */
    readonly gatewayCharged: { readonly amount: number; readonly currency: string } | null;
  }[];
  readonly projections: readonly {
    readonly name: string;
    readonly version: number;
    readonly behindEvents: number;
    readonly countLimit: number;
    readonly oldestUnappliedAt?: string;
    readonly checkpointUpdatedAt: string;
  }[];
  readonly routes: {
    readonly since: string;
    readonly routes: readonly {
      readonly method: string;
      readonly route: string;
      readonly requests: number;
      readonly keyed: number;
      readonly replays: number;
      readonly status409: number;
      readonly status422: number;
      readonly replayRate: number;
      readonly conflictRate: number;
      readonly unprocessableRate: number;
    }[];
  };
}

const read = async <T>(apiKey: string, path: string): Promise<T> => {
  const answer = await callApi<T>(apiKey, 'GET', path);
  // A staff key is refused (403) with a problem saying which role the console needs: show it.
  if (!answer.ok) throw new Error(`${path}: ${String(answer.status)} ${problemText(answer.body)}`);
  return answer.body;
};

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The keys a lookup names: by key, and when the text is a UUID also by the resource their responses name (a UUID may
 * be either). Each key once, oldest first.
 *
 * @example
 * const keys = await lookUp(apiKey, '0192f0c4-7d1e-7a3b-9c4d-5e6f708192a3');
 */
export const lookUp = async (apiKey: string, text: string): Promise<KeyTimeline[]> => {
  const query = encodeURIComponent(text);
  const [byKey, byResource] = await Promise.all([
    text.length >= 8 ? read<{ keys: KeyTimeline[] }>(apiKey, `/ops/keys?key=${query}`) : { keys: [] },
    uuidPattern.test(text)
      ? read<{ keys: KeyTimeline[] }>(apiKey, `/ops/keys?resource=${query}`)
      : { keys: [] },
  ]);
  const seen = new Set<string>();
  return [...byKey.keys, ...byResource.keys]
    .filter((key) => {
      const id = `${key.actorId} ${key.key}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    })
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
};

/** Everything the console's panels show, read at once. */
export const readOverview = async (apiKey: string): Promise<ConsoleOverview> => {
  const [inFlight, unresumable, payments, projections, routes] = await Promise.all([
    read<{ keys: ConsoleOverview['inFlight'] }>(apiKey, '/ops/keys/in-flight'),
    read<{ keys: ConsoleOverview['unresumable'] }>(apiKey, '/ops/keys/unresumable'),
    read<{ payments: ConsoleOverview['payments'] }>(apiKey, '/ops/payments/needing-attention'),
    read<{ projections: ConsoleOverview['projections'] }>(apiKey, '/ops/projections'),
    read<ConsoleOverview['routes']>(apiKey, '/ops/routes'),
  ]);
  return {
    inFlight: inFlight.keys,
    unresumable: unresumable.keys,
    payments: payments.payments,
    projections: projections.projections,
    routes,
  };
};
