import { maxHeaderSize, type Server, STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyHttpOptions, FastifyInstance, FastifyReply, FastifyServerOptions } from 'fastify';
import { ApiError, missingParameter } from './http.js';

/**
 * The HTTP edge of the platform: what it answers before any route runs (requests Node or the
 * router refuse, JSON bodies, unknown routes) and the error shape of every failed answer.
 */

/**
 * Deepest nesting of arrays and objects in a JSON body. Validation and serialization recurse per
 * level, and a body nested thousands of levels deep would overflow the stack; real documents
 * nest a few dozen levels at most.
 */
const MAX_BODY_DEPTH = 256;

/** Largest request body, in bytes (routes that take files set their own). */
const BODY_LIMIT = 5 * 1024 * 1024;

/** Whether JSON text nests arrays and objects deeper than `max` (strings skipped), without parsing it. */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i += 1;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      depth += 1;
      if (depth > max) return true;
    } else if (code === 0x7d || code === 0x5d) depth -= 1;
  }
  return false;
}

/** Longest path parameter (an id) the router takes; a longer one is answered 414. */
const MAX_PARAM_LENGTH = 500;

/** Node's refusals of requests it cannot read, by error code: status and what to tell the client. */
const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    `Request header fields too large: the request line and headers may take at most ${maxHeaderSize} bytes`,
  ],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Chunk extensions too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request timeout: the request did not arrive in time'],
  HPE_INVALID_METHOD: [400, 'Malformed request: invalid method'],
  HPE_INVALID_URL: [400, 'Malformed request: invalid request target'],
  HPE_INVALID_VERSION: [400, 'Malformed request: invalid HTTP version'],
  HPE_INVALID_HEADER_TOKEN: [400, 'Malformed request: invalid header'],
  HPE_INVALID_CONTENT_LENGTH: [400, 'Malformed request: invalid Content-Length'],
  HPE_UNEXPECTED_CONTENT_LENGTH: [400, 'Malformed request: both Content-Length and Transfer-Encoding'],
  HPE_INVALID_TRANSFER_ENCODING: [400, 'Malformed request: invalid Transfer-Encoding'],
  HPE_INVALID_CHUNK_SIZE: [400, 'Malformed request: invalid chunk size'],
};

/**
 * A whole HTTP/1.1 answer in the platform's error shape that closes the connection, for a raw
 * socket; without its body when it answers a HEAD request.
 */
