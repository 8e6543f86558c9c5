import { setTimeout as sleep } from 'node:timers/promises';
import type { FaultRecord } from '../history/index.js';
import { pick } from '../random/index.js';
import type { Random } from '../random/index.js';
import type { ManagedProcess, SpawnedSystem } from '../spawn/index.js';

/** The process and gateway faults a spawned run can inject. */
export const processFaultKinds = [
  'kill-api',
  'kill-projector-leader',
  'kill-gateway',
  'kill-postgres',
  'gateway-hang',
  'gateway-error',
  'gateway-lost-response',
] as const;
/** The faults of a run against the HA cluster (`--cluster`): its leader killed, one way or the other. */
export const clusterFaultKinds = ['kill-leader-postgres', 'kill-leader-node'] as const;
export type ProcessFaultKind = (typeof processFaultKinds)[number] | (typeof clusterFaultKinds)[number];

export interface ProcessFaultSchedule {
  /**
   * Stops injecting and waits for the fault in progress (a PostgreSQL restart) to finish; rejects, as `failed` did,
   * when a fault's victim never came back.
   */
  stop(): Promise<void>;
  /**
   * Rejects as soon as a fault's victim does not come back in time (a restarted process never ready, a cluster
   * without a leader): the schedule has stopped and the run cannot go on. Never resolves.
   */
  readonly failed: Promise<never>;
}

export interface ProcessFaultOptions {
  readonly system: SpawnedSystem;
  readonly kinds: readonly ProcessFaultKind[];
  /** The mean pause between two faults; each pause is drawn uniformly from half to one and a half of it. */
  readonly intervalMs: number;
  /** Stops injecting after this many faults (default: none stops it but `stop`). */
  readonly maxFaults?: number;
  /**
   * The share of the workload's intents created so far, from 0 to 1. With `maxFaults`, the faults are spread over
   * the workload by it instead of by time: the kth of N comes once k/(N+1) of the intents were created, so each one
   * meets traffic however fast the machine runs the workload.
   */
  readonly progress?: () => number;
  readonly random: Random;
  readonly record: (fault: FaultRecord) => void;
}

/** How often a schedule spread over the workload looks at its progress. */
const progressPollMs = 50;

const leaseBalance = (projector: ManagedProcess): number =>
  projector
    .linesSinceStart()
    .reduce(
      (sum, line) =>
        sum +
        (line.includes('took the projection lease')
          ? 1
          : line.includes('lost the projection lease')
            ? -1
            : 0),
      0,
    );

/** The projector holding the most projection leases: the leader. */
const projectorLeader = (projectors: readonly ManagedProcess[]): ManagedProcess | undefined =>
  [...projectors].sort((a, b) => leaseBalance(b) - leaseBalance(a))[0];

/**
 * Arms the gateway simulator's next `times` charges with `fault` (only charges whose metadata carries every entry of
 * `when`, if given); false when the simulator did not take it (it was down, for one).
 *
 * @example
 * await armGatewayFault(system.gatewayUrl, { kind: 'lost-response' }, 1, { invoiceId });
 */
