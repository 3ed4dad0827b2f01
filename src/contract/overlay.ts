/**
 * Where the API as its documentation states it (`platform-api.md`, which wins) differs from the official
 * description (`@gitbook/api` 0.202.0), and where the description cannot be met as written: each difference
 * named once, applied to the description before the contract is generated from it and before the
 * platform's answers are checked against it (`description.ts`). Every entry says why.
 */
import type { OverlayEntry, Schema } from './description.js';

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const pointerKey = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');
const operationAt = (method: string, path: string) => `/paths/${pointerKey(path)}/${method.toLowerCase()}`;
const pathParameter = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});
const listParameters = [{ $ref: '#/components/parameters/listPage' }, { $ref: '#/components/parameters/listLimit' }];
const query = (name: string, schema: Schema, description: string) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});
const json = (schema: Schema, description = 'OK') => ({ description, content: { 'application/json': { schema } } });
const pageOf = (item: Schema, extra: Record<string, Schema> = {}, required: string[] = []): Schema => ({
  allOf: [
    ref('List'),
    {
      type: 'object',
      required: ['items', ...required],
      properties: { items: { type: 'array', items: item }, ...extra },
    },
  ],
});

/** An operation the API documentation lists and the description does not have. */
function operation(
  method: string,
  path: string,
  spec: {
    operationId: string;
    summary: string;
    tags: string[];
    parameters: unknown[];
    body?: Schema;
    responses: Record<string, unknown>;
  },
  reason: string,
): OverlayEntry {
  const { body, ...rest } = spec;
  return {
    pointer: operationAt(method, path),
    value: {
      ...rest,
      ...(body ? { requestBody: { required: true, content: { 'application/json': { schema: body } } } } : {}),
    },
    reason,
  };
}

const organizationId = { $ref: '#/components/parameters/organizationId' };
const spaceId = { $ref: '#/components/parameters/spaceId' };
const changeRequestId = { $ref: '#/components/parameters/changeRequestId' };
const pageId = { $ref: '#/components/parameters/pageId' };
const fileId = { $ref: '#/components/parameters/fileId' };

const CONVERSATIONS =
  'the API documentation (Conversations) lists conversations, their issues and issue clusters; the description has none of them (shapes from the API documentation)';
const LINKS =
  'the API documentation (Space content, Change request content) lists link reports and backlinks; the description dropped them (shapes of its older release)';
const LANDING =
  'the landing page by its empty path (`content/path/`): the platform ignores trailing slashes, so no {pagePath} segment is left';

