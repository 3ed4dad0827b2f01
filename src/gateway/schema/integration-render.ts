import { z } from 'zod';
import { BadUserInputError } from '../errors.js';
import * as op from '../upstream/contract/operations.js';
import type { ContentKitRenderOutput } from '../upstream/contract/types.js';
import { compressToEncodedURIComponent } from '../upstream/lz-string.js';
import { builder } from './kit/builder.js';
import { declareMutation, inputField } from './kit/mutations.js';
import { payloadType } from './kit/payloads.js';
import { platformKey } from './kit/ids.js';
import { upstream } from './kit/upstream-cost.js';
import { integrationName } from './integrations.js';

/**
 * An integration's UI, rendered by the integration itself (the platform calls its endpoint):
 * `Query.renderIntegrationUI` renders a component as it stands (`GET …/render`, a read: the same
 * request renders the same UI, and may be retried), and the mutation `submitIntegrationUIAction`
 * sends it a user's action (`POST …/render`): the integration may act on an action (save a
 * setting, call its own service), so it is a write, never retried nor answered from a cache.
 */

const OutputTypeEnum = builder.enumType('IntegrationUIRenderType', {
  description: 'What an integration answered to a render.',
  values: {
    ELEMENT: { value: 'element', description: 'An element to show, with the state and props to render it again.' },
    COMPLETE: { value: 'complete', description: 'The end of the flow (a modal closed), with its return value.' },
  },
});

const RenderType = builder.objectRef<ContentKitRenderOutput>('IntegrationUIRender').implement({
  description:
    'A UI an integration rendered (ContentKit): an element with its state and props, or the end of the flow. Never kept by the response cache.',
  fields: (t) => ({
    type: t.field({
      type: OutputTypeEnum,
      description: 'An element to show, or the end of the flow.',
      resolve: (r) => ('element' in r ? 'element' : 'complete'),
    }),
    element: t.field({
      type: 'JSON',
      nullable: true,
      description:
        'The root element (a block, a modal or a configuration) and its children, as ContentKit describes them.',
      resolve: (r) => ('element' in r ? r.element : null),
    }),
    state: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The state to render it again with.',
      resolve: (r) => ('element' in r ? r.state : null),
    }),
    props: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The props to render it again with.',
      resolve: (r) => ('element' in r ? r.props : null),
    }),
    returnValue: t.field({
      type: 'JSON',
      nullable: true,
      description: 'What a completed flow returns.',
      resolve: (r) => ('element' in r ? null : (r.returnValue ?? null)),
    }),
  }),
});

/** Characters of a render request (its JSON), at most: the platform's budget once decompressed. */
const MAX_REQUEST_CHARS = 256 * 1024;

const objectOf = (what: string) => z.record(z.string(), z.unknown(), { message: `${what} must be an object` });
const renderContext = z.looseObject({
  type: z.string({ message: 'must have a type' }),
  organizationId: z.string().optional(),
  spaceId: z.string().optional(),
  siteId: z.string().optional(),
});

/** The render request the platform takes, checked and bounded. */
function renderRequest(value: {
  componentId: string;
  props?: unknown;
  state?: unknown;
  context?: unknown;
  action?: unknown;
}) {
  const request = {
    componentId: value.componentId,
    props: value.props,
    ...(value.state != null ? { state: value.state } : {}),
    context: value.context,
    ...(value.action != null ? { action: value.action } : {}),
  };
  const chars = JSON.stringify(request).length;
  if (chars > MAX_REQUEST_CHARS)
    throw new BadUserInputError(
      `A render request is ${chars} characters of JSON, more than the maximum of ${MAX_REQUEST_CHARS}`,
    );
  return request;
}

builder.queryFields((t) => ({
  renderIntegrationUI: t.field({
    type: RenderType,
    nullable: true,
    description:
      'Renders a component of an integration as it stands, where `context` says (`{ type, organizationId | spaceId | siteId }`; you must be able to read it and the integration be installed there): the platform calls the integration’s endpoint and checks what it answers. An integration that cannot be reached, answers late or answers no UI is null with PRECONDITION_FAILED.',
    args: {
      integration: t.arg.string({ required: true, description: 'Name of the integration (or its global ID).' }),
      componentId: t.arg.string({ required: true, description: 'The component to render.' }),
      props: t.arg({ type: 'JSON', required: true, description: 'Its props (an object).' }),
      state: t.arg({ type: 'JSON', description: 'Its current state (an object).' }),
      context: t.arg({ type: 'JSON', required: true, description: 'Where it is shown (see the field).' }),
    },
    extensions: upstream.fetch(1),
    resolve: async (_root, args, ctx) => {
      const name = platformKey(args.integration, 'Integration');
      for (const [what, value, schema] of [
        ['props', args.props, objectOf('props')],
        ['state', args.state ?? {}, objectOf('state')],
        ['context', args.context, renderContext],
      ] as const) {
        const checked = schema.safeParse(value);
        if (!checked.success) throw new BadUserInputError(`${what}: ${checked.error.issues[0]?.message}`);
      }
      const text = JSON.stringify(renderRequest(args));
      // Compressing is the gateway's own work, counted by what it reads.
      ctx.work.add('conversion', text.length);
      return ctx.api.read(
        op.renderIntegrationUIWithGet,
        { integrationName: name },
        { request: compressToEncodedURIComponent(text) },
      );
    },
  }),
}));

declareMutation('submitIntegrationUIAction', {
  description:
    'Sends a user’s action to a component of an integration and answers what it renders next (see `renderIntegrationUI`): the integration may act on it, so it is a write. An integration that cannot be reached, answers late or answers no UI is a PRECONDITION_FAILED user error.',
  input: 'The component, where it is shown, and the action.',
  fields: {
    integrationName: inputField('String', 'Name of the integration (or Integration global ID).', integrationName),
    componentId: inputField(
      'String',
      'The component (at most 200 characters).',
      z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
    ),
    props: inputField('JSON', 'Its props (an object).', objectOf('props')),
    state: inputField('JSON', 'Its current state (an object).', objectOf('state').nullish()),
    context: inputField('JSON', 'Where it is shown: `{ type, organizationId | spaceId | siteId }`.', renderContext),
    action: inputField(
      'JSON',
      'The action (`{ action, … }`).',
      z.looseObject({ action: z.string({ message: 'must have an action' }) }),
    ),
  },
  payload: (name) =>
    payloadType<{ render: ContentKitRenderOutput }>(name, (t) => ({
      render: t.field({
        type: RenderType,
        nullable: true,
        description: 'What the integration rendered.',
        resolve: (payload) => payload.render ?? null,
      }),
    })),
  run: async (i, ctx) => {
    const { data } = await ctx.api.write(
      op.renderIntegrationUIWithPost,
      { integrationName: i.integrationName },
      { body: renderRequest(i) as never },
    );
    return { render: data };
  },
});
