import { z } from 'zod';

const port = z.coerce
  .number({ message: 'must be a port number from 0 to 65535' })
  .int('must be a port number from 0 to 65535')
  .min(0, 'must be a port number from 0 to 65535')
  .max(65535, 'must be a port number from 0 to 65535');
const host = z.string().min(1);

/**
 * Every setting the project reads from the environment, parsed in one place.
 * The README's settings table lists the same names and defaults.
 */
export const configSchema = z.object({
  /** Port of the GraphQL gateway. @default 4000 */
  PORT: port.default(4000),
  /** Interface the gateway listens on. @default 127.0.0.1 */
  HOST: host.default('127.0.0.1'),
  /**
   * Base URL of the REST API, ending in `/v1`. When unset, the embedded platform is
   * started and used.
   */
  UPSTREAM_URL: z
    .url({ message: 'UPSTREAM_URL must be an absolute http(s) URL ending in /v1' })
    .refine((value) => /^https?:/.test(value) && /\/v1\/?$/.test(value), {
      message: 'UPSTREAM_URL must be an absolute http(s) URL ending in /v1',
    })
    .optional(),
  /** Milliseconds before an upstream request is abandoned. @default 10000 */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Keep-alive connections per upstream origin. @default 64 */
  UPSTREAM_CONNECTIONS: z.coerce.number().int().positive().default(64),
  /** Port of the embedded platform. @default 4010 */
  PLATFORM_PORT: port.default(4010),
  /** Interface the embedded platform listens on. @default 127.0.0.1 */
  PLATFORM_HOST: host.default('127.0.0.1'),
  /** Milliseconds the embedded platform waits before handling each request, to imitate a remote API. @default 0 */
  PLATFORM_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  /** Folder holding the embedded platform's SQLite database and demo tokens. @default .data */
  DATA_DIR: z.string().min(1).default('.data'),
  /** Log level of both servers: fatal, error, warn, info, debug, silent. @default info */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'silent']).default('info'),
});

export type Config = z.infer<typeof configSchema>;

/** Parses the environment; throws one readable error naming every bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return parsed.data;
}