function rawErrorAnswer(status: number, message: string, head = false): string {
  const body = JSON.stringify({ error: { code: status, message } });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\ncontent-type: application/json; charset=utf-8\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${head ? '' : body}`
  );
}

/**
 * Answers, in the platform's error shape, a request Node could not parse (headers too large, a
 * malformed request line or header, a timeout), then closes the connection, as Node would.
 */
function answerClientError(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // An answer already under way on this connection must not be corrupted by a second one.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const [status, message] = CLIENT_ERRORS[error.code] ?? [400, 'Malformed HTTP request'];
    // The packet being parsed starts with the request line unless the request came in pieces.
    const packet: unknown = error.rawPacket;
    const head = Buffer.isBuffer(packet) && packet.subarray(0, 5).toString('latin1') === 'HEAD ';
    socket.end(rawErrorAnswer(status, message, head));
  }
  socket.destroySoon();
}

function requestForLog(request: { method: string; url: string }) {
  const index = request.url.indexOf('?');
  return { method: request.method, url: index === -1 ? request.url : `${request.url.slice(0, index)}?…` };
}

/** Fastify's options for the platform: logs without query strings, the router's limits, refusals in the error shape. */
export function edgeOptions(logger: FastifyServerOptions['logger']): FastifyHttpOptions<Server> {
  return {
    // Query strings may carry share keys and visitor tokens: logs show the path only.
    logger:
      logger === false ? false : { ...(typeof logger === 'object' ? logger : {}), serializers: { req: requestForLog } },
    // A repeated query key arrives as an array of its values; parseQuery answers 400 naming the
    // parameter unless the endpoint takes a list, and endpoints ignore parameters they do not read.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    bodyLimit: BODY_LIMIT,
    // What Node and the router refuse before any route runs is answered in the error shape too.
    clientErrorHandler: answerClientError,
    frameworkErrors: (error, _request, reply) => {
      const [status, message] =
        error.code === 'FST_ERR_BAD_URL'
          ? [400, 'Invalid URL: the path is not valid percent-encoded UTF-8']
          : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? [414, `URI too long: a path parameter may have at most ${MAX_PARAM_LENGTH} characters`]
            : [error.statusCode ?? 400, error.message];
      (reply as FastifyReply).code(status).send({ error: { code: status, message } });
    },
    // Node answers an HTTP/1.1 request without Host with a bare 400; the onRequest hook answers it instead.
    http: { requireHostHeader: false },
  };
}

/** Answers, in the platform's error shape, what Node, the body parser and the router refuse, and every thrown error. */
export function guardEdge(app: FastifyInstance): void {
  // Node answers an unsupported Expect header with a bare 417 unless someone listens.
  app.server.on('checkExpectation', (_request, response: ServerResponse) => {
    const body = JSON.stringify({
      error: { code: 417, message: 'Expectation failed: only "Expect: 100-continue" is supported' },
    });
    response.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  });
  // Node closes a CONNECT (a proxy tunnel) without a word unless someone listens.
  app.server.on('connect', (_request, socket: Socket) => {
    socket.on('error', () => undefined);
    socket.end(rawErrorAnswer(405, 'Method not allowed: the platform is no proxy'));
  });

  // Bodies may be empty even with a JSON content type (for example POST .../restore).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    if (nestsDeeperThan(text, MAX_BODY_DEPTH)) {
      return done(
        new ApiError(400, `Invalid body: arrays and objects nest deeper than ${MAX_BODY_DEPTH} levels`),
        undefined,
      );
    }
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ApiError(400, 'Invalid body: not valid JSON'), undefined);
    }
  });

  app.addHook('onRequest', async (request) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw new ApiError(400, 'Missing Host header: every HTTP/1.1 request must send one');
    }
  });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ApiError) {
      if (error.status === 401) reply.header('www-authenticate', 'Bearer');
      const parameter = error.missing ? missingParameter(error.missing, request.params) : undefined;
      return reply.code(error.status).send({
        error: { code: error.status, message: error.message, ...error.limit, ...(parameter && { parameter }) },
      });
    }
    const { statusCode: status, message, code } = error as { statusCode?: number; message?: string; code?: string };
    if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // Named like every other budget: the route's body limit, and the size the request announced.
      const max = request.routeOptions.bodyLimit ?? BODY_LIMIT;
      const announced = Number(request.headers['content-length']);
      const value = Number.isFinite(announced) && announced > max ? announced : max + 1;
      return reply.code(413).send({
        error: {
          code: 413,
          message: `The request body is larger than ${max} bytes`,
          limit: 'requestBytes',
          value,
          max,
        },
      });
    }
    if (status && status >= 400 && status < 500) {
      return reply.code(status).send({ error: { code: status, message: message ?? 'Bad request' } });
    }
    request.log.error({ err: error }, 'unhandled platform error');
    return reply.code(500).send({ error: { code: 500, message: 'Internal error' } });
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: { code: 404, message: `No route ${request.method} ${request.url.split('?')[0]}` } }),
  );
}

/**
 * Sends text answers as UTF-8 bytes encoded once: given a string, Node would measure its UTF-8
 * length and then encode it, two passes over the text (a page of 100 spaces spent a fifth of its
 * time on them). Register it after every other `onSend` hook, which may read the text.
 */
export function encodeAnswersOnce(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, _reply, payload) =>
    typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload,
  );
}

/** `http://host:port` of the address the server listens on (`http://localhost` before it listens). */
export function listeningOrigin(app: FastifyInstance): string {
  const address = app.server.address();
  if (!address || typeof address === 'string') return 'http://localhost';
  const host =
    address.address === '0.0.0.0' || address.address === '::'
      ? 'localhost'
      : address.family === 'IPv6'
        ? `[${address.address}]`
        : address.address;
  return `http://${host}:${address.port}`;
}
