/**
 * What the generated contract (`contract/`) builds its schemas with, beside zod itself.
 */
import { z } from 'zod';
import { redactUrlCredentials } from '../errors.js';

/** A URL from the platform (`format: uri`), with any credentials it embeds removed as it is parsed. */
export const url = z.string().transform(redactUrlCredentials);

/**
 * A union of objects told apart by one property (the description's `discriminator`, or the one
 * property every member pins to its own values): zod reads that property instead of trying each.
 */
export function tagged(tag: string, options: z.ZodType[]): z.ZodType {
  return z.discriminatedUnion(tag, options as unknown as [z.ZodObject, ...z.ZodObject[]]);
}

/**
 * Replaces a getter of `owner` by the value it built, so that a schema is built on its first use
 * and once: a process pays only for the shapes it reads.
 */
export function keep<T>(owner: object, name: string, value: T): T {
  Object.defineProperty(owner, name, { value, enumerable: true });
  return value;
}
