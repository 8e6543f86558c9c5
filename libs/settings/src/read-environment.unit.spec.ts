import { describe, expect, it } from 'vitest';
import { onceEnvironment } from './once-environment.js';
import { readEnvironment, RenamedSettingError } from './read-environment.js';

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

  it('refuses to start when an old name of a picked setting is set, naming the new one', () => {
    const read = () => readEnvironment(projectorSettings, { LOG_LEVEL: 'warn', PROJECTOR_POLL_MS: '50' });
    expect(read).toThrow(RenamedSettingError);
    expect(read).toThrow('LOG_LEVEL is now ONCE_LOG_LEVEL; PROJECTOR_POLL_MS is now ONCE_PROJECTOR_POLL_MS');
  });

  it('ignores an old name of a setting this process does not read', () => {
    expect(readEnvironment(projectorSettings, { GATEWAY_URL: 'http://gateway' }).ONCE_LOG_LEVEL).toBe('info');
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

  it('reads the allowed internal webhook hosts as a list, and refuses the old private-networks switch', () => {
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
    expect(() => readEnvironment(webhooks, { ONCE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1' })).toThrow(
      'ONCE_WEBHOOK_ALLOW_PRIVATE_NETWORKS is now ONCE_WEBHOOK_ALLOWED_HOSTS',
    );
  });
});
