import { promises as dns, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, type Dispatcher, request } from 'undici';

/**
 * The outbound guard: every connection the platform makes on a caller's behalf (files inserted by
 * URL, OpenAPI sources, integration deliveries, Git Sync remotes) goes through it. A caller must
 * not be able to make the platform reach its own network: unless private targets are allowed
 * (demo and test runs, where every server is on loopback), loopback names are refused, the host
 * name is resolved and every address it stands for is checked, and the connection is made to an
 * address that was checked (at connection time for HTTP requests, pinned for Git), so a DNS answer
 * that changes between a check and the connection cannot slip through. Redirects are not followed.
 */

/** IPv4 ranges that are not the public internet (RFC 6890 and its updates). */
const privateIPv4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  privateIPv4.addSubnet(network, prefix, 'ipv4');
}

/**
 * Reserved IPv6 ranges inside global unicast (2000::/3; everything outside it is refused):
 * protocol assignments (2001::/23, apart from Teredo, judged by its IPv4) and documentation.
 */
const reservedIPv6 = new BlockList();
for (const [network, prefix] of [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['3fff::', 20],
] as const) {
  reservedIPv6.addSubnet(network, prefix, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address; undefined for anything else (or an address with a zone). */
function ipv6Groups(address: string): number[] | undefined {
  if (isIP(address) !== 6 || address.includes('%')) return undefined;
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const [head = '', tail] = text.split('::');
  if (tail === undefined) return groups(head);
  const left = groups(head);
  const right = groups(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The IPv4 address of two 16-bit groups. */
const ipv4Of = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/**
 * The IPv4 addresses an IPv6 address reaches through: IPv4-mapped (::ffff:0:0/96), NAT64
 * (64:ff9b::/96), 6to4 (2002::/16) and Teredo (2001::/32: its server, and its client stored
 * inverted). Undefined for an address that carries none.
 */
function embeddedIPv4(groups: readonly number[]): string[] | undefined {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const zerosThrough = (end: number) => groups.slice(0, end).every((group) => group === 0);
  if (zerosThrough(5) && g5 === 0xffff) return [ipv4Of(g6, g7)];
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return [ipv4Of(g6, g7)];
  if (g0 === 0x2002) return [ipv4Of(g1, g2)];
  if (g0 === 0x2001 && g1 === 0) return [ipv4Of(g2, g3), ipv4Of(g6 ^ 0xffff, g7 ^ 0xffff)];
  return undefined;
}

/**
 * True for an address the platform must not reach on a caller's behalf: private, loopback,
 * link-local, multicast, documentation or otherwise reserved, in IPv4 or IPv6, including an IPv6
 * address that leads to such an IPv4 address (IPv4-mapped, NAT64, 6to4, Teredo). Anything that is
 * not an address is refused too.
 */
export function isPrivateAddress(address: string): boolean {
  if (isIP(address) === 4) return privateIPv4.check(address, 'ipv4');
  const groups = ipv6Groups(address);
  if (!groups) return true;
  const embedded = embeddedIPv4(groups);
  if (embedded) return embedded.some((ipv4) => privateIPv4.check(ipv4, 'ipv4'));
  // Outside global unicast: unspecified, loopback, IPv4-compatible, local NAT64, discard,
  // unique local, link-local, site-local, multicast, and ranges not yet allocated.
  if ((groups[0]! & 0xe000) !== 0x2000) return true;
  return reservedIPv6.check(address, 'ipv6');
}

/** Names that are loopback by definition (RFC 6761), whatever a resolver says of them. */
export function isLoopbackName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** The host of a URL as an address or a name: without the brackets of an IPv6 address. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

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

/** Resolves a host name to all its addresses. */
export type Resolver = (host: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (host) => dns.lookup(host, { all: true, verbatim: true });

/** Time a host name has to resolve. */
export const RESOLVE_TIMEOUT_MS = 5_000;

/**
 * The addresses the platform may connect to for `host` (a URL's host, IPv6 without brackets): a
 * literal address as it is, a name resolved to every address it has. An `OutboundError` when one
 * of them is not public, when the name is a loopback name, or when it does not resolve: a name
 * that does not resolve is refused in the same words as a private one, so that answers do not
 * tell which internal names exist.
 */
export async function publicAddresses(host: string, resolve: Resolver = systemResolver): Promise<LookupAddress[]> {
  const family = isIP(host);
  if (family !== 0) {
    if (isPrivateAddress(host)) throw new OutboundError(`${host} is a private or reserved address`);
    return [{ address: host, family }];
  }
  if (isLoopbackName(host)) throw new OutboundError(`${host} is a loopback name`);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), RESOLVE_TIMEOUT_MS);
  });
  const addresses = await Promise.race([resolve(host), late])
    .catch(() => [] as LookupAddress[])
    .finally(() => clearTimeout(timer));
  if (addresses.length === 0 || addresses.some((entry) => isPrivateAddress(entry.address))) {
    throw new OutboundError(`${host} does not resolve to public addresses only`);
  }
  return addresses;
}

/**
 * The outbound guard's check of a URL the platform is to store or connect to: `problem` first (the
 * caller's own rules for the URL, such as its scheme, undefined when they hold), then, unless private
 * targets are allowed, every address of its host (`publicAddresses`). The refusal (`ofAddress` when
 * it is the guard's), or the addresses checked: none when private targets are allowed.
 */
export async function checkOutboundUrl(
  raw: string,
  problem: string | undefined,
  allowPrivate: boolean,
  resolve?: Resolver,
): Promise<{ problem: string; ofAddress: boolean } | { problem?: undefined; addresses: LookupAddress[] }> {
  if (problem) return { problem, ofAddress: false };
  if (allowPrivate) return { addresses: [] };
  try {
    return { addresses: await publicAddresses(hostOf(new URL(raw)), resolve) };
  } catch (error) {
    if (error instanceof OutboundError) return { problem: error.message, ofAddress: true };
    throw error;
  }
}

/**
 * `checkOutboundUrl` in the words of a validation error of the URL, or undefined when it may be
 * used: at the moment a URL is stored, a clear refusal beats operations that fail later (each
 * connection is checked again, on the address it is made to).
 */
export async function outboundUrlProblem(
  raw: string,
  problem: string | undefined,
  allowPrivate: boolean,
  resolve?: Resolver,
): Promise<string | undefined> {
  const check = await checkOutboundUrl(raw, problem, allowPrivate, resolve);
  if (check.problem === undefined) return undefined;
  return check.ofAddress ? `must be on a public address (${check.problem})` : check.problem;
}

/** Why `raw` is not a URL `fetchUrl` and `postUrl` connect to (a valid `http:` or `https:` URL), or undefined. */
function httpTargetProblem(raw: string): string | undefined {
  const url = URL.parse(raw);
  if (!url) return 'is not a valid URL';
  return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : 'must be an http or https URL';
}

/**
 * The save-time check of a URL the platform will GET later (`fetchUrl`): the guard's rules for
 * such a URL (http or https) and, unless private targets are allowed, for its host
 * (`publicAddresses`: an address in any spelling the URL parser reads, a loopback name, a name and
 * every address it resolves to). The words of a validation error of the URL, never repeating it,
 * or undefined when it may be stored. Each fetch checks again, on the address it connects to.
 */
export function storedHttpUrlProblem(
  raw: string,
  allowPrivate: boolean,
  resolve?: Resolver,
): Promise<string | undefined> {
  return outboundUrlProblem(raw, httpTargetProblem(raw), allowPrivate, resolve);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** `dns.lookup` for undici's connections: only public addresses, checked by `publicAddresses`. */
function publicLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  publicAddresses(hostname).then(
    (list) => (options.all ? callback(null, list) : callback(null, list[0]!.address, list[0]!.family)),
    (error: Error) => {
      const denial = new Error(error.message) as NodeJS.ErrnoException;
      denial.code = 'EPRIVATE';
      callback(denial, []);
    },
  );
}

const publicAgent = new Agent({ connect: { lookup: publicLookup }, connections: 8 });
const anyAgent = new Agent({ connections: 8 });

/** A percent-encoded URL part decoded, or as it is when it is not valid percent-encoding. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * Takes the user name and password out of `url` (which is changed) and returns them as the value of
 * an HTTP Basic `Authorization` header, or undefined when the URL has none: credentials travel in a
 * header, never in a URL that is logged, shown or given to another program's command line.
 */
export function takeBasicCredentials(url: URL): string | undefined {
  if (!url.username && !url.password) return undefined;
  const credentials = Buffer.from(`${decoded(url.username)}:${decoded(url.password)}`, 'utf8').toString('base64');
  url.username = '';
  url.password = '';
  return `Basic ${credentials}`;
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
  const problem = httpTargetProblem(raw);
  if (problem) throw new OutboundError(problem);
  const url = new URL(raw);
  const shown = displayUrl(url);
  const host = hostOf(url);
  // A name is checked where it is resolved, at connection time (`publicLookup`, loopback names included).
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host))
    throw new OutboundError(`${shown} is a private or reserved address`);
  return { url, shown };
}

