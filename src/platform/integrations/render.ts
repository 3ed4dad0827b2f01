import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  ApiError,
  badRequest,
  describeIssue,
  newId,
  notFound,
  overLimit,
  parseBody,
  parseQuery,
  preconditionFailed,
} from '../http.js';
import { displayUrl, OutboundError, postUrl } from '../outbound.js';
import { findSiteById } from '../sites/store.js';
import { environmentOf, multipartBody } from './delivery.js';
import { deliveryUrl } from './development.js';
import type { EndpointPolicy } from './endpoints.js';
import { coveredTarget, type InstallationRow } from './installations.js';
import { decompressFromEncodedURIComponent, LzStringError } from './lz-string.js';
import { deliverySecret, signatureHeader } from './secrets.js';
import { requireIntegration, type IntegrationRow } from './store.js';

/**
 * Rendering an integration's UI (`GET` and `POST /integrations/{name}/render`): the platform sends a
 * `ui_render` event (the component, its props and state, the context, the action) to the endpoint the
 * integration declares (its tunnel in development mode), signed as deliveries are, through the
 * outbound guard, and answers what the integration renders. The context names where the UI is shown:
 * an organization, a space or a site, which the caller must be able to read and the integration must
 * be installed on. The integration has `timeoutMs` to answer at most `MAX_RENDER_ANSWER_BYTES` of JSON
 * in the shape of the description's `ContentKitRenderOutput`; one that cannot be reached, answers late,
 * too much, another status or another shape is a 424 saying so (the platform itself did not fail).
 */

/** Bytes of an integration's answer, at most. */
export const MAX_RENDER_ANSWER_BYTES = 256 * 1024;
/** Characters of `GET`'s compressed `request` parameter, at most. */
export const MAX_RENDER_PARAMETER_CHARS = 16 * 1024;
/** Characters of `GET`'s request once decompressed, at most. */
export const MAX_RENDER_REQUEST_CHARS = 256 * 1024;

const plainObject = z.record(z.string(), z.unknown(), { message: 'must be an object' });
const renderRequest = z.object({
  componentId: z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
  props: plainObject,
  state: plainObject.optional(),
  context: z.looseObject({
    type: z.string(),
    organizationId: z.string().max(100).optional(),
    spaceId: z.string().max(100).optional(),
    siteId: z.string().max(100).optional(),
  }),
  action: z.looseObject({ action: z.string() }).optional(),
});
type RenderRequest = z.infer<typeof renderRequest>;

/** The root elements the description allows (`ContentKitRootElement`). */
const ROOT_ELEMENTS = ['block', 'modal', 'configuration'] as const;
/** `ContentKitRenderOutput`: an element to show, with the state and props to render it again with, or the end of the flow. */
const elementOutput = z.looseObject({
  type: z.literal('element', { message: 'must be element or complete' }).optional(),
  element: z.looseObject(
    { type: z.enum(ROOT_ELEMENTS, { message: `must be one of ${ROOT_ELEMENTS.join(', ')}` }) },
    {
      message: 'must be an object',
    },
  ),
  state: plainObject,
  props: plainObject,
  canAccessVisitorClaims: z.boolean().optional(),
});
const completeOutput = z.looseObject({ type: z.literal('complete'), returnValue: plainObject.optional() });
/** The alternative an answer says it is (by its `type`), to name the field that is wrong in it. */
const renderOutput = (output: unknown) =>
  (output as { type?: unknown } | null)?.type === 'complete' ? completeOutput : elementOutput;

/** A failure of the integration (not of the platform): a 424 with the reason, never the endpoint's secrets. */
const integrationFailed = (reason: string) => new ApiError(424, `The integration could not render: ${reason}`);

/** The installation the context names, checked for the caller; with the space or site it covers there. */
function installationFor(
  request: FastifyRequest,
  integration: IntegrationRow,
  context: RenderRequest['context'],
): { installation: InstallationRow; spaceId?: string; siteId?: string } {
  const { db, access } = request.ctx;
  const installedOn = (orgId: string) => {
    const row = db
      .prepare('SELECT * FROM integration_installations WHERE integration_id = ? AND org_id = ?')
      .get(integration.id, orgId) as InstallationRow | undefined;
    if (!row) throw notFound('Integration installation');
    return row;
  };
  if (context.spaceId !== undefined) {
    const { space } = access.requireSpace(context.spaceId);
    const installation = installedOn(space.org_id);
    if (!coveredTarget(db, installation, 'space', space.id)) throw notFound('Integration installation');
    return { installation, spaceId: space.id };
  }
  if (context.siteId !== undefined) {
    const site = findSiteById(db, context.siteId);
    if (!site || access.orgRole(site.org_id) === undefined) throw notFound('Site');
    const installation = installedOn(site.org_id);
    if (!coveredTarget(db, installation, 'site', site.id)) throw notFound('Integration installation');
    return { installation, siteId: site.id };
  }
  if (context.organizationId !== undefined) {
    const org = access.requireOrg(context.organizationId);
    return { installation: installedOn(org.id) };
  }
  throw badRequest('Invalid body field "context": must name an organizationId, a spaceId or a siteId');
}

