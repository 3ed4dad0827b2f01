import { describe, expect, it } from 'vitest';
import { EndpointPolicy } from '../../src/platform/integrations/endpoints.js';

describe('EndpointPolicy', () => {
  const policy = new EndpointPolicy(false, ['http://127.0.0.1:80/hook?from=platform']);

  it('knows a receiver in any spelling of the same URL, and no other URL', () => {
    for (const same of ['HTTP://127.0.0.1/hook?from=platform', 'http://127.0.0.1:80/hook?from=platform']) {
      expect([same, policy.isReceiver(same), policy.allowPrivate(same), policy.problem(same)]).toEqual([
        same,
        true,
        true,
        undefined,
      ]);
    }
    for (const other of [
      'http://127.0.0.1/hook',
      'http://127.0.0.1/hook?from=platform&x=1',
      'http://127.0.0.1:81/hook?from=platform',
      'http://127.0.0.2/hook?from=platform',
      'not a URL',
    ]) {
      expect([other, policy.isReceiver(other), policy.allowPrivate(other)]).toEqual([other, false, false]);
    }
  });

  it('refuses credentials and fragments even on a receiver', () => {
    expect(policy.problem('http://a:b@127.0.0.1/hook?from=platform')).toBe(
      'must not contain credentials: the platform signs every delivery instead',
    );
    expect(policy.problem('http://127.0.0.1/hook?from=platform#x')).toBe('must not contain a fragment');
  });

  it('takes no receiver it could not compare, never repeating credentials', () => {
    const why =
      'is not one: an absolute http or https URL on an IP address or localhost, without credentials or fragment';
    expect(() => new EndpointPolicy(false, ['ftp://127.0.0.1/hook'])).toThrow(
      `The event receiver "ftp://127.0.0.1/hook" ${why}`,
    );
    expect(() => new EndpointPolicy(false, ['http://u:secret@127.0.0.1/hook'])).toThrow(
      `The event receiver "http://***@127.0.0.1/hook" ${why}`,
    );
    expect(() => new EndpointPolicy(false, ['http://127.0.0.1/hook#'])).toThrow(why);
    // A name another resolver could point elsewhere: its connections would reach what nobody named.
    expect(() => new EndpointPolicy(false, ['http://gateway.internal/hook'])).toThrow(why);
    expect(
      new EndpointPolicy(false, ['http://localhost:4000/hook', 'http://[::1]:4000/hook']).isReceiver(
        'http://[::1]:4000/hook',
      ),
    ).toBe(true);
  });
});
