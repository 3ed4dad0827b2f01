import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { derivedKey } from '../content/signing.js';
import type { Db } from '../store/db.js';

/**
 * The secrets of integrations. The secrets an integration is published with are kept encrypted
 * (AES-256-GCM under a key derived from the platform's stored key), decrypted only to hand them
 * to the integration's own endpoint with each event, and never answered. Deliveries are signed
 * with a per-installation secret, derived from the platform's key and the installation id (so
 * it exists from the moment the installation does and outlives it for its last event), which
 * only admins of the integration's owner organization can read.
 */

const ENCRYPTION_PURPOSE = 'integration-secrets';
const DELIVERY_PURPOSE = 'integration-delivery-signing';
/** Prefix of an encrypted value: the format, so another one can follow. */
const FORMAT = 'v1';

/** Encrypts `value` (a JSON-serializable value) for storage: `v1.<iv>.<tag>.<ciphertext>`, base64url. */
export function encryptValue(db: Db, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', derivedKey(db, ENCRYPTION_PURPOSE), iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return [FORMAT, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join(
    '.',
  );
}

/** Decrypts what `encryptValue` stored; throws when it was altered or made under another key. */
export function decryptValue<T>(db: Db, stored: string): T {
  const [format, iv, tag, data] = stored.split('.');
  if (format !== FORMAT || !iv || !tag || data === undefined) throw new Error('Unreadable encrypted value');
  const decipher = createDecipheriv('aes-256-gcm', derivedKey(db, ENCRYPTION_PURPOSE), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const text = Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  return JSON.parse(text) as T;
}

/** The secret that signs the deliveries of an installation's events (64 hex digits). */
export function deliverySecret(db: Db, installationId: string): string {
  return createHmac('sha256', derivedKey(db, DELIVERY_PURPOSE)).update(installationId).digest('hex');
}

/**
 * The signature header of a delivery: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`,
 * the body being the exact bytes sent. A receiver recomputes it with the installation's secret
 * and refuses old timestamps, so a captured delivery cannot be replayed later.
 */
export function signatureHeader(secret: string, body: Buffer, at = Date.now()): string {
  const t = Math.floor(at / 1000);
  const mac = createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
  return `t=${t},v1=${mac}`;
}
