import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'graphql-yoga';

const compressWith = {
  br: (bytes: Buffer) =>
    promisify(brotliCompress)(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }),
  gzip: (bytes: Buffer) => promisify(gzip)(bytes, { level: 6 }),
};
type Encoding = keyof typeof compressWith;

/** Most pages kept compressed (GraphiQL's, one per set of options: a handful). */
const MAX_PAGES = 8;

/**
 * Sends HTML pages (GraphiQL's, 9 MB with its bundled assets) compressed, brotli or gzip as the
 * browser accepts: 1.9 MB in brotli. A page is compressed once, off the request thread (zlib runs in
 * libuv's pool), and kept, under its `ETag` when it has one (else a hash of its bytes); GraphQL
 * answers are never compressed here (a proxy in front may).
 */
export function useCompressedPages(): Plugin {
  const pages = new Map<string, Promise<Buffer>>();
  return {
    // Not async: an answer that is no page (nearly all) goes on without a promise to wait for.
    onResponse({ request, response, setResponse, fetchAPI }) {
      if (request.method !== 'GET' || response.status !== 200) return undefined;
      if (!response.headers.get('content-type')?.startsWith('text/html')) return undefined;
      const encoding = acceptedEncoding(request.headers.get('accept-encoding'));
      if (!encoding) return undefined;
      return compressed(response, encoding, setResponse, fetchAPI);
    },
  };

  /** The page of `response`, compressed with `encoding` once and kept. */
  async function compressed(
    response: Response,
    encoding: Encoding,
    setResponse: (response: Response) => void,
    fetchAPI: { Response: typeof Response; Headers: typeof Headers },
  ): Promise<void> {
    // A page with an entity tag (GraphiQL's: a hash of its bytes) is known by it: once compressed,
    // it is neither read nor hashed again.
    const tag = response.headers.get('etag');
    let key = tag === null ? '' : `${encoding}:${tag}`;
    let compressing = key ? pages.get(key) : undefined;
    let bytes: Buffer | undefined;
    if (!compressing) {
      bytes = Buffer.from(await response.arrayBuffer());
      key ||= `${encoding}:${createHash('sha256').update(bytes).digest('base64url')}`;
      compressing = pages.get(key);
      if (!compressing) {
        if (pages.size >= MAX_PAGES) pages.delete(pages.keys().next().value!);
        compressing = compressWith[encoding](bytes);
        pages.set(key, compressing);
      }
    }
    const headers = new fetchAPI.Headers(response.headers);
    if (!/\baccept-encoding\b/i.test(headers.get('vary') ?? '')) headers.append('vary', 'accept-encoding');
    let body: Buffer;
    try {
      body = await compressing;
      headers.set('content-encoding', encoding);
      if (!bytes) await response.body?.cancel();
    } catch {
      // Served as it is; the next request tries again rather than meeting the same failure.
      if (pages.get(key) === compressing) pages.delete(key);
      body = bytes ?? Buffer.from(await response.arrayBuffer());
    }
    headers.set('content-length', String(body.length));
    setResponse(new fetchAPI.Response(new Uint8Array(body), { status: 200, headers }));
  }
}

/** The best encoding of ours an `Accept-Encoding` header allows (a `q=0` refuses one). */
function acceptedEncoding(header: string | null): Encoding | undefined {
  if (!header) return undefined;
  const allowed = new Set(
    header
      .split(',')
      .map((part) => part.trim().split(';'))
      .filter(([, q]) => !/^\s*q=0(\.0*)?\s*$/.test(q ?? ''))
      .map(([name]) => name!.trim().toLowerCase()),
  );
  if (allowed.has('br')) return 'br';
  if (allowed.has('gzip') || allowed.has('*')) return 'gzip';
  return undefined;
}