/**
 * GETs an http(s) URL and returns its bytes and content type. Refuses other schemes, private
 * targets (unless allowed), redirects, answers other than 2xx and bodies over `maxBytes`, with an
 * `OutboundError` that names the URL without its credentials. A user name and password in the URL
 * are sent as HTTP Basic authentication.
 */
export async function fetchUrl(
  raw: string,
  options: FetchOptions,
): Promise<{ bytes: Buffer; contentType: string | undefined }> {
  const { url, shown } = outboundTarget(raw, options.allowPrivate);
  const headers: Record<string, string> = { 'user-agent': 'docs-platform/1 (+file fetch)', accept: '*/*' };
  const authorization = takeBasicCredentials(url);
  if (authorization) headers.authorization = authorization;
  const timeout = options.timeoutMs ?? 10_000;
  const signal = AbortSignal.timeout(timeout);
  let response: Dispatcher.ResponseData;
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
    const code =
      (error as { code?: string; cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code;
    if (code === 'EPRIVATE') throw new OutboundError(`${shown} does not resolve to public addresses only`);
    if (signal.aborted || code === 'UND_ERR_HEADERS_TIMEOUT')
      throw new OutboundError(`${shown} did not answer within ${timeout} ms`, true);
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
  const bytes = await readBounded(response, { shown, maxBytes: options.maxBytes, signal, timeout });
  const type = response.headers['content-type'];
  return { bytes, contentType: typeof type === 'string' ? type.split(';')[0]!.trim() : undefined };
}

/** The body of an answer, read up to `maxBytes` (an `OutboundError` past them, or when cut off or late). */
async function readBounded(
  response: Dispatcher.ResponseData,
  options: { shown: string; maxBytes: number; signal: AbortSignal; timeout: number },
): Promise<Buffer> {
  const { shown, maxBytes, signal, timeout } = options;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        response.body.destroy();
        throw new OutboundError(`${shown} is larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof OutboundError) throw error;
    const bodyTimeout = (error as { code?: string }).code === 'UND_ERR_BODY_TIMEOUT';
    throw signal.aborted || bodyTimeout
      ? new OutboundError(`${shown} did not answer within ${timeout} ms`, true)
      : new OutboundError(`${shown} broke off its answer`);
  }
  return Buffer.concat(chunks);
}

export interface PostOptions {
  /** Allow private and loopback targets (demo and test runs only). */
  allowPrivate: boolean;
  /** Time allowed for the whole exchange, in milliseconds. @default 10000 */
  timeoutMs?: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Read the answer's body, up to this many bytes (an `OutboundError` past them); else it is dropped. */
  maxAnswerBytes?: number;
}

/**
 * POSTs a body to an http(s) URL and returns the status of the answer (its body is read and
 * dropped, or returned up to `maxAnswerBytes`). Refuses other schemes and private targets (unless allowed) and does not follow
 * redirects; a target that cannot be reached or does not answer in time is an `OutboundError`
 * naming the URL without its credentials. Answers of any status are returned, not thrown.
 */
export async function postUrl(raw: string, options: PostOptions): Promise<{ status: number; body?: Buffer }> {
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
    if (options.maxAnswerBytes !== undefined) {
      const body = await readBounded(response, { shown, maxBytes: options.maxAnswerBytes, signal, timeout });
      return { status: response.statusCode, body };
    }
    await response.body.dump().catch(() => undefined);
    return { status: response.statusCode };
  } catch (error) {
    if (error instanceof OutboundError) throw error;
    const code =
      (error as { code?: string; cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code;
    if (code === 'EPRIVATE') throw new OutboundError(`${shown} does not resolve to public addresses only`);
    if (signal.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      throw new OutboundError(`${shown} did not answer within ${timeout} ms`, true);
    }
    throw new OutboundError(`${shown} could not be reached`);
  }
}

/** A CAA record of a name: who may issue certificates for it (`issue`, `issuewild`) or where to report (`iodef`). */
export interface CaaRecord {
  critical: number;
  issue?: string;
  issuewild?: string;
  iodef?: string;
}

/** What the records of one kind of a name are, as far as DNS told. */
export type DnsAnswer<T> =
  /** The records (none when the name or the kind of record does not exist). */
  | { answered: true; records: T[] }
  /** No answer: the resolver is unreachable, timed out or failed (SERVFAIL, REFUSED). */
  | { answered: false; reason: string };

/** Reads the DNS records the platform checks a custom hostname's configuration with. */
export interface RecordResolver {
  cname(host: string): Promise<DnsAnswer<string>>;
  caa(host: string): Promise<DnsAnswer<CaaRecord>>;
}

/** Time one DNS question has to be answered, retries included. */
export const DNS_TIMEOUT_MS = 3_000;

/** `host:port` (or `[v6]:port`) of a DNS server on a loopback address; an `OutboundError` for anything else. */
function loopbackServer(server: string): string {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(server);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  const loopback = host !== undefined && (host === '::1' || (isIP(host) === 4 && host.startsWith('127.')));
  if (!loopback || !(port > 0 && port < 65_536)) {
    throw new OutboundError(`The DNS server ${server} must be a loopback address and port, such as 127.0.0.1:5353`);
  }
  return server;
}

/**
 * The outbound guard's DNS records resolver: the system's DNS servers, or `server` (`host:port` on
 * a loopback address only: a server the platform's own tests run; the guard never lets a caller
 * point the platform's questions elsewhere). A name that does not exist or has no record of the
 * kind is an answer with no records; a server that does not answer in `DNS_TIMEOUT_MS` or fails
 * is no answer, never an empty one, so that a check made offline cannot conclude anything.
 */
export function recordResolver(server?: string): RecordResolver {
  const resolver = new dns.Resolver({ timeout: Math.floor(DNS_TIMEOUT_MS / 2), tries: 2 });
  if (server !== undefined) resolver.setServers([loopbackServer(server)]);
  const ask = async <T>(question: () => Promise<T[]>): Promise<DnsAnswer<T>> => {
    try {
      return { answered: true, records: await question() };
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === dns.NOTFOUND || code === dns.NODATA) return { answered: true, records: [] };
      return { answered: false, reason: code ?? 'no answer' };
    }
  };
  return {
    cname: (host) => ask(() => resolver.resolveCname(host)),
    caa: (host) => ask(() => resolver.resolveCaa(host) as Promise<CaaRecord[]>),
  };
}
