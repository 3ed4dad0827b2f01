/**
 * The operations the gateway ships as examples, one or more per domain of the graph: GraphiQL opens
 * a tab per example, and all of them make the built-in manifest of persisted operations
 * (`persisted-operations.json`, written by `npm run persisted`), which a client may send by hash
 * (`documentId`) without the document. Each is a named operation, checked against the schema by
 * codegen and by `npm test`, and runs against the demo data as it is seeded (docs/demo-data.md):
 * their variables name demo objects by the ids every install gives them.
 */
export interface ExampleOperation {
  /** What it shows, for people reading GraphiQL. */
  description: string;
  document: string;
  /** Variables GraphiQL opens it with. */
  variables?: Record<string, unknown>;
  /** Headers its tab sends besides the caller's token (`x-explain`). */
  headers?: Record<string, string>;
}

/** Demo objects the examples name (docs/demo-data.md lists them). */
const DEMO = {
  organization: 'acme',
  gettingStarted: 'uGSO8WFtLyL1R4YKcr6B',
  handbook: 'QNc31FqZiCrFE1psJuPc',
  petstore: 'JFpBYGIx0e3ecjUGaKI7',
  /** "Runbooks": granted directly to two users and two teams, in a collection a team is granted on. */
  runbooks: 'mkSKqycXwbxfp3mnxzgl',
  /** "Document the log level setting": open, outdated, merges cleanly. */
  changeRequest: '2',
  /** Signed for the site "Acme API", claims `betaAccess: true`: it opens the beta variant. */
  visitorToken:
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJkZW1vLXZpc2l0b3IiLCJiZXRhQWNjZXNzIjp0cnVlLCJwbGFuIjoicHJvIiwiaWF0IjoxNzk1MDAwMDAwLCJleHAiOjQxMDI0NDQ4MDB9.FZq3enHVYoi7u43wF4rdG62RET-oF_bDqDGUZkDkWCU',
} as const;

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
    variables: { spaceId: DEMO.gettingStarted },
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
    description:
      'The page tree of a space, two levels deep, and one page as markdown (the page and its markdown come in one upstream read).',
    variables: { spaceId: DEMO.gettingStarted, pageId: 'pg-gs-quickstart' },
    document: /* GraphQL */ `query PageTreeAndMarkdown($spaceId: ID!, $pageId: ID!) {
  space(id: $spaceId) {
    title
    content {
      pages {
        title
        ... on DocumentPage { path }
        children { title ... on DocumentPage { path } }
      }
      page(id: $pageId) { title ... on DocumentPage { description markdown } }
    }
  }
}`,
  },
  {
    description:
      'The discussion of a space: its open comments with their page, author and replies (bodies as markdown), who commented, and the comments of one page.',
    variables: { spaceId: DEMO.gettingStarted, pageId: 'pg-gs-quickstart' },
    document: /* GraphQL */ `query SpaceComments($spaceId: ID!, $pageId: ID!) {
  space(id: $spaceId) {
    title
    counts { comments }
    comments(first: 10, status: OPEN) {
      totalCount
      nodes {
        author { displayName }
        postedAt
        page { title }
        outdated
        body { markdown }
        replies(first: 10) { totalCount nodes { author { displayName } body { text } } }
      }
    }
    commenters(first: 10) { nodes { role user { displayName } } }
    content { page(id: $pageId) { title ... on DocumentPage { comments(first: 10, status: ALL) { nodes { status replyCount body { text } } } } } }
  }
}`,
  },
  {
    description:
      'The discussion of a change request: its comments (on it and on pages of its content) with their replies, who commented, and the AI agent conversations held in its context.',
    variables: { spaceId: DEMO.gettingStarted, changeRequestId: '4' },
    document: /* GraphQL */ `query ChangeRequestDiscussion($spaceId: ID!, $changeRequestId: ID!) {
  space(id: $spaceId) {
    changeRequest(id: $changeRequestId) {
      number
      subject
      openComments
      comments(first: 10, order: ASC) {
        nodes {
          author { displayName }
          page { title }
          body { markdown }
          replies(first: 10) { nodes { author { displayName } body { text } } }
        }
      }
      commenters(first: 10) { nodes { user { displayName } } }
      agentConversations(first: 10) { totalCount nodes { conversationId title shared updatedAt } }
    }
  }
}`,
  },
  {
    description:
      'Full-text search across an organization: the spaces with hits, best first, and in each the pages and sections that matched.',
    variables: { organizationId: DEMO.organization, query: 'install' },
    document: /* GraphQL */ `query SearchOrganization($organizationId: ID!, $query: String!) {
  organization(id: $organizationId) {
    search(query: $query, first: 10) {
      totalCount
      nodes {
        title
        pages { title path sections { title body } }
      }
    }
  }
}`,
  },
  {
    description:
      'Edit a change request and merge it, in one request (mutations run in order): change request #2 of "Getting started" gets a new description for a page, then merges cleanly. Run once: merged, it takes no more edits (try another change request of the space).',
    variables: { spaceId: DEMO.gettingStarted, changeRequestId: DEMO.changeRequest },
    document: /* GraphQL */ `mutation EditAndMergeChangeRequest($spaceId: ID!, $changeRequestId: ID!) {
  editChangeRequestContent(input: {
    spaceId: $spaceId
    changeRequestId: $changeRequestId
    changes: [{ updatePage: { pageId: "pg-gs-configuration", description: "Every setting, its default, and when to change it." } }]
  }) {
    edits { kind page { title } }
    userErrors { code field message }
  }
  mergeChangeRequest(input: { spaceId: $spaceId, changeRequestId: $changeRequestId }) {
    result
    revision { platformId pages { title } }
    conflicts { __typename }
    userErrors { code field message }
  }
}`,
  },
  {
    description:
      'Git Sync: where the company handbook synchronizes with, its last operation, and the commit and file each page came from. With `GIT_ALLOW_LOCAL=1`, `importFromGit` and `exportToGit` run against the demo repository, and `gitSyncUpdated` follows them.',
    variables: { spaceId: DEMO.handbook },
    document: /* GraphQL */ `query GitSync($spaceId: ID!) {
  space(id: $spaceId) {
    title
    gitSync { repoName url integration operation { direction state stage startedAt endedAt error } }
    content {
      git { oid message }
      pages { title ... on DocumentPage { git { path oid } } }
    }
  }
}`,
  },
  {
    description:
      'From a published URL to the page it shows, as a visitor: the site, the variant their claims open, the space and the page with its markdown. This visitor token (of the demo site "Acme API", `betaAccess: true`) opens the beta variant; without `visitor`, the URL is refused, as the site is `VISITOR_AUTH`. Try the URLs of docs/demo-data.md too.',
    variables: { url: 'https://api.acme-docs.test/beta', visitor: { jwtToken: DEMO.visitorToken } },
    document: /* GraphQL */ `query ResolveUrl($url: String!, $visitor: VisitorInput) {
  resolveUrl(url: $url, visitor: $visitor) {
    __typename
    ... on PublishedContent {
      site { title }
      siteSpace { path condition }
      space { title }
      page { title ... on DocumentPage { markdown } }
    }
    ... on ContentRedirect { url target }
  }
}`,
  },
  {
    description:
      'The docs sites of an organization: who may read each, where it is published, its sections and variants and the space each shows (and what each variant customizes otherwise), its share links, the redirects of old paths, its customization with the fonts and pages it names.',
    variables: { organizationId: DEMO.organization },
    document: /* GraphQL */ `query Sites($organizationId: ID!) {
  organization(id: $organizationId) {
    sites(first: 10) {
      nodes {
        title
        visibility
        isPublished
        urls { published }
        siteSpaces(first: 10) {
          nodes { path condition urls { published } space { title } section { title } customization { overridden } }
        }
        shareLinks(first: 5) { nodes { name url active } }
        customization {
          updatedAt
          settings { title themeToggle styling { primaryColor { light dark } } }
          fonts { fontFamily }
          links { place title url space { title } page { title } }
        }
        redirects(first: 5) {
          totalCount
          nodes {
            source
            permanent
            destination { ... on SiteRedirectSectionDestination { section { title } } ... on SiteRedirectExternalDestination { url } }
          }
        }
      }
    }
  }
}`,
  },
  {
    description:
      'What readers of a site find around its content: its navigation (sections, groups and the external links among them, in order), the integrations installed on it and the scripts they add to its published pages.',
    variables: { organizationId: DEMO.organization },
    document: /* GraphQL */ `query SiteNavigation($organizationId: ID!) {
  organization(id: $organizationId) {
    sites(first: 10) {
      nodes {
        title
        structure {
          ... on SiteSectionsStructure {
            items {
              __typename
              ... on SiteSection { title path }
              ... on SiteExternalLink { title url icon }
              ... on SiteSectionGroup {
                title
                children { __typename ... on SiteSection { title } ... on SiteExternalLink { title url } }
              }
            }
          }
        }
        integrations(first: 5) { totalCount nodes { name title } }
        integrationScripts { url cookies contentSecurityPolicy integration { title } }
      }
    }
  }
}`,
  },
  {
    description:
      'Who has access to each docs site and through what: every member with their role on it and its sources, strongest first (their organization role, a team’s grant or their own), the roles granted on the site to users and teams, and your own access (the same fields as on spaces and collections).',
    variables: { organizationId: DEMO.organization },
    document: /* GraphQL */ `query SiteAccess($organizationId: ID!) {
  organization(id: $organizationId) {
    sites(first: 10) {
      nodes {
        title
        effectiveAccess { role sources { type } }
        accessibleBy(first: 20, sort: NAME, order: ASC) {
          totalCount
          nodes { role user { displayName } lastSeenAt sources { type role team { title } } }
        }
        users(first: 10) { nodes { role user { displayName } } }
        teams(first: 10) { nodes { role team { title memberCount } } }
      }
    }
  }
}`,
  },
  {
    description:
      'Search across a docs site: the spaces its site spaces show, best first, each with its best pages ranked across the whole site, the site space and section they are published in, and excerpts of the matching sections.',
    variables: { organizationId: DEMO.organization, query: 'install' },
    document: /* GraphQL */ `query SiteSearch($organizationId: ID!, $query: String!) {
  organization(id: $organizationId) {
    defaultContent {
      site {
        title
        search(query: $query, first: 5) {
          totalCount
          nodes {
            title
            score
            siteSpace { path section { title } }
            pages { rank title path sections { title body } }
          }
        }
        publishingPreview(claims: { betaAccess: true }) { url expiresAt }
      }
    }
  }
}`,
  },
  {
    description:
      'Embeds of URLs in a space’s pages: videos as iframes the platform writes from the URL alone, with no connection (any other page is a link card read through the outbound guard).',
    variables: { spaceId: DEMO.gettingStarted },
    document: /* GraphQL */ `query SpaceEmbeds($spaceId: ID!) {
  space(id: $spaceId) {
    title
    video: embed(url: "https://youtu.be/dQw4w9WgXcQ") { type title site html }
    recording: embed(url: "https://vimeo.com/76979871") { type title site html }
  }
}`,
  },
  {
    description:
      'Translations: which space is translated into which language, how far the last run got, and the space that holds the result.',
    variables: { organizationId: DEMO.organization },
    document: /* GraphQL */ `query Translations($organizationId: ID!) {
  organization(id: $organizationId) {
    translations(first: 10) {
      nodes {
        language
        status
        source { language space { title } }
        result { space { title content { pages { title } } } }
        stats { runs latestPages latestWords }
      }
    }
  }
}`,
  },
  {
    description:
      'An OpenAPI specification, its versions, and the API reference a space computes from it (pages generated from the specification).',
    variables: { organizationId: DEMO.organization, slug: 'acme-petstore', spaceId: DEMO.petstore },
    document: /* GraphQL */ `query OpenApi($organizationId: ID!, $slug: String!, $spaceId: ID!) {
  organization(id: $organizationId) {
    openApiSpec(slug: $slug) {
      slug
      visibility
      processingState
      lastVersion { createdAt url }
      versions(first: 5) { totalCount nodes { createdAt } }
    }
  }
  space(id: $spaceId) {
    title
    content { pages { title children { title } } }
  }
}`,
  },
  {
    description:
      'Integrations: those an organization can install, where each is installed, on which spaces and sites it is enabled, and the blocks the integrations installed on those spaces add to their editor.',
    variables: { organizationId: DEMO.organization },
    document: /* GraphQL */ `query Integrations($organizationId: ID!) {
  organization(id: $organizationId) {
    integrations(first: 10) {
      nodes {
        name
        title
        target
        visibility
        installations(first: 5) {
          nodes {
            status
            organization { title }
            spaceInstallations(first: 5) { nodes { space { title integrationBlocks { title integration { name } } } } }
            siteInstallations(first: 5) { nodes { site { title } } }
          }
        }
      }
    }
  }
}`,
  },
  {
    description:
      'Installed integrations: what an organization installed with each installation’s configuration (admins), and the status of every integration on the organization and on its spaces.',
    variables: { organizationId: DEMO.organization },
    document: /* GraphQL */ `query InstalledIntegrations($organizationId: ID!) {
  organization(id: $organizationId) {
    installations(first: 10) {
      totalCount
      nodes { status spaceSelection configuration integration { name title } }
    }
    integrationStatuses(first: 10) { nodes { status integration { name } } }
    onSpaces: integrationStatuses(first: 10, target: SPACE) {
      nodes { status integration { name } space { title } }
    }
  }
}`,
  },
  {
    description:
      'Conversations: the recurring problems support conversations raise, clustered, most frequent first, with the change requests that address them; and the latest conversations.',
    variables: { organizationId: DEMO.organization },
    document: /* GraphQL */ `query Conversations($organizationId: ID!) {
  organization(id: $organizationId) {
    issuesClusters(first: 5, orderBy: CONVERSATIONS) {
      nodes {
        label
        impact
        muted
        stats { conversations issues }
        changeRequests(first: 3) { nodes { number subject } }
      }
    }
    conversations(first: 3) { nodes { subject source createdAt } }
  }
}`,
  },
  {
    description:
      'Hostnames: the organization’s subdomain, and the custom hostname of each of its sites with the state of its DNS (PENDING until a check answers: the demo runs none, so offline nothing claims LIVE).',
    variables: { organizationId: DEMO.organization },
    document: /* GraphQL */ `query Hostnames($organizationId: ID!) {
  organization(id: $organizationId) {
    subdomain { subdomain isActive }
    sites(first: 10) { nodes { title hostname customHostname { hostname status isActive } } }
  }
}`,
  },
  {
    description:
      'Imports: the runs bringing content into the organization’s spaces, newest first: where from, what became of them (a failed one says why, with a code), and the change request and pages a completed one wrote.',
    variables: { organizationId: DEMO.organization },
    document: /* GraphQL */ `query Imports($organizationId: ID!) {
  organization(id: $organizationId) {
    importRuns(first: 10) {
      totalCount
      nodes {
        status
        reason
        sourceType
        sourceUrl
        space { title }
        changeRequest { number subject }
        pages { pageId sourceUrl }
        createdBy { displayName }
      }
    }
  }
}`,
  },
  {
    description:
      'Audit events (organization admins): who changed what, newest first, each linked to its actor and to its target’s node when the graph has its type; `action`, `actor`, `target`, `from` and `to` filter them. The demo’s own events were recorded by its seed, as the system from a script.',
    variables: { organizationId: DEMO.organization },
    document: /* GraphQL */ `query AuditEvents($organizationId: ID!) {
  organization(id: $organizationId) {
    auditEvents(first: 10) {
      totalCount
      nodes {
        occurredAt
        action
        source
        actor { type label user { displayName } }
        target { type label node { __typename ... on Space { title } ... on Collection { title } } }
      }
    }
    auditEventActions { action label }
  }
}`,
  },
  {
    description:
      'Why a query costs what it costs: its tab sends the header `x-explain: 1`, so the answer carries `extensions.explain`, each upstream request the gateway made, when, how long it took, and the fields it served (docs/cost-and-explain.md).',
    headers: { 'x-explain': '1' },
    variables: { organizationId: DEMO.organization },
    document: /* GraphQL */ `query ExplainSpaces($organizationId: ID!) {
  organization(id: $organizationId) {
    spaces(first: 3) {
      nodes {
        title
        changeRequests(first: 2) { nodes { subject createdBy { displayName } } }
      }
    }
  }
}`,
  },
  {
    description:
      'Who can see a space, and why: the users and teams granted on it, every member with access with the sources of their role (organization role, default level, direct grant, team, collection), the one giving the role first, and your own access (the same fields as on collections and sites).',
    variables: { spaceId: DEMO.runbooks },
    document: /* GraphQL */ `query WhoCanSeeThisSpace($spaceId: ID!) {
  space(id: $spaceId) {
    title
    effectiveAccess { role sources { type } }
    users(first: 10) { nodes { role user { displayName } } }
    teams(first: 10) { nodes { role team { title } } }
    accessibleBy(first: 20) {
      totalCount
      nodes {
        role
        user { displayName }
        lastSeenAt
        sources { type role team { title } collection { title } }
      }
    }
  }
}`,
  },
  {
    description:
      'Follow a space: its current revision at once, then each new one with what it changed (run it, then merge a change request of the space in another tab). Over SSE or WebSocket; the gateway polls the platform once per interval for all who follow the same space with the same token.',
    variables: { spaceId: DEMO.gettingStarted },
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
