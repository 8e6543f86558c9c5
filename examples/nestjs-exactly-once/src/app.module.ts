import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { createPostgresEventStore } from '@once/event-store/postgres';
import { createIdempotencyEngine } from '@once/idempotency';
import type { IdempotencyEngineOptions } from '@once/idempotency';
import { OnceIdempotencyModule } from '@once/idempotency/nestjs';
import type { Pool } from 'pg';
import { BackgroundWork } from './background-work.js';
import { PointsController } from './points.controller.js';
import { pointsHandlers } from './points-ledger.js';
import { ENGINE, POOL } from './tokens.js';

/** The ledger over a PostgreSQL pool (the event store's tables are created on first use), with its background work. */
@Module({})
export class AppModule {
  /** `engineOptions` tunes the engine (`leaseMs`, `retentionSeconds`, …). */
  static over(pool: Pool, engineOptions: Partial<IdempotencyEngineOptions> = {}): DynamicModule {
    const engine = createIdempotencyEngine({
      store: createPostgresEventStore(pool),
      leaseMs: 30_000,
      ...engineOptions,
    });
    return {
      module: AppModule,
      imports: [
        OnceIdempotencyModule.forRoot({
          engine,
          handlers: pointsHandlers,
          // Whose keys these are: your authentication decides; here a cashier names themself in a header.
          getScope: (context) => {
            const cashier: unknown = context.switchToHttp().getRequest().headers['x-cashier'];
            return typeof cashier === 'string' ? { tenantId: 'points', actorId: cashier } : undefined;
          },
        }),
      ],
      controllers: [PointsController],
      providers: [{ provide: POOL, useValue: pool }, { provide: ENGINE, useValue: engine }, BackgroundWork],
    };
  }
}