/** Shapes the description lacks, for the operations below. */
const SCHEMAS: Record<string, Schema> = {
  ConversationImpact: { type: 'string', enum: ['low', 'medium', 'high'], description: 'How much an issue weighs.' },
  Conversation: {
    type: 'object',
    properties: {
      object: { type: 'string', enum: ['conversation'] },
      id: { type: 'string' },
      subject: { type: 'string' },
      createdAt: ref('Timestamp'),
      processedAt: ref('Timestamp'),
      source: { type: 'string' },
      impact: ref('ConversationImpact'),
      urls: {
        type: 'object',
        properties: { location: { type: 'string', format: 'uri' }, source: { type: 'string', format: 'uri' } },
        required: ['location'],
      },
    },
    required: ['object', 'id', 'createdAt', 'urls'],
  },
  ConversationPart: {
    type: 'object',
    properties: {
      type: { type: 'string', enum: ['message'] },
      role: { type: 'string', description: "The source's own role: `user` for the person asking." },
      body: { type: 'string' },
    },
    required: ['type', 'role', 'body'],
  },
  ConversationDetail: {
    type: 'object',
    properties: {
      conversation: ref('Conversation'),
      parts: { type: 'array', items: ref('ConversationPart') },
      metadata: {
        type: 'object',
        properties: {
          url: { type: 'string', format: 'uri' },
          attributes: { type: 'object', additionalProperties: { type: 'string' }, default: {} },
          createdAt: ref('Timestamp'),
        },
      },
    },
    required: ['conversation', 'parts', 'metadata'],
  },
  ConversationInput: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      subject: { type: 'string' },
      metadata: {
        type: 'object',
        properties: {
          url: { type: 'string' },
          attributes: { type: 'object', additionalProperties: { type: 'string' } },
          createdAt: ref('Timestamp'),
        },
      },
      parts: { type: 'array', items: ref('ConversationPart') },
    },
    required: ['parts'],
  },
  ConversationIssue: {
    type: 'object',
    properties: {
      object: { type: 'string', enum: ['conversation-issue'] },
      id: { type: 'string' },
      title: { type: 'string' },
      details: ref('JSONDocument'),
      impact: ref('ConversationImpact'),
      createdAt: ref('Timestamp'),
      ingestedAt: ref('Timestamp'),
      conversation: { type: 'string', description: 'The id of the conversation the issue was found in.' },
      cluster: { type: 'string', description: 'The id of the cluster the issue belongs to.' },
      urls: { type: 'object', properties: { location: { type: 'string', format: 'uri' } }, required: ['location'] },
    },
    required: ['object', 'id', 'title', 'details', 'impact', 'createdAt', 'conversation', 'urls'],
  },
  ConversationIssueWithConversation: {
    type: 'object',
    properties: { issue: ref('ConversationIssue'), conversation: ref('Conversation') },
    required: ['issue', 'conversation'],
  },
  IssuesCluster: {
    type: 'object',
    properties: {
      object: { type: 'string', enum: ['issues-cluster'] },
      id: { type: 'string' },
      label: { type: 'string' },
      createdAt: ref('Timestamp'),
      updatedAt: ref('Timestamp'),
      icon: { type: 'string' },
      summary: ref('JSONDocument'),
      muted: { type: 'boolean', description: 'Muted for the creation of change requests.' },
      impact: ref('ConversationImpact'),
      weeklyPulse: { type: 'array', items: { type: 'number' }, description: 'Weekly counts over the past 3 months.' },
      sources: { type: 'object', additionalProperties: { type: 'number' }, default: {} },
      stats: {
        type: 'object',
        properties: { issues: { type: 'number' }, conversations: { type: 'number' } },
        required: ['issues', 'conversations'],
      },
      urls: { type: 'object', properties: { location: { type: 'string', format: 'uri' } }, required: ['location'] },
    },
    required: ['object', 'id', 'label', 'createdAt', 'updatedAt', 'muted', 'impact', 'weeklyPulse', 'stats', 'urls'],
  },
  ContentLinkStatus: { type: 'string', enum: ['ok', 'broken', 'in-app'] },
  ContentReferenceUsage: {
    type: 'object',
    properties: {
      status: ref('ContentLinkStatus'),
      relation: { type: 'string', enum: ['reference', 'dependsOn'] },
      targetReference: ref('ContentLocation'),
      locationReferences: { type: 'array', items: ref('ContentLocation') },
    },
    required: ['status', 'relation', 'locationReferences'],
  },
  ContentLinkStats: {
    type: 'object',
    properties: {
      total: { type: 'integer', minimum: 0 },
      broken: {
        type: 'object',
        properties: { total: { type: 'integer', minimum: 0 }, changeRequest: { type: 'integer', minimum: 0 } },
        required: ['total'],
      },
    },
    required: ['total', 'broken'],
  },
};

const linkReport = json(pageOf(ref('ContentReferenceUsage'), { stats: ref('ContentLinkStats') }, ['stats']));
const backlinks = json(pageOf(ref('ContentLocation')));

