import { describe, expect, it } from 'vitest';
import { entryFields, entryKind } from './key-log-entry.js';

describe('key-log entries', () => {
  it('names the kind from the event type alone', () => {
    expect(entryKind('IdempotencyKeyClaimed')).toBe('claimed');
    expect(entryKind('IdempotencyEffectPlanned')).toBe('planned');
    expect(entryKind('IdempotencyRecoveryPointReached')).toBe('recovery-point');
    expect(entryKind('IdempotencyLeaseTaken')).toBe('lease');
    expect(entryKind('IdempotencyKeyCompleted')).toBe('completed');
    expect(entryKind('IdempotencyKeyReleased')).toBe('released');
    expect(entryKind('SomethingNew')).toBe('other');
  });

  it('shows any payload field by field: scalars as text, objects and JSON text indented', () => {
    expect(
      entryFields({
        commandType: 'PayInvoice',
        commandVersion: 2,
        command: { amount: 900 },
        body: '{"id":"p-1"}',
      }),
    ).toEqual([
      { name: 'commandType', text: 'PayInvoice', nested: false },
      { name: 'commandVersion', text: '2', nested: false },
      { name: 'command', text: '{\n  "amount": 900\n}', nested: true },
      { name: 'body', text: '{\n  "id": "p-1"\n}', nested: true },
    ]);
    expect(entryFields('plain')).toEqual([{ name: 'data', text: 'plain', nested: false }]);
    expect(entryFields(null)).toEqual([{ name: 'data', text: 'null', nested: false }]);
  });
});
