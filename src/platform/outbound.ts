import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, request } from 'undici';

/**
 * Requests the platform makes to the outside world on a caller's behalf (files inserted by URL,
 * and later OpenAPI sources and event deliveries). A caller must not be able to make the platform
 * reach its own network: unless private targets are allowed (demo and test runs, where every
 * server is on loopback), the host name is resolved and every private, loopback, link-local or
 * reserved address is refused, at connection time, so a DNS answer that changes between a check
 * and the connection cannot slip through.
 */

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96],
  ['::1', 128],
  ['::ffff:0:0:0', 96],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** True for an address the platform must not reach on a caller's behalf. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Why an outbound request failed, in words a caller can act on (never with credentials of the URL). */
export class OutboundError extends Error {
  override readonly name = 'OutboundError';

  constructor(
    message: string,
    /** True when the target did not answer in the time allowed. */
    readonly timedOut = false,
  ) {
    super(message);
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** `dns.lookup` that refuses private addresses. */
function publicLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const list = addresses as LookupAddress[];
    const refused = list.find((entry) => isPrivateAddress(entry.address));
    if (refused || list.length === 0) {
      const denial = new Error(`${hostname} resolves to a private or reserved address`) as NodeJS.ErrnoException;
      denial.code = 'EPRIVATE';
      return callback(denial, []);
    }
    if (options.all) return callback(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
}

const publicAgent = new Agent({ connect: { lookup: publicLookup as never }, connections: 8 });
const anyAgent = new Agent({ connections: 8 });

/** A percent-encoded URL part decoded, or as it is when it is not valid percent-encoding. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** A URL as it may be shown: without user, password, query or fragment. */
export function displayUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

export interface FetchOptions {
  /** Allow private and loopback targets (demo and test runs only). */
  allowPrivate: boolean;
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** Time allowed for the whole exchange, in milliseconds. @default 10000 */
  timeoutMs?: number;
}

/**
 * The URL an outbound request goes to, and how errors show it (without its credentials): an
 * http(s) URL, not a private or reserved address unless `allowPrivate`; an `OutboundError` otherwise.
 */
function outboundTarget(raw: string, allowPrivate: boolean | undefined): { url: URL; shown: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('must be an http or https URL');
  const shown = displayUrl(url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
    throw new OutboundError(`${shown} is a private or reserved address`);
  }
  return { url, shown };
}

/**
 * GETs an http(s) URL and returns its bytes and content type. Refuses other schemes, private
 * targets (unless allowed), redirects, answers other than 2xx and bodies over `maxBytes`, with an
 * `OutboundError` that names the URL without its credentials. A user name and password in the URL
 * are sent as HTTP Basic authentication.
 */
export async function fetchUrl(raw: string, options: FetchOptions): Promise<{ bytes: Buffer; contentType: string | undefined }> {
  const { url, shown } = outboundTarget(raw, options.allowPrivate);
  const headers: Record<string, string> = { 'user-agent': 'docs-platform/1 (+file fetch)', accept: '*/*' };
  if (url.username || url.password) {
    const credentials = `${decoded(url.username)}:${decoded(url.password)}`;
    headers.authorization = `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  const timeout = options.timeoutMs ?? 10_000;
  const signal = AbortSignal.timeout(timeout);
  let response;
  try {
    response = await request(url, {
      method: 'GET',
      dispatcher: options.allowPrivate ? anyAgent : publicAgent,
      signal,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      headers,
    });
  } catch (error) {
    const code = (error as { code?: string; cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code;
    if (code === 'EPRIVATE') throw new OutboundError(`${shown} resolves to a private or reserved address`);
    if (signal.aborted || code === 'UND_ERR_HEADERS_TIMEOUT') throw new OutboundError(`${shown} did not answer within ${timeout} ms`, true);
    throw new OutboundError(`${shown} could not be reached`);
  }
  if (response.statusCode < 200 || response.statusCode >= 300) {
    await response.body.dump().catch(() => undefined);
    throw new OutboundError(`${shown} answered ${response.statusCode}`);
  }
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await response.body.dump().catch(() => undefined);
    throw new OutboundError(`${shown} is larger than ${options.maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > options.maxBytes) {
        response.body.destroy();
        throw new OutboundError(`${shown} is larger than ${options.maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof OutboundError) throw error;
    const bodyTimeout = (error as { code?: string }).code === 'UND_ERR_BODY_TIMEOUT';
    throw signal.aborted || bodyTimeout ? new OutboundError(`${shown} did not answer within ${timeout} ms`, true) : new OutboundError(`${shown} broke off its answer`);
  }
  const type = response.headers['content-type'];
  return { bytes: Buffer.concat(chunks), contentType: typeof type === 'string' ? type.split(';')[0]!.trim() : undefined };
}

export interface PostOptions {
  /** Allow private and loopback targets (demo and test runs only). */
  allowPrivate: boolean;
  /** Time allowed for the whole exchange, in milliseconds. @default 10000 */
  timeoutMs?: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * POSTs a body to an http(s) URL and returns the status of the answer (its body is read and
 * dropped). Refuses other schemes and private targets (unless allowed) and does not follow
 * redirects; a target that cannot be reached or does not answer in time is an `OutboundError`
 * naming the URL without its credentials. Answers of any status are returned, not thrown.
 */
export async function postUrl(raw: string, options: PostOptions): Promise<{ status: number }> {
  const { url, shown } = outboundTarget(raw, options.allowPrivate);
  const timeout = options.timeoutMs ?? 10_000;
  const signal = AbortSignal.timeout(timeout);
  try {
    const response = await request(url, {
      method: 'POST',
      dispatcher: options.allowPrivate ? anyAgent : publicAgent,
      signal,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      headers: { 'user-agent': 'docs-platform/1 (+event delivery)', ...options.headers },
      body: options.body,
    });
    await response.body.dump().catch(() => undefined);
    return { status: response.statusCode };
  } catch (error) {
    const code = (error as { code?: string; cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code;
    if (code === 'EPRIVATE') throw new OutboundError(`${shown} resolves to a private or reserved address`);
    if (signal.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      throw new OutboundError(`${shown} did not answer within ${timeout} ms`, true);
    }
    throw new OutboundError(`${shown} could not be reached`);
  }
}
