import { describe, expect, it } from 'vitest';
import { BYTES_PER_POINT, GatewayWork } from '../../src/gateway/gateway-work.js';

describe('GatewayWork', () => {
  it('charges a point per started 64 KiB of each kind, nothing for no work', () => {
    const work = new GatewayWork();
    expect(work.points).toBe(0);
    work.add('conversion', 1);
    expect(work.points).toBe(1);
    work.add('conversion', BYTES_PER_POINT - 1);
    expect(work.points).toBe(1);
    work.add('conversion', 1);
    expect(work.points).toBe(2);
    // Kinds are rounded apart: a byte of another kind starts a point of its own.
    work.add('introspection', 10);
    expect(work.points).toBe(3);
    expect(work.bytes('conversion')).toBe(BYTES_PER_POINT + 1);
    expect(work.bytes('registration')).toBe(0);
  });

  it('ignores negative and zero amounts', () => {
    const work = new GatewayWork();
    work.add('registration', 0);
    work.add('registration', -5);
    expect(work.points).toBe(0);
  });
});
