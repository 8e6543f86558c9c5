import {
  accept,
  bindCommand,
  commandHandlers,
  defineCommand,
  defineDecideHandler,
  reject,
} from '@once/idempotency';

/** One stream per member: every change to their points is an event on it. */
export const memberStream = (memberId) => `member-${memberId}`;

export const balanceOf = (events) =>
  events.reduce(
    (sum, event) => sum + (event.type === 'PointsEarned' ? event.data.points : -event.data.points),
    0,
  );

/** A command is a typed value built once from the route's params and body; the key log stores it. */
const pointsInput = ({ params, body }) => ({ memberId: String(params.memberId), points: body?.points });
export const earnPoints = defineCommand({ type: 'EarnPoints', version: 1, fromInput: pointsInput });
export const redeemPoints = defineCommand({ type: 'RedeemPoints', version: 1, fromInput: pointsInput });

const problem = (type, detail) => ({
  status: 422,
  body: { type: `https://points.example/problems/${type}`, title: detail, status: 422 },
  headers: { 'content-type': 'application/problem+json' },
});

/** `earn` and `redeem` decide from the member's events; a rejection is stored and replayed like a success. */
const pointsHandler = (eventType) =>
  defineDecideHandler({
    streams: ({ command }) => [memberStream(command.memberId)],
    decide: ({ command, ids, requestedAt }, streams) => {
      const stream = memberStream(command.memberId);
      if (!Number.isInteger(command.points) || command.points <= 0) {
        return reject(problem('invalid-points', 'points must be a positive integer'));
      }
      const balance = balanceOf(streams.get(stream)?.events ?? []);
      if (eventType === 'PointsRedeemed' && command.points > balance) {
        return reject(problem('not-enough-points', `the member has ${balance} points`));
      }
      const entryId = ids.next('entry');
      const data = { entryId, points: command.points, at: requestedAt.toISOString() };
      const next = eventType === 'PointsEarned' ? balance + command.points : balance - command.points;
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
