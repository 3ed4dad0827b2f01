import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { REQUESTS, type RequestValidators, type Validator } from './contract/requests.js';
import { badRequest } from './http.js';

/**
 * The API description's gate in front of every `/v1` route: each route is matched to its operation
 * (method and path template, parameters compared by position) and its path parameters, query and
 * body are checked with the operation's validators, generated and compiled ahead of time
 * (`npm run contract`, `src/platform/contract/`), before the handler runs. The gate checks types,
 * required fields and enum values; each route's zod check keeps its own rules (lengths, patterns,
 * budgets, unknown fields), which run after it.
 */

/** A path template with its parameter names erased: `/orgs/:id/spaces` and `/orgs/{organizationId}/spaces` compare equal. */
function shape(path: string): string {
  return path
    .replace(/\{[^}]+\}/g, '{}')
    .replace(/:\w+/g, '{}')
    .replace(/\/\*$/, '/{}');
}

/**
 * Checks every request of the `/v1` routes registered after it in `v1` (a plugin prefixed `/v1`)
 * against its operation. A route that matches no operation is an
 * error when it is registered: the platform does not start with a route the description cannot check.
 */
export function validateRequests(v1: FastifyInstance): void {
  const operations = new Map(REQUESTS.map((operation) => [`${operation.method} ${shape(operation.path)}`, operation]));
  v1.addHook('onRoute', (route) => {
    const checks = new Map<string, (request: FastifyRequest) => void>();
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      if (method === 'HEAD') continue;
      // The API's root (`getApiInformation`) is registered as `/v1` and `/v1/`.
      const operation = operations.get(`${method} ${shape(route.url.replace(/^\/v1/, '') || '/')}`);
      if (!operation)
        throw new Error(
          `The route ${method} ${route.url} is no operation of the API description: add the operation to the overlay (src/contract/overlay.ts)`,
        );
      const check = checkerOf(operation, route.url);
      if (check) checks.set(method, check);
    }
    if (checks.size === 0) return;
    const gate = async (request: FastifyRequest) => checks.get(request.method)?.(request);
    route.preHandler = [...toList(route.preHandler), gate] as RouteOptions['preHandler'];
  });
}

function toList<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** The check of one route's requests against its operation; undefined when there is nothing to check. */
function checkerOf(operation: RequestValidators, url: string): ((request: FastifyRequest) => void) | undefined {
  const { params, query, body } = operation;
  if (!params && !query && !body) return undefined;
  // The route may name its parameters otherwise than the description: by position, `*` for a wildcard.
  const routeParams = [...url.matchAll(/:(\w+)|\/\*$/g)].map((match) => match[1] ?? '*');
  const sameNames = routeParams.every((name, index) => name === operation.pathParams[index]);
  return (request) => {
    if (params) {
      const given = request.params as Record<string, string>;
      const named: Record<string, unknown> = {};
      if (sameNames) Object.assign(named, given);
      else for (const [index, name] of routeParams.entries()) named[operation.pathParams[index] ?? name] = given[name];
      if (!params(named)) refuse(describeErrors(params, 'path parameter', named));
    }
    if (query) {
      const raw = (request.query ?? {}) as Record<string, unknown>;
      // Coercion writes into what it checks: a copy, so the route's own parse reads the text it was sent.
      const copy: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(raw)) copy[name] = Array.isArray(value) ? [...value] : value;
      for (const name of operation.booleanQuery) {
        if (copy[name] === '1' || copy[name] === '0') copy[name] = copy[name] === '1' ? 'true' : 'false';
      }
      if (!query(copy)) refuse(describeErrors(query, 'query', raw));
    }
    if (body && isJson(request)) {
      const value = request.body ?? {};
      if (!body(value)) refuse(describeErrors(body, 'body', value));
    }
  };
}

function refuse(message: string | undefined): void {
  if (message !== undefined) throw badRequest(message);
}

/** Whether the request's body was read as JSON (file uploads and other bodies are their route's to read). */
function isJson(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return type === undefined || /^application\/(?:[\w.+-]+\+)?json\b/i.test(type);
}

type AjvError = NonNullable<Validator['errors']>[number];

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
};

/**
 * The platform's message for the first problem the validator found: `Invalid body field "a.b":
 * must be a string` (`query field`, `path parameter`), or `Invalid body: …` for the whole body. A
 * failed union is described by what its alternatives take at that place (`must be one of a, b or
 * null`); undefined when one of them takes the value's type and fails further in, which the
 * route's own check explains.
 */
export function describeErrors(
  validator: Validator,
  where: 'body' | 'query' | 'path parameter',
  value: unknown,
): string | undefined {
  const errors = validator.errors ?? [];
  const error = errors.at(-1);
  if (!error) return `Invalid ${where}`;
  let alternatives: AjvError[] = [];
  if (error.keyword === 'anyOf') {
    const union = error;
    const inside = errors.filter((other) => other !== union && isAtOrBelow(other.instancePath, union.instancePath));
    const depth = (other: AjvError) => pathOf(other).length;
    const deepest = Math.max(...inside.map(depth));
    // An alternative of the right type that fails further in is the route's to explain: its own
    // check words its unions (`must be { url } or { text }`) better than a guess at the one meant.
    if (inside.length > 0 && deepest > pathOf(union).length) return undefined;
    alternatives = inside.filter((other) => other.instancePath === union.instancePath);
  }
  const path = pathOf(error);
  const field = path.join('.');
  const head = field
    ? `Invalid ${where === 'body' || where === 'query' ? `${where} field` : where} "${field}"`
    : `Invalid ${where}`;
  if (where === 'query' && path.length === 1 && error.keyword !== 'required') {
    const given = (value as Record<string, unknown>)[path[0]!];
    if (Array.isArray(given)) return `${head}: must be given once, not ${given.length} times`;
  }
  return `${head}: ${reasonOf(alternatives.length > 0 ? alternatives : [error])}`;
}

/** What the value at one place must be, from the errors of one check or of a union's alternatives. */
function reasonOf(errors: AjvError[]): string {
  const [first] = errors;
  if (errors.length === 1 && first) {
    if (first.keyword === 'required') return 'is required';
    if (first.keyword === 'not' || first.keyword === 'false schema') return 'is not allowed';
  }
  const takes: string[] = [];
  const values: string[] = [];
  for (const error of errors) {
    if (error.keyword === 'type')
      takes.push(
        ...String(error.params.type)
          .split(',')
          .map((type) => TYPE_NAMES[type] ?? type),
      );
    else if (error.keyword === 'enum') values.push(...(error.params.allowedValues as unknown[]).map(String));
    else if (error.keyword === 'const') values.push(String(error.params.allowedValue));
  }
  // As the routes' own checks word it: `must be live or locked`, `must be one of a, b, c`.
  if (values.length > 2) takes.unshift(`one of ${values.join(', ')}`);
  else takes.unshift(...values);
  const unique = [...new Set(takes)];
  if (unique.length === 0) return first?.message ?? 'is not valid';
  return `must be ${unique.length === 1 ? unique[0] : `${unique.slice(0, -1).join(', ')} or ${unique.at(-1)}`}`;
}

/** The place of an error in the checked value, as keys (a missing property included). */
function pathOf(error: AjvError): string[] {
  const keys = error.instancePath
    .split('/')
    .slice(1)
    .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (error.keyword === 'required') keys.push(String(error.params.missingProperty));
  return keys;
}

function isAtOrBelow(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}/`);
}
