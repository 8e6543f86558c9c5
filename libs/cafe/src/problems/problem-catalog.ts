import { idempotencyProblems } from '@once/idempotency';
import type { ProblemTypeOf } from '@once/idempotency';
import { domainProblems } from './domain-problems.js';

/**
 * Every problem the api answers with (RFC 9457), in the order `/problems` lists them: the idempotency library's
 * catalogue, in the api's words, extended with the api's own types and the domain's refusals. Each `type` is the
 * URI `/problems/<type>`, documented at that address; the library's key problems link to it.
 */
export const problemCatalog = idempotencyProblems
  .extend(
    {
      'invalid-request': {
        status: 400,
        title: 'The request does not match the schema',
        description:
          'A path parameter, query or body field is missing, has the wrong type, is out of range, or is not allowed ' +
          '(unknown fields are refused). `errors` lists each issue with a JSON Pointer. Nothing was stored; fix the request.',
      },
      'invalid-json': {
        status: 400,
        title: 'The body is not acceptable JSON',
        description:
          'The body is not JSON, names the same key twice, nests deeper than 64 levels, or holds an unpaired surrogate. ' +
          'Nothing was stored.',
      },
      'idempotency-key-missing': {
        title: 'Idempotency-Key is missing',
        description:
          'Every command (POST) needs an `Idempotency-Key` header: one key per user intent, reused for every retry of it. ' +
          'Send a UUID as an sf-string (`"…"`) or a bare token, 8–255 visible ASCII characters. Keys are kept at least 24 hours; ' +
          'a key reused after that is a new request, unless what it did is recorded (`/problems/idempotency-key-expired`).',
      },
      'idempotency-key-invalid': {
        title: 'Idempotency-Key is malformed',
        description:
          'The header is shorter than 8 or longer than 255 characters, holds characters outside visible ASCII, is a list, ' +
          'carries parameters, or was sent on more than one line. Nothing was stored.',
      },
      'idempotency-key-reused': {
        title: 'Idempotency-Key is already used',
        description:
          'This key was first used for a different request (another method, route or body). A retry must repeat the ' +
          'original request exactly; a new intent needs a new key. Nothing was done.',
      },
      'idempotency-key-expired': {
        title: 'Idempotency-Key was used before and its answer has expired',
        description:
          'This key was used for a request whose effect is recorded (the same request, or another on the same ' +
          'resource), and its answer is no longer kept: keys are kept at least 24 hours (orders 7 days), then expire. ' +
          'Nothing was applied again, and retrying with this key will always get this answer. Read the resource to ' +
          'learn the outcome; a new intent needs a new key.',
      },
      'idempotency-key-in-flight': {
        title: 'A request is outstanding for this Idempotency-Key',
        description:
          'The first request with this key is still running. Retry after `Retry-After` seconds with the same key: you ' +
          'will get its result. Nothing was stored for this attempt.',
      },
      'invalid-position': {
        status: 400,
        title: 'Once-Min-Position is malformed',
        description:
          'A read may send `Once-Min-Position` with the `Once-Position` a write returned (an opaque token, sent once) to ' +
          'read that write back. This value is not such a token. Send it unchanged, or leave the header out.',
      },
      unauthorized: {
        title: 'An API key is required',
        description:
          'Send `Authorization: Bearer <api key>`. Keys are created with `npm run keys -- create`; a revoked key stops ' +
          'working within seconds.',
      },
      forbidden: {
        status: 403,
        title: 'This API key may not do this',
        description:
          "Every route needs a key of at least one role: `staff` (the till), `operator` (also the console's `/ops` reads " +
          "and resolving card payments) or `admin` (also webhook endpoints and deliveries, menu prices). This key's role " +
          "is below the route's; `detail` names both. Ask for a key of that role (`npm run keys -- create --role " +
          'operator|admin`). Nothing was read or stored.',
      },
      'invalid-webhook-url': {
        status: 422,
        title: 'The webhook URL cannot be delivered to',
        description:
          'A webhook endpoint needs an absolute https URL without credentials whose host resolves only to public addresses ' +
          '(loopback, private, link-local and reserved addresses are refused, so a webhook cannot reach inside the network). ' +
          'Development setups may allow http to loopback hosts (`ONCE_WEBHOOK_ALLOW_HTTP`); the operator may allow named ' +
          'internal hosts (`ONCE_WEBHOOK_ALLOWED_HOSTS`). `detail` says what was wrong. Nothing was stored.',
      },
      'not-found': {
        status: 404,
        title: 'No such resource',
        description:
          'Nothing with this id exists for your tenant. Ids of other tenants are not found either.',
      },
      'body-too-large': {
        status: 413,
        title: 'The body is too large',
        description: 'Request bodies are limited to 64 KiB.',
      },
      'unsupported-media-type': {
        status: 415,
        title: 'The body must be application/json',
        description: 'Send `Content-Type: application/json`.',
      },
      'invalid-signature': {
        status: 401,
        title: 'The webhook signature does not verify',
        description:
          'Gateway webhooks carry Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) signed ' +
          'with the shared secret; the timestamp must be within five minutes.',
      },
      'gateway-unavailable': {
        status: 503,
        title: 'The card gateway did not answer',
        description:
          'The gateway failed or timed out before the outcome of the charge was known. Nothing was stored for this key; ' +
          'retry with the same key: the retry first asks the gateway what happened to this payment, so it never charges twice.',
      },
      'card-declined': {
        status: 402,
        title: 'The card was declined',
        description:
          'The gateway declined the charge; nothing was paid and the reserved amount is free again. `payment` holds the ' +
          'declined payment. The answer is stored with the key: a new attempt (another card) needs a new key.',
      },
      'payment-needs-attention': {
        status: 424,
        title: 'The card payment needs an operator',
        description:
          "The gateway's answer stayed unknown (timeouts, 5xx, answers that do not parse) through every attempt the " +
          'completer may make, so the payment waits for a person with its amount still reserved. `paymentId` names it; ' +
          '`GET /payments/needing-attention` lists such payments and an operator resolves one with ' +
          '`POST /payments/<id>/resolve` (`inquire` asks the gateway again, `mark-declined` releases the amount). This ' +
          'answer is stored with the key; `GET /payments/<id>` shows how the payment ended.',
      },
      'service-unavailable': {
        title: 'The store is unavailable',
        description: 'The event store or database did not answer. Retry with the same key.',
      },
      'rate-limited': {
        status: 429,
        title: 'Too many requests',
        description:
          'This client address, or this tenant, sent more requests in the window than it may. Wait `Retry-After` ' +
          'seconds, then retry with the same Idempotency-Key. Nothing was done for this attempt.',
      },
      'position-ahead': {
        status: 400,
        title: 'Once-Min-Position is past the end of the log',
        description:
          'The position names an event the log does not have yet, so no read model could ever reach it: send only a ' +
          '`Once-Position` this api returned.',
      },
      'too-many-waiting-reads': {
        status: 503,
        title: 'Too many reads are waiting for their position',
        description:
          'Reads with `Once-Min-Position` wait for the read models to catch up; the number that may wait at once is ' +
          'capped. Retry after `Retry-After` seconds, or read without the header.',
      },
      'storage-full': {
        status: 503,
        title: 'The database is out of disk space',
        description:
          'PostgreSQL could not write (SQLSTATE 53100). Nothing was stored for this key; retry with the same key after ' +
          '`Retry-After` seconds. Operators: free or add disk space.',
      },
      'database-read-only': {
        status: 503,
        title: 'The database accepts no writes now',
        description:
          'PostgreSQL refused a write in a read-only transaction (SQLSTATE 25006: a standby, a failover under way, or ' +
          '`default_transaction_read_only`). Nothing was stored for this key; retry with the same key after `Retry-After` seconds.',
      },
      'statement-timeout': {
        status: 503,
        title: 'A database statement took too long',
        description:
          'A statement ran past `ONCE_STATEMENT_TIMEOUT_MS` and was cancelled (SQLSTATE 57014). Nothing was stored for ' +
          'this key; retry with the same key after `Retry-After` seconds.',
      },
      'database-busy': {
        status: 503,
        title: 'No database connection is free',
        description:
          'Every connection of the pool stayed busy for `ONCE_POOL_CONNECTION_TIMEOUT_MS`, or the database has no free ' +
          'connection or memory (SQLSTATE 53300, 53200). Nothing was stored for this key; retry with the same key after ' +
          '`Retry-After` seconds.',
      },
      'webhook-replay-too-large': {
        status: 422,
        title: 'The replay range holds too many events',
        description:
          'A replay reads the log for the range, and reads at most `maxEvents` events of the endpoint’s tenant and ' +
          'event types (`ONCE_WEBHOOK_REPLAY_MAX_EVENTS`, 10,000 by default). Nothing was replayed: replay shorter ' +
          'ranges, one after the other.',
      },
      'webhook-message-not-removable': {
        status: 409,
        title: 'Only dead or held webhook messages can be deleted',
        description:
          'The message is pending (its delivery is under way) or delivered (deleted by the retention on its own). ' +
          'Nothing was deleted.',
      },
      internal: {
        title: 'Internal error',
        description: 'An unexpected error. It has been logged with the request id; retry with the same key.',
      },
    },
    { base: '/problems/', link: (uri) => `<${uri}>; rel="describedby"; type="text/html"` },
  )
  .extend(domainProblems);

/** Every problem type the api documents. */
export type ApiProblemType = ProblemTypeOf<typeof problemCatalog>;

/** The api's problem catalogue. */
export type ApiProblemCatalog = typeof problemCatalog;
