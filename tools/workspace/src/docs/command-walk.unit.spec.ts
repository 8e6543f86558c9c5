import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceRoot } from '../workspace-root.js';

/**
 * The walk of `POST /invoices/:id/payments` (card) that docs/ARCHITECTURE.md draws, as the code has it: each file with
 * the code that makes it a step. When a step moves, this fails until the document follows it.
 */
const cardPaymentWalk: readonly (readonly [file: string, step: string])[] = [
  ['apps/api/src/invoices/invoices.routes.ts', 'command: [payInvoiceByCash, payInvoiceByCard]'],
  ['libs/cafe/src/invoices/invoice.commands.ts', 'export const payInvoiceByCard = routeCommand('],
  ['libs/idempotency/src/fastify/idempotency-plugin.ts', 'await runKeyedCommand('],
  ['libs/idempotency/src/http/keyed-command.ts', 'await engine.execute('],
  ['libs/idempotency/src/engine/idempotency-engine.ts', 'runPhased(runtime, execution)'],
  ['libs/idempotency/src/engine/phased-protocol.ts', 'handler.run('],
  ['libs/idempotency/src/engine/execution.ts', 'keyEvents('],
  ['libs/idempotency/src/key-log/key-log.decider.ts', 'export const decideArrival'],
  ['libs/idempotency/src/engine/key-holding.ts', 'export class KeyHolding'],
  ['libs/cafe/src/invoices/card-payment.handler.ts', 'export const cardPaymentHandler'],
  ['libs/cafe/src/invoices/card-payment-workflow.ts', 'export const decideCardPayment'],
  ['libs/cafe/src/commands/aggregate-command.ts', 'export const foldSnapshot'],
  ['libs/domain/src/card-payments/card-payment.workflow.ts', "type: 'ChargeCard'"],
  ['libs/domain/src/invoices/invoice.decider.ts', "type: 'CardPaymentReserved'"],
  ['libs/cafe/src/gateway/gateway-client.ts', 'inquire'],
  ['libs/event-store/src/postgres/postgres-event-store.ts', 'const appendToStream'],
];

const architecture = readFileSync(join(workspaceRoot, 'docs/ARCHITECTURE.md'), 'utf8');
const walkSection = architecture.slice(
  architecture.indexOf('### The walk'),
  architecture.indexOf('\n## ', architecture.indexOf('### The walk')),
);

describe('the card payment walk in docs/ARCHITECTURE.md', () => {
  it.each(cardPaymentWalk)('%s holds its step', (file, step) => {
    expect(readFileSync(join(workspaceRoot, file), 'utf8')).toContain(step);
  });

  it('lists these files in this order, and says how many they are', () => {
    const rows = [...walkSection.matchAll(/^\| \d+ +\| \[`([^`]+)`\]/gm)].map((match) => match[1]);
    expect(rows).toEqual(cardPaymentWalk.map(([file]) => file));
    expect(walkSection).toContain(`**${String(cardPaymentWalk.length)} files in`);
  });
});
