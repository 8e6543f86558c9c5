import { randomBytes } from 'node:crypto';
import type { ApiKeyRole } from '../http/auth/index.js';
import type { demoTenant } from './demo-tenant.js';

const demoKeyUse: Readonly<Record<ApiKeyRole, string>> = {
  staff: 'staff: the till',
  operator: 'operator: the console too',
  admin: 'admin: also webhook endpoints, menu prices',
};

/**
 * What the embedded default prints once it listens: the URL, the demo API keys, and a copy-paste curl sequence that
 * creates an invoice, pays it twice with one key (the second answer is the replay: `Idempotent-Replayed: true`) and
 * reads the invoice back at the payment's `Once-Position`.
 * Fresh keys each start, so the demo works on every run.
 */
export const demoBanner = (input: {
  url: string;
  demo: typeof demoTenant;
  dataDirectory: string;
  /** Where `/metrics` is served (its own internal port by default). */
  metricsUrl: string;
}): string => {
  const run = randomBytes(4).toString('hex');
  const [alice] = input.demo.actors;
  const keys = input.demo.actors
    .map((actor) => `  ${actor.name.padEnd(6)} ${actor.apiKey}  ${demoKeyUse[actor.role]}`)
    .join('\n');
  return `
Once API listening on ${input.url}
  till      ${input.url}/till      console  ${input.url}/console   (the till: a staff key below; the console: an operator key)
  docs      ${input.url}/docs      problems ${input.url}/problems
  health    ${input.url}/health    metrics  ${input.metricsUrl}
  data      ${input.dataDirectory} (embedded PostgreSQL, kept between runs)

Demo tenant ${input.demo.tenantId}
${keys}

Try it: create an invoice, pay it twice with ONE Idempotency-Key (the second answer is the replay), then read it
back at the payment's Once-Position (reads come from read models; this one waits until they show the payment):

API=${input.url}
AUTH="Authorization: Bearer ${alice.apiKey}"
INVOICE=$(curl -s -X POST $API/invoices -H "$AUTH" -H 'Content-Type: application/json' \\
  -H 'Idempotency-Key: demo-invoice-${run}' \\
  -d '{"currency":"EUR","lines":[{"description":"Flat white","quantity":2,"unitPrice":450}]}' \\
  | sed -E 's/.*"id":"([^"]+)".*/\\1/')
for attempt in 1 2; do
  PAID=$(curl -s -i -X POST $API/invoices/$INVOICE/payments -H "$AUTH" -H 'Content-Type: application/json' \\
    -H 'Idempotency-Key: demo-payment-${run}' -d '{"method":"cash","amount":900,"currency":"EUR"}')
  echo "$PAID"; echo
  POSITION=$(echo "$PAID" | tr -d '\\r' | sed -n 's/^once-position: //p')
done
curl -s $API/invoices/$INVOICE -H "$AUTH" -H "Once-Min-Position: $POSITION"; echo
`;
};
