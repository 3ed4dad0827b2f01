/**
 * The platform's domain folders (`src/platform/<folder>/`), lowest first: a folder imports only folders ranked
 * below it, so the platform is a core the other domains build on one way. Beneath them all: the shared modules
 * (`src/platform/*.ts`) and `store/`; above them all: the wiring (`app.ts`, `server.ts`, `main.ts`, `demo-*.ts`,
 * `demo-content/`). A new folder takes its place here.
 */
const PLATFORM_DOMAINS = [
  // The generated REST contract (npm run contract): every domain may read it, it reads nothing.
  'contract',
  // The record of every write (audit events): any domain's tables may join it, it reads no domain.
  'audit',
  // Who: people and the organizations they belong to.
  'users',
  'organizations',
  // An organization's tree of collections and spaces (order, moves).
  'tree',
  // The content engine (revision store, pages, files, merge, search), then what reads documents.
  'content',
  'adaptive',
  'openapi',
  'fonts',
  'conversations',
  // What holds content.
  'spaces',
  'collections',
  // Membership: members, the teams they form, the SSO that makes members.
  'members',
  'teams',
  // Who may do what on spaces and collections: grants to users and teams, and where access comes from.
  'permissions',
  'sso',
  // Invitations and the administration of organizations and accounts.
  'org-admin',
  // Work on a space's content.
  'change-requests',
  // Discussions of a space's content and of its change requests.
  'comments',
  'translations',
  // Publishing, then what reaches other systems.
  'sites',
  'integrations',
  'git',
  // Content brought in from elsewhere: into change requests, from storage and the web.
  'imports',
  // Reads that compose the domains below: content as each reader sees it, URLs resolved to what they show.
  'content-reads',
  'urls',
  'health',
];

/** The platform's wiring: the modules that assemble the domains into the server and seed its demo. */
const PLATFORM_WIRING = '^src/platform/((app|server|main|demo-[^/]+)\\.ts$|demo-content/)';

/** One rule per domain folder: it imports no folder ranked above it. */
const domainOrder = PLATFORM_DOMAINS.slice(0, -1).map((folder, rank) => ({
  name: 'platform-domain-order',
  severity: 'error',
  comment:
    `${folder}/ is ranked below ${PLATFORM_DOMAINS.slice(rank + 1).join(', ')} (PLATFORM_DOMAINS): a lower ` +
    'domain never reaches up; move what it needs down, or let the higher one pass it a callback.',
  from: { path: `^src/platform/${folder}/` },
  to: { path: `^src/platform/(${PLATFORM_DOMAINS.slice(rank + 1).join('|')})/` },
}));

/**
 * The import rules of the layout (see docs/architecture.md), checked by `npm run deps` inside `npm test`.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'A module in a cycle cannot be read, tested or loaded on its own.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'gateway-not-platform',
      severity: 'error',
      comment: 'The gateway reaches the platform over HTTP only: it must work against any implementation of the API.',
      from: { path: '^src/gateway' },
      to: { path: '^src/platform' },
    },
    {
      name: 'platform-not-gateway',
      severity: 'error',
      comment: 'The platform knows nothing of the gateway in front of it.',
      from: { path: '^src/platform' },
      to: { path: '^src/gateway' },
    },
    {
      name: 'document-stands-alone',
      severity: 'error',
      comment: 'The document format is shared by both sides and depends on neither.',
      from: { path: '^src/document' },
      to: { path: '^src/(gateway|platform)' },
    },
    {
      name: 'contract-generator-apart',
      severity: 'error',
      comment:
        'The contract generator (src/contract) runs at development time; each side reads only the files it generated for it.',
      from: { path: '^src/(gateway|platform|document)' },
      to: { path: '^src/contract' },
    },
    {
      name: 'contract-generator-stands-alone',
      severity: 'error',
      comment: 'The generator reads the description and its overlay, never the code it writes for.',
      from: { path: '^src/contract' },
      to: { path: '^src/(gateway|platform|document)' },
    },
    {
      name: 'migrations-hold-their-sql',
      severity: 'error',
      comment: 'A shipped migration never changes: it holds its own SQL text and imports no domain code.',
      from: { path: '^src/platform/store/migrations' },
      to: { path: '^src/platform/(?!store/)' },
    },
    {
      name: 'upstream-below-policy-schema-http',
      severity: 'error',
      comment:
        'The REST client and the operation records are the bottom of the gateway: policy, schema and HTTP build on them, so what they need lives in or below upstream.',
      from: { path: '^src/gateway/upstream/' },
      to: { path: '^src/gateway/(policy|schema|http)/' },
    },
    {
      name: 'state-not-http',
      severity: 'error',
      comment:
        'The shared state serves every replica role, the HTTP front among them: what it needs of a request is plain data, not the HTTP framework.',
      from: { path: '^src/gateway/state/' },
      to: { path: '^src/gateway/http/' },
    },
    {
      name: 'policy-not-schema',
      severity: 'error',
      comment:
        'The cost model defines what it reads of the schema (the upstream cost a field declares, the keys of a link, the cursors of a connection) and the schema kit uses it, not the reverse.',
      from: { path: '^src/gateway/policy/' },
      to: { path: '^src/gateway/schema/' },
    },
    {
      name: 'platform-contract-imports-nothing',
      severity: 'error',
      comment: 'The platform\'s generated contract (src/platform/contract) is the bottom of the platform: it imports no module of the product.',
      from: { path: '^src/platform/contract/' },
      to: { path: '^src/', pathNot: '^src/platform/contract/' },
    },
    ...domainOrder,
    {
      name: 'platform-domains-ranked',
      severity: 'error',
      comment: 'Every domain folder of the platform has a rank in PLATFORM_DOMAINS, so the order covers it.',
      from: {
        path: '^src/platform/[^/]+/',
        pathNot: `^src/platform/(${[...PLATFORM_DOMAINS, 'store', 'demo-content'].join('|')})/`,
      },
      to: {},
    },
    {
      name: 'platform-wiring-on-top',
      severity: 'error',
      comment: 'Only the wiring assembles the domains: no domain nor shared module imports it.',
      from: { path: '^src/platform/', pathNot: PLATFORM_WIRING },
      to: { path: PLATFORM_WIRING },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a cycle of types is still a cycle to read.
    tsPreCompilationDeps: true,
    // TypeScript 7.0 has no JavaScript API for dependency-cruiser to parse with (7.1 will): swc parses the sources.
    parser: 'swc',
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
