/**
 * The operations the gateway ships as examples: GraphiQL opens on the first, and all of them make
 * the built-in manifest of persisted operations (`persisted-operations.json`, written by
 * `npm run persisted`), which a client may send by hash (`documentId`) without the document.
 * Each is a named operation, checked against the schema by codegen and by `npm test`.
 */
export interface ExampleOperation {
  /** What it shows, for people reading GraphiQL. */
  description: string;
  document: string;
  /** Variables GraphiQL opens it with. */
  variables?: Record<string, unknown>;
}

export const EXAMPLE_OPERATIONS: readonly ExampleOperation[] = [
  {
    description: 'Everything the platform manages, in one graph: you, your organizations, their members and spaces.',
    document: /* GraphQL */ `query Dashboard {
  viewer { displayName email }
  organizations(first: 5) {
    totalCount
    nodes {
      title
      members(first: 3) { totalCount nodes { role user { displayName } } }
      spaces(first: 5) { totalCount nodes { title visibility parent { title } } }
    }
  }
}`,
  },
  {
    description:
      'The same dashboard, first screen at once: organizations and spaces in the first payload, the members (one more level of upstream requests) in a later one. Send it with `Accept: multipart/mixed` or `text/event-stream` (GraphiQL does).',
    document: /* GraphQL */ `query DeferredDashboard {
  viewer { displayName email }
  organizations(first: 5) {
    totalCount
    nodes {
      title
      spaces(first: 5) { totalCount nodes { title visibility } }
      ... @defer(label: "members") {
        members(first: 3) { totalCount nodes { role user { displayName } } }
      }
    }
  }
}`,
  },
  {
    description: 'One space with its live pages and its open change requests.',
    document: /* GraphQL */ `query SpaceOverview($spaceId: ID!) {
  space(id: $spaceId) {
    title
    visibility
    organization { title }
    content { pages { title ... on DocumentPage { path } } }
    changeRequests(first: 10, status: OPEN) { totalCount nodes { number subject createdBy { displayName } } }
  }
}`,
  },
  {
    description: 'Full-text search across an organization.',
    variables: { organizationId: 'acme', query: 'install' },
    document: /* GraphQL */ `query SearchOrganization($organizationId: ID!, $query: String!) {
  organization(id: $organizationId) {
    search(query: $query, first: 10) { totalCount nodes { title } }
  }
}`,
  },
  {
    description:
      'Follow a space: its current revision at once, then each new one with what it changed (run it, then merge a change request of the space in another tab). Over SSE or WebSocket; the gateway polls the platform once per interval for all who follow the same space with the same token.',
    document: /* GraphQL */ `subscription FollowSpaceContent($spaceId: ID!) {
  spaceContentUpdated(spaceId: $spaceId) {
    platformId
    createdAt
    space { title }
    changes {
      changes {
        __typename
        ... on PageCreatedChange { page { title } }
        ... on PageEditedChange { page { title } }
      }
    }
  }
}`,
  },
];
