import { describe, expect, it } from 'vitest';
import { SignInGuard } from './sign-in-guard.ts';

describe('SignInGuard', () => {
  it('keys an account by its user id once the login resolves, else by the login text lowercased', () => {
    expect(SignInGuard.accountOf('alice', 'u1')).toBe(SignInGuard.accountOf('Alice@Example.com', 'u1'));
    expect(SignInGuard.accountOf('alice', 'u1')).toBe(SignInGuard.accountOfUser('u1'));
    expect(SignInGuard.accountOf(' Nobody@Example.com ', undefined)).toBe(
      SignInGuard.accountOf('nobody@example.com', undefined),
    );
    // A login text can never stand for a user id.
    expect(SignInGuard.accountOf('u1', undefined)).not.toBe(SignInGuard.accountOfUser('u1'));
  });

  it('locks an account after `max` failures from any addresses, and an address after `max` on any accounts', () => {
    let now = 1_000_000;
    const guard = new SignInGuard(3, 60_000, () => now);
    const alice = SignInGuard.accountOfUser('alice');
    guard.fail('10.0.0.1', alice);
    guard.fail('10.0.0.2', alice);
    expect(guard.lock('10.0.0.3', alice)).toBeUndefined();
    guard.fail('10.0.0.3', alice);
    expect(guard.lock('10.0.0.4', alice)).toEqual({ on: 'account', retryAfter: 60 });
    expect(guard.lock('10.0.0.4', SignInGuard.accountOfUser('bob'))).toBeUndefined();

    // Asking about a locked account counts against the address asking (three times now).
    guard.lock('10.0.0.4', alice);
    guard.lock('10.0.0.4', alice);
    expect(guard.addressLock('10.0.0.4')).toEqual({ on: 'address', retryAfter: 60 });

    guard.fail('10.0.0.9');
    guard.fail('10.0.0.9');
    guard.fail('10.0.0.9');
    expect(guard.lock('10.0.0.9', SignInGuard.accountOfUser('carol'))?.on).toBe('address');

    now += 60_000;
    expect(guard.lock('10.0.0.4', alice)).toBeUndefined();
  });
});
