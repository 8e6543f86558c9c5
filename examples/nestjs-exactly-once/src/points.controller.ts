import { Controller, Get, Inject, Param, Post } from '@nestjs/common';
import type { EventStore } from '@once/event-store';
import type { IdempotencyEngine } from '@once/idempotency';
import { IdempotentCommand } from '@once/idempotency/nestjs';
import { balanceOf, earnPoints, memberStream, redeemPoints } from './points-ledger.js';
import { ENGINE } from './tokens.js';

/** The ledger's routes: two commands, each run once per key, and a read. */
@Controller('members')
export class PointsController {
  readonly #store: EventStore;

  constructor(@Inject(ENGINE) engine: IdempotencyEngine) {
    this.#store = engine.store;
  }

  @Post(':memberId/earn')
  @IdempotentCommand({ command: earnPoints })
  earn(): void {
    // The command answers: the method only routes the request to it.
  }

  @Post(':memberId/redeem')
  @IdempotentCommand({ command: redeemPoints })
  redeem(): void {
    // The command answers: the method only routes the request to it.
  }

  @Get(':memberId')
  async balance(@Param('memberId') memberId: string): Promise<{ memberId: string; balance: number }> {
    return { memberId, balance: balanceOf(await this.#store.readStream(memberStream(memberId))) };
  }
}
