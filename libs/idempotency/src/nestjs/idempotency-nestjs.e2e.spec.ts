import { randomUUID } from 'node:crypto';
import { Controller, Injectable, Module, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import type { CanActivate, ExecutionContext, INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createInMemoryEventStore } from '@once/event-store/in-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { bindCommand, commandHandlers } from '../commands/index.js';
import { createIdempotencyEngine } from '../engine/index.js';
import type { IdempotencyEngine } from '../engine/index.js';
import {
  countIncrementsByKey,
  incrementCounter,
  incrementCounterHandler,
} from '../testing/counter-aggregate.js';
import { describeHttpAdapterContract } from '../testing/http-adapter-contract.js';
import { IdempotentCommand } from './idempotent-command.decorator.js';
import { OnceIdempotencyModule } from './once-idempotency.module.js';

/** The app's authentication, as a guard: the caller named in `x-test-actor`, none without it. */
class TestActorGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>();
    const actor = request.headers['x-test-actor'];
    if (typeof actor === 'string')
      Reflect.set(request, 'principal', { tenantId: 'tenant-1', actorId: actor });
    return true;
  }
}

describeHttpAdapterContract('the NestJS adapter', async ({ engine, handlers, commands }) => {
  @Controller()
  class CommandsController {
    @Post('counters/:id/increments')
    @IdempotentCommand({ command: commands.increment })
    increment(): void {
      // The command answers: the method only routes the request to it.
    }

    @Post('failing/:id')
    @IdempotentCommand({ command: commands.failing })
    fail(): void {
      // The command answers: the method only routes the request to it.
    }
  }

  const moduleRef = await Test.createTestingModule({
    imports: [OnceIdempotencyModule.forRoot({ engine, handlers, onError: () => undefined })],
    controllers: [CommandsController],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  app.useGlobalGuards(new TestActorGuard());
  await app.listen(0, '127.0.0.1');
  return { url: await app.getUrl(), close: () => app.close() };
});

describe('OnceIdempotencyModule', () => {
  let app: INestApplication | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  @Controller('counters')
  class CountersController {
    // The pipe validates the id before the command runs: a bad id is Nest's 400, and no key is claimed.
    @Post(':id/increments')
    @IdempotentCommand({ command: incrementCounter })
    increment(@Param('id', ParseUUIDPipe) _id: string): void {
      // The command answers: the method only routes the request to it, once the pipe has validated its id.
    }
  }

  const start = async (imports: Parameters<typeof Test.createTestingModule>[0]['imports']) => {
    const moduleRef = await Test.createTestingModule({
      imports,
      controllers: [CountersController],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    app.useGlobalGuards(new TestActorGuard());
    await app.listen(0, '127.0.0.1');
    return app.getUrl();
  };
  const increment = (url: string, counterId: string, key: string) =>
    fetch(`${url}/counters/${counterId}/increments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key, 'x-test-actor': 'actor-1' },
      body: JSON.stringify({ by: 2 }),
    });

  it('builds its options with forRootAsync from the providers it injects, and replays a retry', async () => {
    const store = createInMemoryEventStore();
    @Injectable()
    class EngineHolder {
      readonly engine: IdempotencyEngine = createIdempotencyEngine({ store });
    }
    @Module({ providers: [EngineHolder], exports: [EngineHolder] })
    class EngineModule {}
    const url = await start([
      OnceIdempotencyModule.forRootAsync({
        imports: [EngineModule],
        inject: [EngineHolder],
        useFactory: ({ engine }: EngineHolder) => ({
          engine,
          handlers: commandHandlers([bindCommand(incrementCounter, incrementCounterHandler())]),
        }),
      }),
    ]);
    const counterId = randomUUID();
    const key = randomUUID();
    const first = await increment(url, counterId, key);
    const retry = await increment(url, counterId, key);
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.text()).toBe(await first.text());
    expect([...(await countIncrementsByKey(store, counterId)).values()]).toEqual([1]);
  });

  it("lets the method's pipes refuse bad input before the command runs", async () => {
    const store = createInMemoryEventStore();
    const handlers = commandHandlers([bindCommand(incrementCounter, incrementCounterHandler())]);
    const url = await start([
      OnceIdempotencyModule.forRoot({ engine: createIdempotencyEngine({ store }), handlers }),
    ]);
    const response = await increment(url, 'not-a-uuid', randomUUID());
    expect(response.status).toBe(400);
    expect((await store.readAll()).events).toEqual([]);
  });

  it('refuses to start with a route whose command has no handler', async () => {
    const moduleOver = (handlers: ReturnType<typeof commandHandlers>) =>
      Test.createTestingModule({
        imports: [
          OnceIdempotencyModule.forRoot({
            engine: createIdempotencyEngine({ store: createInMemoryEventStore() }),
            handlers,
          }),
        ],
        controllers: [CountersController],
      }).compile();
    const unbound = (await moduleOver(commandHandlers([]))).createNestApplication({ logger: false });
    await expect(unbound.init()).rejects.toBeInstanceOf(Error);
    await unbound.close();
    const bound = (
      await moduleOver(commandHandlers([bindCommand(incrementCounter, incrementCounterHandler())]))
    ).createNestApplication({ logger: false });
    await expect(bound.init()).resolves.toBe(bound);
    await bound.close();
  });
});
