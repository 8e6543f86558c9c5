import {
  accept,
  bindCommand,
  commandHandlers,
  defineCommand,
  defineDecideHandler,
  reject,
} from '@once/idempotency';
import type { CommandInput } from '@once/idempotency';
import type { RecordedEvent } from '@once/event-store';

/** One stream per member: every change to their points is an event on it. */
export const memberStream = (memberId: string): string => `member-${memberId}`;

export const balanceOf = (events: readonly RecordedEvent[]): number =>
  events.reduce((sum, event) => {
    const { points } = event.data as { points: number };
    return sum + (event.type === 'PointsEarned' ? points : -points);
  }, 0);

/** A command is a typed value built once from the route's params and body; the key log stores it. */
interface PointsCommand {
  readonly memberId: string;
  readonly points: unknown;
}
const pointsInput = ({ params, body }: CommandInput): PointsCommand => ({
  memberId: String(params['memberId']),
  points: (body as { points?: unknown } | null)?.points,
});
export const earnPoints = defineCommand<PointsCommand>({
  type: 'EarnPoints',
  version: 1,
  fromInput: pointsInput,
});
export const redeemPoints = defineCommand<PointsCommand>({
  type: 'RedeemPoints',
  version: 1,
  fromInput: pointsInput,
});

const problem = (type: string, detail: string) => ({
  status: 422,
  body: { type: `https://points.example/problems/${type}`, title: detail, status: 422 },
  headers: { 'content-type': 'application/problem+json' },
});

/** `earn` and `redeem` decide from the member's events; a rejection is stored and replayed like a success. */
const pointsHandler = (eventType: 'PointsEarned' | 'PointsRedeemed') =>
  defineDecideHandler<PointsCommand>({
    streams: ({ command }) => [memberStream(command.memberId)],
    decide: ({ command, ids, requestedAt }, streams) => {
      const stream = memberStream(command.memberId);
      const { points } = command;
      if (typeof points !== 'number' || !Number.isInteger(points) || points <= 0) {
        return reject(problem('invalid-points', 'points must be a positive integer'));
      }
      const balance = balanceOf(streams.get(stream)?.events ?? []);
      if (eventType === 'PointsRedeemed' && points > balance) {
        return reject(problem('not-enough-points', `the member has ${balance} points`));
      }
      const entryId = ids.next('entry');
      const data = { entryId, points, at: requestedAt.toISOString() };
      const next = eventType === 'PointsEarned' ? balance + points : balance - points;
      return accept([{ stream, events: [{ type: eventType, data }] }], {
        status: 201,
        body: { entryId, balance: next },
      });
    },
  });

/** Every command's handler by command type: routes run them, and a resumed key finds its handler here. */
export const pointsHandlers = commandHandlers([
  bindCommand(earnPoints, pointsHandler('PointsEarned')),
  bindCommand(redeemPoints, pointsHandler('PointsRedeemed')),
]);
