import { describe, expect, it } from 'vitest';
import { onceEnvironment } from './once-environment.js';
import { readEnvironment } from './read-environment.js';

const projectorSettings = onceEnvironment.pick({
  DATABASE_URL: true,
  ONCE_LOG_LEVEL: true,
  ONCE_PROJECTOR_POLL_MS: true,
});

describe('readEnvironment', () => {
  it('reads the picked settings with their defaults', () => {
    expect(readEnvironment(projectorSettings, { DATABASE_URL: 'postgres://db/once' })).toEqual({
      DATABASE_URL: 'postgres://db/once',
      ONCE_LOG_LEVEL: 'info',
      ONCE_PROJECTOR_POLL_MS: 100,
    });
  });

  it('rejects a value of the wrong shape', () => {
    expect(() => readEnvironment(projectorSettings, { DATABASE_URL: 'mysql://db' })).toThrow();
  });

  it('reads flags as booleans and leaves an unset one undefined', () => {
    const flags = onceEnvironment.pick({ ONCE_SCAVENGER: true, ONCE_WEBHOOK_ALLOW_HTTP: true });
    expect(readEnvironment(flags, { ONCE_SCAVENGER: '0' })).toEqual({
      ONCE_SCAVENGER: false,
      ONCE_WEBHOOK_ALLOW_HTTP: undefined,
    });
  });

  it('reads the allowed internal webhook hosts as a list', () => {
    const webhooks = onceEnvironment.pick({ ONCE_WEBHOOK_ALLOWED_HOSTS: true });
    expect(readEnvironment(webhooks, {})).toEqual({ ONCE_WEBHOOK_ALLOWED_HOSTS: [] });
    expect(
      readEnvironment(webhooks, { ONCE_WEBHOOK_ALLOWED_HOSTS: 'Kitchen-Display, hooks.internal' }),
    ).toEqual({
      ONCE_WEBHOOK_ALLOWED_HOSTS: ['kitchen-display', 'hooks.internal'],
    });
    expect(() =>
      readEnvironment(webhooks, { ONCE_WEBHOOK_ALLOWED_HOSTS: 'http://kitchen-display' }),
    ).toThrow();
  });
});
