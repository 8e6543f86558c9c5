import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import type { CommandRouteSettings } from '../http/index.js';
import { IDEMPOTENT_COMMAND_ROUTE } from './command-route-bindings.js';
import { IdempotentCommandInterceptor } from './idempotent-command.interceptor.js';

/**
 * Makes a controller method a command route: its command runs once per `Idempotency-Key` through the engine of
 * `OnceIdempotencyModule`, and the answer is the command's (stored, replayed, or a problem). Keep the method's body
 * empty: it runs on every request, retries included, only so that its parameters' pipes validate the request.
 *
 * @example
 * \@Post(':memberId/points')
 * \@IdempotentCommand({ command: earnPoints })
 * earn(): void {
 *   // The command answers: the method only routes the request to it.
 * }
 */
export const IdempotentCommand = (settings: CommandRouteSettings): MethodDecorator =>
  applyDecorators(
    SetMetadata(IDEMPOTENT_COMMAND_ROUTE, settings),
    UseInterceptors(IdempotentCommandInterceptor),
  );