export const armGatewayFault = async (
  gatewayUrl: string,
  fault: unknown,
  times: number,
  when?: Readonly<Record<string, string>>,
): Promise<boolean> =>
  fetch(`${gatewayUrl}/admin/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: 'charge', fault, times, ...(when ? { when } : {}) }),
    signal: AbortSignal.timeout(5_000),
  }).then(
    (response) => response.ok,
    () => false,
  );

/**
 * Plays one fault and waits until what it killed is back (faults come one at a time, so a run never kills every
 * replica at once); returns what it hit, or undefined when the fault had no victim now.
 */
const inject = async (
  kind: ProcessFaultKind,
  system: SpawnedSystem,
  random: Random,
  signal: AbortSignal,
  record: (target: string, failover?: Pick<FaultRecord, 'at' | 'leaderAfter' | 'servingAfterMs'>) => void,
): Promise<void> => {
  const kill = async (victim: ManagedProcess | undefined) => {
    if (victim === undefined) return;
    record(victim.name);
    await victim.kill9();
  };
  switch (kind) {
    case 'kill-api': {
      const up = system.apis.filter((api) => api.isReady());
      // Keep one replica serving: the balancer's job is to route around the one that died.
      if (up.length >= 2 || system.apis.length === 1)
        await kill(pick(random, up.length > 0 ? up : system.apis));
      return;
    }
    case 'kill-projector-leader':
      await kill(projectorLeader(system.projectors));
      return;
    case 'kill-gateway':
      await kill(system.gateway);
      return;
    case 'kill-postgres':
      record('postgres');
      await system.postgres.crashAndRestart(500);
      return;
    case 'kill-leader-postgres':
    case 'kill-leader-node': {
      if (system.cluster === undefined) return;
      // Recorded once the cluster is whole again, with the moment of the kill; none once the run has stopped the
      // faults (its workload is over: a kill then would cost no client anything, and measure nothing).
      const outcome =
        kind === 'kill-leader-node'
          ? await system.cluster.killLeaderNode(signal)
          : await system.cluster.killLeaderPostgres(signal);
      if (outcome === undefined) return;
      record(outcome.killed, {
        at: outcome.killedAt,
        leaderAfter: outcome.leaderAfter,
        servingAfterMs: outcome.servingAt - outcome.killedAt,
      });
      return;
    }
    case 'gateway-hang':
      record('gateway charges');
      await armGatewayFault(system.gatewayUrl, { kind: 'hang' }, 2);
      return;
    case 'gateway-error':
      record('gateway charges');
      await armGatewayFault(system.gatewayUrl, { kind: 'error', status: pick(random, [500, 502, 503]) }, 3);
      return;
    case 'gateway-lost-response':
      record('gateway charges');
      await armGatewayFault(system.gatewayUrl, { kind: 'lost-response' }, 3);
      return;
    default: {
      const _exhaustive: never = kind;
      return _exhaustive;
    }
  }
};

/**
 * Injects process and gateway faults at random moments until stopped: kill -9 of an api replica, of the projector
 * leader, of the gateway simulator, of PostgreSQL (restarted on its data), the gateway's own faults, and with a
 * cluster kill -9 of its leader's PostgreSQL or of its whole leader node.
 *
 * @example
 * const faults = startProcessFaults({ system, kinds: processFaultKinds, intervalMs: 3_000, random, record });
 * await faults.stop();
 */
export const startProcessFaults = (options: ProcessFaultOptions): ProcessFaultSchedule => {
  const controller = new AbortController();
  let injected = 0;
  const { maxFaults, progress } = options;
  const waitForTheNextFault = async (): Promise<boolean> => {
    if (maxFaults === undefined || progress === undefined) {
      const pause = options.intervalMs * (0.5 + options.random());
      return sleep(pause, true, { signal: controller.signal }).catch(() => false);
    }
    const dueAt = (injected + 1) / (maxFaults + 1);
    while (progress() < dueAt) {
      const slept = await sleep(progressPollMs, true, { signal: controller.signal }).catch(() => false);
      if (!slept) return false;
    }
    return true;
  };
  const loop = async () => {
    while (!controller.signal.aborted && injected < (maxFaults ?? Number.POSITIVE_INFINITY)) {
      const due = await waitForTheNextFault();
      if (!due || options.kinds.length === 0) return;
      const kind = pick(options.random, options.kinds);
      await inject(kind, options.system, options.random, controller.signal, (target, failover) => {
        injected += 1;
        options.record({ type: 'fault', at: Date.now(), fault: kind, target, ...failover });
      });
    }
  };
  let failure: { readonly error: unknown } | undefined;
  let fail: (error: unknown) => void = () => undefined;
  const failed = new Promise<never>((_resolve, reject) => {
    fail = reject;
  });
  // Whoever races `failed` sees its rejection; nobody racing it is no unhandled rejection.
  failed.catch(() => undefined);
  const running = loop().catch((error: unknown) => {
    failure = { error };
    fail(error);
  });
  return {
    stop: async () => {
      controller.abort();
      await running;
      if (failure !== undefined) throw failure.error;
    },
    failed,
  };
};
