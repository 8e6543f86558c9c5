import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { startStreamScavenger } from '@once/event-store/postgres';
import type { ScavengerRound, StreamScavenger } from '@once/event-store/postgres';
import { startCompleter } from '@once/idempotency';
import type { AbandonedKeyResult, IdempotencyEngine, RunningCompleter } from '@once/idempotency';
import type { Pool } from 'pg';
import { pointsHandlers } from './points-ledger.js';
import { ENGINE, POOL } from './tokens.js';

/**
 * What runs beside the routes, from the app's start to its close. The completer finishes keys whose request died
 * half-way (its process crashed, its lease ran out) from where they stopped, exactly as the client's retry would.
 * Retention removes key streams once their retention has passed (24 h after they completed, by default). Every
 * instance may run both: a lease lets one completer finish a key, and one scavenger at a time leads (a PostgreSQL
 * advisory lock).
 */
@Injectable()
export class BackgroundWork implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly #logger = new Logger('BackgroundWork');
  #scavenger: StreamScavenger | undefined;
  #completer: RunningCompleter | undefined;

  constructor(
    @Inject(POOL) private readonly pool: Pool,
    @Inject(ENGINE) private readonly engine: IdempotencyEngine,
  ) {}

  onApplicationBootstrap(): void {
    this.#scavenger = startStreamScavenger({
      pool: this.pool,
      intervalMs: 60_000,
      onError: (error) => this.#logger.warn(`retention round failed: ${String(error)}`),
    });
    // Each round reads every key event the store still keeps: retention is what keeps that bounded.
    this.#completer = startCompleter({
      engine: this.engine,
      handlers: pointsHandlers,
      intervalMs: 10_000,
      onError: (error) => this.#logger.warn(`completer round failed: ${String(error)}`),
    });
  }

  /** One completer round now: the results of the keys it looked at. */
  async completeAbandonedKeys(): Promise<readonly AbandonedKeyResult[]> {
    if (this.#completer === undefined) throw new Error('the app has not started');
    return (await this.#completer.runRound()) ?? [];
  }

  /** One retention round now: how many expired streams it removed. */
  removeExpiredKeys(): Promise<ScavengerRound> {
    if (this.#scavenger === undefined) throw new Error('the app has not started');
    return this.#scavenger.runRound();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.#completer?.stop();
    await this.#scavenger?.stop();
  }
}