export const OVERLAY: readonly OverlayEntry[] = [
  ...Object.entries(SCHEMAS).map(([name, value]) => ({
    pointer: `/components/schemas/${name}`,
    value,
    reason: 'a shape the API documentation gives and the description lacks, for the operations added below',
  })),

  // --- Where no answer can satisfy the description (0.202.0): checked as strictly as it meant --------

  {
    pointer: '/components/schemas/DocumentInlineButton/properties/data',
    value: {
      allOf: [
        {
          type: 'object',
          properties: {
            label: { type: 'string' },
            kind: { type: 'string', enum: ['primary', 'secondary'] },
            size: { type: 'string', enum: ['small', 'medium', 'large'] },
            icon: { $ref: '#/components/schemas/Icon' },
          },
          required: ['label', 'kind'],
        },
        {
          oneOf: [
            {
              type: 'object',
              properties: { ref: { $ref: '#/components/schemas/ContentRef' } },
              required: ['ref'],
              not: { required: ['action'] },
            },
            {
              type: 'object',
              properties: { action: { $ref: '#/components/schemas/DocumentAction' } },
              required: ['action'],
              not: { required: ['ref'] },
            },
          ],
        },
      ],
    },
    reason:
      'an allOf of the label, kind, size and icon with a oneOf of { ref } and { action } that each forbid any other property: no button can carry its label and its target at once',
  },
  {
    pointer: '/components/schemas/RevisionSemanticChangePageEdited/properties/attributes',
    value: {
      anyOf: [
        { $ref: '#/components/schemas/RevisionPageDocumentChangeAttributes' },
        { $ref: '#/components/schemas/RevisionPageGroupChangeAttributes' },
        { $ref: '#/components/schemas/RevisionPageLinkChangeAttributes' },
      ],
    },
    reason:
      'a oneOf of RevisionPageDocumentChangeAttributes, …GroupChangeAttributes and …LinkChangeAttributes, which all allow `title` and any other property: every set of page attributes matches two of them',
  },
  {
    pointer: '/components/schemas/Document',
    value: {
      anyOf: [
        { $ref: '#/components/schemas/MarkdownDocument' },
        {
          type: 'object',
          properties: { document: { $ref: '#/components/schemas/JSONDocument' } },
          required: ['document'],
        },
        { type: 'object', not: { anyOf: [{ required: ['markdown'] }, { required: ['document'] }] } },
      ],
    },
    reason:
      'its "Empty" alternative has `additionalProperties: false`, which a page (Document is mixed into RevisionPageDocument) can never meet: a page asked for without `format` (no body) matched no alternative',
  },
  {
    pointer: '/components/schemas/RevisionPageDocument/allOf/3',
    value: {
      oneOf: [
        {
          type: 'object',
          properties: {
            computed: { $ref: '#/components/schemas/ComputedContentSourceDocument' },
            computedSeed: { type: 'string' },
          },
          required: ['computed', 'computedSeed'],
        },
        {
          type: 'object',
          properties: { documentId: { type: 'string' } },
          not: { anyOf: [{ required: ['computed'] }, { required: ['computedSeed'] }] },
        },
      ],
    },
    reason:
      'a oneOf of the computed page ({ computed, computedSeed } required) and the plain page ({ documentId }, nothing required and other properties allowed): every computed page matches both',
  },
  {
    pointer: '/components/schemas/PlainObject',
    value: {
      type: 'object',
      properties: {},
      additionalProperties: {
        oneOf: [
          { $ref: '#/components/schemas/PlainObject' },
          { type: 'string' },
          { type: 'boolean' },
          { type: 'number' },
          {
            type: 'array',
            items: {
              oneOf: [
                { type: 'string' },
                { type: 'boolean' },
                { type: 'number' },
                { $ref: '#/components/schemas/PlainObject' },
              ],
            },
          },
        ],
      },
    },
    reason:
      "an object without `type: object` whose values are a oneOf of PlainObject, string, boolean, number or array: every value that is no object matches PlainObject too, so only empty or nested-object props (a rendered UI's, an action's) could match",
  },

  // --- What the API documentation says otherwise ---------------------------------------------------
  {
    pointer: `${operationAt('patch', '/collections/{collectionId}')}/requestBody/content/application~1json/schema/properties/description`,
    value: {
      anyOf: [ref('CollectionDescription'), { type: 'null' }],
      description: 'The new description; null removes it.',
    },
    reason:
      "a collection's description is optional (the API documentation, Collection); the description gives no way to remove one, null does",
  },
  {
    pointer: `${operationAt('patch', '/orgs/{organizationId}/sites/{siteId}/structure/sort')}/requestBody/content/application~1json/schema/required`,
    value: ['item'],
    reason:
      'the description says that without a position the item moves to the end of the structure, yet lists position as required',
  },
  ...(
    [
      ['ssoURL', 'URL'],
      ['entityID', 'SAMLProviderEntityID'],
      ['certificate', 'SAMLProviderCertificate'],
    ] as const
  ).map(([field, schema]) => ({
    pointer: `${operationAt('patch', '/orgs/{organizationId}/saml/{samlProviderId}')}/requestBody/content/application~1json/schema/properties/${field}`,
    value: {
      anyOf: [ref(schema), { type: 'null' }],
      description: 'The new value; null removes it (the provider is pending again).',
    },
    reason:
      'a SAML provider is pending until configured (the API documentation, SAML provider status); null removes a setting, which the description has no way to do',
  })),
  {
    pointer: `${operationAt('patch', '/orgs/{organizationId}/saml/{samlProviderId}')}/requestBody/content/application~1json/schema/properties/defaultTeam`,
    value: { type: ['string', 'null'], description: 'The id of the team SSO members join; null for none.' },
    reason:
      'a provider may stop giving its members a team: null removes the default team, which the description has no way to do',
  },
  {
    pointer: '/components/schemas/List/required',
    value: ['count'],
    reason: 'the API documentation (Page of results): every page carries its count (`count: number`)',
  },
  {
    pointer: '/components/schemas/Organization/properties/permissions/properties/ingestConversations',
    value: { type: 'boolean', description: 'Can the user ingest conversations.' },
    reason: 'the API documentation (Organization, permissions) has ingestConversations; the description does not',
  },
  {
    pointer: `${operationAt('post', '/orgs/{organizationId}/ping')}/responses/200/content/application~1json/schema/properties`,
    value: {
      serviceVisitorClaims: { description: 'A JWT containing the claims to attach to this user.', type: 'string' },
    },
    reason: 'the API documentation names the token serviceVisitorClaims; the description gitbookVisitorClaims',
  },
  {
    pointer: '/components/schemas/RevisionTypeMerge/allOf/1/required',
    value: ['type'],
    reason:
      'readers outside a space are not shown its change requests (the API documentation, Change requests), so a merge revision leaves out mergedFrom for them',
  },
  {
    pointer: '/components/schemas/IntegrationEvent/properties/status/enum',
    value: ['pending', 'success', 'failed'],
    reason:
      'the API documentation (Events) leaves event statuses open; an event whose delivery is under way is pending, which the description lacks',
  },
  ...['/spaces/{spaceId}/change-requests', '/orgs/{organizationId}/change-requests'].map((path) => ({
    pointer: `${operationAt('get', path)}/parameters/-`,
    value: query(
      'conversationsIssuesCluster',
      { type: 'string' },
      'Only change requests linked to this issue cluster.',
    ),
    reason:
      'the API documentation lists the conversationsIssuesCluster filter; the description has a site topic instead',
  })),
  // Content, change requests, Git, OpenAPI and conversations (the gateway's records of those domains).
  {
    pointer: '/components/schemas/GitSyncState/required',
    value: ['installationProvider'],
    reason:
      'the API documentation (Git, git/info) answers { repoName, installationProvider, integration, url, updatedAt }: no installation status or id is promised',
  },
  {
    pointer: '/components/schemas/ChangeRequest/properties/conversationsIssuesCluster',
    value: { type: 'string', description: 'The id of the issue cluster the change request addresses.' },
    reason: 'the API documentation (Change request) has conversationsIssuesCluster; the description does not',
  },
  {
    pointer: `${operationAt('post', '/orgs/{organizationId}/sites')}/requestBody/content/application~1json/schema/properties/type/default`,
    value: 'basic',
    reason: 'the API documentation (Sites) gives basic as the default type of a new site',
  },

  // Organizations, members, teams, users, collections, SAML, fonts, translations.
  ...listParameters.map((parameter) => ({
    pointer: `${operationAt('get', '/orgs/{organizationId}/fonts')}/parameters/-`,
    value: parameter,
    reason:
      'the API documentation (Custom fonts) answers a page of fonts, and page and limit apply to every page of results; the description takes neither',
  })),

  // --- Operations the API documentation lists and the description does not ----------------------------
  operation(
    'post',
    '/spaces/{spaceId}/transfer',
    {
      operationId: 'transferSpace',
      summary: 'Transfer a space to another organization, a collection, or both',
      tags: ['spaces'],
      parameters: [spaceId],
      body: {
        type: 'object',
        properties: {
          organization: { type: 'string', description: 'The id of the organization to move it to.' },
          parent: { type: 'string', description: 'The id of the collection to move it into.' },
        },
      },
      responses: { '200': json(ref('Space')) },
    },
    'the API documentation (Spaces) lists the space transfer; the description dropped it',
  ),
  ...(
    [
      ['/spaces/{spaceId}/content/path', 'getLandingPage', [spaceId]],
      [
        '/spaces/{spaceId}/revisions/{revisionId}/path',
        'getLandingPageInRevision',
        [spaceId, { $ref: '#/components/parameters/revisionId' }],
      ],
      [
        '/spaces/{spaceId}/change-requests/{changeRequestId}/content/path',
        'getLandingPageInChangeRequest',
        [spaceId, changeRequestId],
      ],
    ] as const
  ).map(([path, operationId, parameters]) =>
    operation(
      'get',
      path,
      {
        operationId,
        summary: 'Get the landing page (the page at the empty path)',
        tags: ['space-content'],
        parameters: [...parameters, { $ref: '#/components/parameters/documentFormat' }],
        responses: { '200': json(ref('RevisionPage')) },
      },
      LANDING,
    ),
  ),
  ...(
    [
      ['/spaces/{spaceId}/links', 'listSpaceLinks', [spaceId], linkReport],
      ['/spaces/{spaceId}/content/page/{pageId}/links', 'listPageLinks', [spaceId, pageId], linkReport],
      ['/spaces/{spaceId}/content/page/{pageId}/backlinks', 'listPageBacklinks', [spaceId, pageId], backlinks],
      ['/spaces/{spaceId}/content/files/{fileId}/backlinks', 'listFileBacklinks', [spaceId, fileId], backlinks],
      [
        '/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links',
        'listPageLinksInChangeRequest',
        [spaceId, changeRequestId, pageId],
        linkReport,
      ],
      [
        '/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/backlinks',
        'listPageBacklinksInChangeRequest',
        [spaceId, changeRequestId, pageId],
        backlinks,
      ],
      [
        '/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/backlinks',
        'listFileBacklinksInChangeRequest',
        [spaceId, changeRequestId, fileId],
        backlinks,
      ],
    ] as const
  ).map(([path, operationId, parameters, answer]) =>
    operation(
      'get',
      path,
      {
        operationId,
        summary: answer === linkReport ? 'List the links of a report, with its stats' : 'List what links here',
        tags: ['space-content'],
        parameters: [...parameters, ...listParameters],
        responses: { '200': answer },
      },
      LINKS,
    ),
  ),
  operation(
    'delete',
    '/spaces/{spaceId}/git/legacy-installation',
    {
      operationId: 'removeLegacyGitInstallation',
      summary: 'Remove the legacy Git installation of a space',
      tags: ['git'],
      parameters: [spaceId],
      responses: { '204': { description: 'Nothing was installed' }, '205': { description: 'Removed' } },
    },
    'the API documentation (Git) lists the removal of the legacy Git installation of a space; the description dropped it',
  ),
  operation(
    'get',
    '/orgs/{organizationId}/conversations',
    {
      operationId: 'listConversations',
      summary: 'List the conversations of an organization, newest first',
      tags: ['conversations'],
      parameters: [
        organizationId,
        ...listParameters,
        query('source', { type: 'string' }, 'Only conversations from this source.'),
      ],
      responses: { '200': json(pageOf(ref('Conversation'))) },
    },
    CONVERSATIONS,
  ),
  operation(
    'post',
    '/orgs/{organizationId}/conversations',
    {
      operationId: 'ingestConversations',
      summary: 'Ingest one conversation or a batch of them',
      tags: ['conversations'],
      parameters: [organizationId],
      body: { oneOf: [ref('ConversationInput'), { type: 'array', items: ref('ConversationInput') }] },
      responses: { '204': { description: 'Ingested' } },
    },
    CONVERSATIONS,
  ),
  operation(
    'get',
    '/orgs/{organizationId}/conversations/{conversationId}',
    {
      operationId: 'getConversation',
      summary: 'Get a conversation with its messages and metadata',
      tags: ['conversations'],
      parameters: [organizationId, pathParameter('conversationId', 'The id of the conversation')],
      responses: { '200': json(ref('ConversationDetail')) },
    },
    CONVERSATIONS,
  ),
  operation(
    'get',
    '/orgs/{organizationId}/conversations-issues',
    {
      operationId: 'listConversationIssues',
      summary: 'List the issues found in conversations, each with its conversation',
      tags: ['conversations'],
      parameters: [
        organizationId,
        ...listParameters,
        query('cluster', { type: 'string' }, 'Only issues of this cluster.'),
        query('conversation', { type: 'string' }, 'Only issues of this conversation.'),
      ],
      responses: { '200': json(pageOf(ref('ConversationIssueWithConversation'))) },
    },
    CONVERSATIONS,
  ),
  operation(
    'get',
    '/orgs/{organizationId}/conversations-issues/{issueId}',
    {
      operationId: 'getConversationIssue',
      summary: 'Get an issue with its conversation',
      tags: ['conversations'],
      parameters: [organizationId, pathParameter('issueId', 'The id of the issue')],
      responses: { '200': json(ref('ConversationIssueWithConversation')) },
    },
    CONVERSATIONS,
  ),
  operation(
    'get',
    '/orgs/{organizationId}/conversations-clusters',
    {
      operationId: 'listIssuesClusters',
      summary: 'List the clusters of issues',
      tags: ['conversations'],
      parameters: [
        organizationId,
        ...listParameters,
        query('order', { type: 'string', enum: ['asc', 'desc'], default: 'desc' }, 'Sort order.'),
        query(
          'orderBy',
          {
            type: 'string',
            enum: ['updatedAt', 'createdAt', 'issues', 'conversations', 'impact'],
            default: 'updatedAt',
          },
          'What to sort by.',
        ),
        query('muted', { type: 'boolean' }, 'Only muted (true) or unmuted (false) clusters.'),
      ],
      responses: { '200': json(pageOf(ref('IssuesCluster'))) },
    },
    CONVERSATIONS,
  ),
  operation(
    'get',
    '/orgs/{organizationId}/conversations-clusters/{clusterId}',
    {
      operationId: 'getIssuesCluster',
      summary: 'Get a cluster of issues',
      tags: ['conversations'],
      parameters: [organizationId, pathParameter('clusterId', 'The id of the cluster')],
      responses: { '200': json(ref('IssuesCluster')) },
    },
    CONVERSATIONS,
  ),
  operation(
    'patch',
    '/orgs/{organizationId}/conversations-clusters/{clusterId}',
    {
      operationId: 'updateIssuesCluster',
      summary: 'Mute or unmute a cluster of issues',
      tags: ['conversations'],
      parameters: [organizationId, pathParameter('clusterId', 'The id of the cluster')],
      body: {
        type: 'object',
        properties: { muted: { type: 'boolean' } },
        required: ['muted'],
        additionalProperties: false,
      },
      responses: { '200': json(ref('IssuesCluster')) },
    },
    CONVERSATIONS,
  ),
  operation(
    'get',
    '/integrations/{integrationName}/installations/{installationId}/signing-secret',
    {
      operationId: 'getIntegrationInstallationSigningSecret',
      summary: "Get the secret that signs the deliveries of an installation's events",
      tags: ['integrations'],
      parameters: [
        { $ref: '#/components/parameters/integrationName' },
        { $ref: '#/components/parameters/installationId' },
      ],
      responses: {
        '200': json({ type: 'object', properties: { secret: { type: 'string' } }, required: ['secret'] }),
      },
    },
    "the secret that signs deliveries to an integration's own endpoint, for its developers: the description has no such delivery (its runtime gets `signingSecrets` in its environment)",
  ),
  // What the platform's request gate (src/platform/validation.ts) needs: requests the API documentation
  // accepts and the description refuses.
  {
    pointer: `${operationAt('post', '/orgs/{organizationId}/translations')}/requestBody/content/application~1json/schema/properties/source`,
    value: {
      type: 'object',
      properties: { space: { type: 'string' }, language: { $ref: '#/components/schemas/TranslationLanguage' } },
      required: ['space'],
    },
    reason:
      "the API documentation marks only `language` of a new translation required: the source's language may be left out (the source space's own is used), which the description's TranslationSource requires",
  },
];
