import { describe, expect, it } from 'vitest';
import { createProcessFaultHook, parseProcessFault } from './process-faults.js';

describe('ONCE_FAULT', () => {
  it('reads a point and an optional occurrence', () => {
    expect(parseProcessFault('after-complete')).toEqual({ point: 'after-complete', occurrence: 1 });
    expect(parseProcessFault('after-gateway-charge@3')).toEqual({
      point: 'after-gateway-charge',
      occurrence: 3,
    });
  });

  it('refuses unknown points and bad occurrences', () => {
    expect(parseProcessFault('after-lunch')).toBeUndefined();
    expect(parseProcessFault('after-effect@0')).toBeUndefined();
    expect(parseProcessFault('after-effect@x')).toBeUndefined();
  });

  it('fires once, on the armed arrival at the armed point only', () => {
    const fired: string[] = [];
    const hook = createProcessFaultHook({ point: 'after-effect', occurrence: 2 }, () => fired.push('boom'));
    hook('after-claim');
    hook('after-effect');
    expect(fired).toEqual([]);
    hook('after-effect');
    hook('after-effect');
    expect(fired).toEqual(['boom']);
  });

  it('does nothing when no fault is armed', () => {
    const hook = createProcessFaultHook(undefined, () => {
      throw new Error('must not fire');
    });
    expect(() => hook('after-complete')).not.toThrow();
  });
});
