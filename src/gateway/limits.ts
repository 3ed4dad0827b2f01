import { parse } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** The bounds the gateway puts on every request, before and while it runs. */
export interface GatewayLimits {
  /** Largest request body, in bytes; a larger one is answered 413. @default 1048576 */
  maxRequestBytes: number;
  /** Most lexical tokens of a GraphQL document (graphql-js `maxTokens`). @default 10000 */
  maxTokens: number;
  /** Most objects an answer may hold, counted before it runs (connections by their `first`). @default 500000 */
  maxNodes: number;
  /** Deepest nesting of fields. @default 15 */
  maxDepth: number;
  /** Most aliased fields in one operation. @default 100 */
  maxAliases: number;
  /** Most root fields in one operation. @default 50 */
  maxRootFields: number;
  /** Most upstream requests one operation makes while it runs; further ones fail alone. @default 1000 */
  maxUpstreamRequests: number;
}

export const DEFAULT_LIMITS: GatewayLimits = {
  maxRequestBytes: 1024 * 1024,
  maxTokens: 10_000,
  maxNodes: 500_000,
  maxDepth: 15,
  maxAliases: 100,
  maxRootFields: 50,
  maxUpstreamRequests: 1000,
};

/** The answer to a body over the limit: a GraphQL error with a code, status 413. */
function tooLarge(limit: number): Response {
  const body = {
    errors: [
      {
        message: `The request body is larger than ${limit} bytes: send a smaller query or fewer variables`,
        extensions: { code: 'BAD_USER_INPUT', reason: 'PAYLOAD_TOO_LARGE', limit },
      },
    ],
  };
  return new Response(JSON.stringify(body), { status: 413, headers: { 'content-type': 'application/json; charset=utf-8' } });
}

/**
 * Reads a request body up to `limit` bytes; undefined when it is larger (reading stops there,
 * so a huge body costs no more than the limit).
 */
async function readBounded(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const reader = request.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/**
 * Bounds what a request can make the gateway do before any resolver runs: the body size (413
 * with a coded error, without reading past the limit) and the number of tokens the parser reads.
 */
export function useInputLimits(limits: Pick<GatewayLimits, 'maxRequestBytes' | 'maxTokens'>): Plugin {
  const { maxRequestBytes, maxTokens } = limits;
  return {
    onRequestParse({ request, requestParser, setRequestParser, endResponse }) {
      const declared = Number(request.headers.get('content-length') ?? Number.NaN);
      if (declared > maxRequestBytes) return endResponse(tooLarge(maxRequestBytes));
      // A declared length is enforced by the HTTP framing; a body without one is read with a bound.
      if (!request.body || !Number.isNaN(declared) || !requestParser) return;
      setRequestParser(async (incoming) => {
        const body = await readBounded(incoming, maxRequestBytes);
        if (!body) return tooLarge(maxRequestBytes);
        return requestParser(new Request(incoming.url, { method: incoming.method, headers: incoming.headers, body }));
      });
    },
    onParse({ setParseFn }) {
      setParseFn((source, options) => parse(source, { ...options, maxTokens }));
    },
  };
}
