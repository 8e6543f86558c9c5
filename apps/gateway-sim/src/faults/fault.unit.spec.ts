import { describe, expect, it } from 'vitest';
import { parseFaultHeader } from './fault.js';
import { createFaultPlan } from './fault-plan.js';

describe('Gateway-Fault header', () => {
  it('reads each fault', () => {
    expect(parseFaultHeader('hang')).toEqual({ kind: 'hang' });
    expect(parseFaultHeader('lost-response')).toEqual({ kind: 'lost-response' });
    expect(parseFaultHeader('latency=250')).toEqual({ kind: 'latency', ms: 250 });
    expect(parseFaultHeader('error=503')).toEqual({ kind: 'error', status: 503 });
    expect(parseFaultHeader('refuse=402')).toEqual({ kind: 'refuse', status: 402 });
  });

  it('refuses anything else rather than guessing', () => {
    for (const value of ['error=404', 'refuse=503', 'latency=-1', 'latency', 'explode', 'error=5xx']) {
      expect(parseFaultHeader(value)).toBeUndefined();
    }
  });
});

describe('fault plan', () => {
  it('plays armed faults first in, first out, per call kind, the given number of times', () => {
    const plan = createFaultPlan();
    plan.arm('charge', { kind: 'hang' }, 2);
    plan.arm('inquiry', { kind: 'lost-response' });
    plan.arm('charge', { kind: 'error', status: 502 });
    expect(plan.take('charge')).toEqual({ kind: 'hang' });
    expect(plan.take('charge')).toEqual({ kind: 'hang' });
    expect(plan.take('charge')).toEqual({ kind: 'error', status: 502 });
    expect(plan.take('charge')).toBeUndefined();
    expect(plan.take('inquiry')).toEqual({ kind: 'lost-response' });
    plan.arm('charge', { kind: 'hang' });
    plan.clear();
    expect(plan.list()).toEqual([]);
  });

  it('keeps a fault armed for some metadata for the call that carries it', () => {
    const plan = createFaultPlan();
    plan.arm('charge', { kind: 'lost-response' }, 1, { invoiceId: 'inv_2' });
    plan.arm('inquiry', { kind: 'hang' }, 1, { invoiceId: 'inv_2' });
    expect(plan.take('charge', { invoiceId: 'inv_1', tenantId: 't' })).toBeUndefined();
    expect(plan.take('charge')).toBeUndefined();
    expect(plan.take('inquiry')).toBeUndefined();
    expect(plan.take('charge', { invoiceId: 'inv_2', tenantId: 't' })).toEqual({ kind: 'lost-response' });
    expect(plan.take('charge', { invoiceId: 'inv_2' })).toBeUndefined();
    plan.clear();
    expect(plan.list()).toEqual([]);
  });
});
