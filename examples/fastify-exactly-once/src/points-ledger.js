import { accept, defineDecideHandler, reject } from '@once/idempotency';

/** One stream per member: every change to their points is an event on it. */
export const memberStream = (memberId) => `member-${memberId}`;

export const balanceOf = (events) =>
  events.reduce(
    (sum, event) => sum + (event.type === 'PointsEarned' ? event.data.points : -event.data.points),
    0,
  );

const points = (body) => (Number.isInteger(body?.points) && body.points > 0 ? body.points : undefined);

const problem = (type, detail) => ({
  status: 422,
  body: { type: `https://points.example/problems/${type}`, title: detail, status: 422 },
  headers: { 'content-type': 'application/problem+json' },
});

/** `earn` and `redeem` decide from the member's events; a rejection is stored and replayed like a success. */
const pointsCommand = (eventType) =>
  defineDecideHandler({
    streams: ({ request }) => [memberStream(request.params.memberId)],
    decide: ({ request, ids, requestedAt }, streams) => {
      const stream = memberStream(request.params.memberId);
      const amount = points(request.body);
      if (amount === undefined) return reject(problem('invalid-points', 'points must be a positive integer'));
      const balance = balanceOf(streams.get(stream)?.events ?? []);
      if (eventType === 'PointsRedeemed' && amount > balance) {
        return reject(problem('not-enough-points', `the member has ${balance} points`));
      }
      const entryId = ids.next('entry');
      const data = { entryId, points: amount, at: requestedAt.toISOString() };
      const next = eventType === 'PointsEarned' ? balance + amount : balance - amount;
      return accept([{ stream, events: [{ type: eventType, data }] }], {
        status: 201,
        body: { entryId, balance: next },
      });
    },
  });

export const earnPoints = pointsCommand('PointsEarned');
export const redeemPoints = pointsCommand('PointsRedeemed');
