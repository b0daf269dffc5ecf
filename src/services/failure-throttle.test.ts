import { describe, expect, it } from 'vitest';
import { FailureThrottle } from './failure-throttle.ts';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('FailureThrottle', () => {
  it('lets a key fail `max` times in a window, then refuses it until the window ends', () => {
    const c = clock();
    const throttle = new FailureThrottle(3, 60_000, 100, c.now);
    for (let i = 0; i < 3; i++) {
      expect(throttle.retryAfter('10.0.0.1')).toBeUndefined();
      throttle.fail('10.0.0.1');
    }
    expect(throttle.retryAfter('10.0.0.1')).toBe(60);
    c.advance(59_001);
    expect(throttle.retryAfter('10.0.0.1')).toBe(1);
    c.advance(999);
    expect(throttle.retryAfter('10.0.0.1')).toBeUndefined();
    // A new window starts with a full budget.
    throttle.fail('10.0.0.1');
    expect(throttle.retryAfter('10.0.0.1')).toBeUndefined();
  });

  it('counts each key apart', () => {
    const throttle = new FailureThrottle(1, 60_000, 100, clock().now);
    throttle.fail('a');
    expect(throttle.retryAfter('a')).toBe(60);
    expect(throttle.retryAfter('b')).toBeUndefined();
  });

  it('keeps at most `capacity` keys, dropping the oldest window', () => {
    const throttle = new FailureThrottle(1, 60_000, 2, clock().now);
    throttle.fail('a');
    throttle.fail('b');
    throttle.fail('c');
    expect(throttle.retryAfter('a')).toBeUndefined();
    expect(throttle.retryAfter('b')).toBe(60);
    expect(throttle.retryAfter('c')).toBe(60);
  });

  it('never refuses when max is 0', () => {
    const throttle = new FailureThrottle(0, 60_000, 100, clock().now);
    for (let i = 0; i < 100; i++) throttle.fail('a');
    expect(throttle.retryAfter('a')).toBeUndefined();
  });
});