/** Sends the `ui_render` event and answers the integration's output, checked. */
async function render(
  request: FastifyRequest,
  name: string,
  body: RenderRequest,
  options: RenderOptions,
): Promise<unknown> {
  const { db, access, links, user } = request.ctx;
  const integration = requireIntegration(db, access, name);
  const { installation, spaceId, siteId } = installationFor(request, integration, body.context);
  const endpoint = deliveryUrl(db, integration, installation.id);
  if (!endpoint) throw preconditionFailed('The integration declares no endpoint to render its UI');
  const problem = options.endpoints.problem(endpoint);
  if (problem) throw integrationFailed(`its endpoint ${problem}`);
  const event = {
    eventId: newId(),
    type: 'ui_render',
    installationId: installation.id,
    ...(spaceId ? { spaceId } : {}),
    ...(siteId ? { siteId } : {}),
    auth: { userId: user.id },
    componentId: body.componentId,
    props: body.props,
    state: body.state ?? {},
    context: body.context,
    ...(body.action ? { action: body.action } : {}),
  };
  const multipart = multipartBody({
    event,
    environment: environmentOf(db, integration, installation.id, event, links),
  });
  const shown = displayUrl(new URL(endpoint));
  let answer: { status: number; body?: Buffer };
  try {
    answer = await postUrl(endpoint, {
      allowPrivate: options.endpoints.allowPrivate(endpoint),
      timeoutMs: options.timeoutMs,
      maxAnswerBytes: MAX_RENDER_ANSWER_BYTES,
      body: multipart.body,
      headers: {
        'content-type': multipart.contentType,
        accept: 'application/json',
        'x-gitbook-signature': signatureHeader(deliverySecret(db, installation.id), multipart.body),
        'x-gitbook-event-id': event.eventId,
        'x-gitbook-event-type': event.type,
        'x-gitbook-installation-id': installation.id,
      },
    });
  } catch (error) {
    if (error instanceof OutboundError) throw integrationFailed(error.message);
    throw error;
  }
  if (answer.status < 200 || answer.status >= 300) throw integrationFailed(`${shown} answered ${answer.status}`);
  let output: unknown;
  try {
    output = JSON.parse((answer.body ?? Buffer.alloc(0)).toString('utf8'));
  } catch {
    throw integrationFailed(`${shown} answered something other than JSON`);
  }
  const checked = renderOutput(output).safeParse(output);
  if (!checked.success)
    throw integrationFailed(
      `${shown} answered no rendered UI: ${describeIssue(checked.error, 'body').replace(/^Invalid body field/, 'its field')}`,
    );
  return output;
}

export interface RenderOptions {
  /** Which endpoints and tunnels may be called, and which of them may be private. */
  endpoints: EndpointPolicy;
  /** Time the integration has to answer, in milliseconds. */
  timeoutMs: number;
}

type NameParams = { integrationName: string };

/** `GET /integrations/{name}/render?request=` (the request compressed with LZ-String) and `POST` (the request as its body). */
export function integrationRenderRoutes(app: FastifyInstance, options: RenderOptions): void {
  app.get<{ Params: NameParams }>('/integrations/:integrationName/render', async (request, reply) => {
    const query = parseQuery(
      z.object({
        request: z
          .string()
          .min(1, 'must not be empty')
          .max(MAX_RENDER_PARAMETER_CHARS, `must be at most ${MAX_RENDER_PARAMETER_CHARS} characters`),
      }),
      request.query,
    );
    let text: string;
    try {
      text = decompressFromEncodedURIComponent(query.request, MAX_RENDER_REQUEST_CHARS);
    } catch (error) {
      if (!(error instanceof LzStringError)) throw error;
      if (error.overBudget)
        throw overLimit(`Invalid query parameter "request": ${error.message}`, {
          limit: 'renderRequestChars',
          value: MAX_RENDER_REQUEST_CHARS + 1,
          max: MAX_RENDER_REQUEST_CHARS,
        });
      throw badRequest(`Invalid query parameter "request": ${error.message} (LZ-String, URI-safe)`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw badRequest('Invalid query parameter "request": must be JSON once decompressed');
    }
    const checked = renderRequest.safeParse(json);
    if (!checked.success)
      throw badRequest(
        describeIssue(checked.error, 'query').replace('query field "', 'query parameter "request": field "'),
      );
    const output = await render(request, request.params.integrationName, checked.data, options);
    // Another user, or the same one after a change, may see it otherwise.
    return reply.header('cache-control', 'private, no-store').send(output);
  });

  app.post<{ Params: NameParams }>('/integrations/:integrationName/render', async (request, reply) => {
    const body = parseBody(renderRequest, request.body);
    const output = await render(request, request.params.integrationName, body, options);
    return reply.header('cache-control', 'private, no-store').send(output);
  });
}
