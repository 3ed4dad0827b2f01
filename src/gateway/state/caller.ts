import { createHash } from 'node:crypto';

/**
 * The key of a caller in the gateway's state (response cache entries, budgets, subscription polls):
 * a hash of its `Authorization` header, so that no token is ever stored, sent to Redis, or shown.
 * Callers without credentials share the key `anonymous`.
 */
export function callerKey(authorization: string | null | undefined): string {
  return authorization ? createHash('sha256').update(authorization).digest('base64url') : 'anonymous';
}
