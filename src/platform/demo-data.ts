import { storeFirstRevision } from './content/revisions.js';
import { seedDemoContent } from './demo-content/seed.js';
import { seedDemoChangeRequests } from './demo-content/change-requests.js';
import { DEMO_SITES, seedDemoSites } from './sites/demo.js';
import { seedDemoSaml } from './sso/store.js';
import { seedDemoFonts } from './fonts/store.js';
import { seedDemoTranslations } from './translations/run.js';
import { DEMO_SPEC_SPACE, seedDemoOpenAPI } from './openapi/demo.js';
import { seedDemoConversations } from './conversations/demo.js';
import { DEMO_INTEGRATIONS, seedDemoIntegrations } from './integrations/demo.js';
import { newId, newSecret, stableId, withStableIds } from './http.js';
import type { Db } from './store/db.js';

/** `{ "<email>": "<token>" }`, the first entry an admin of every demo organization. */
export type DemoTokens = Record<string, string>;

/**
 * The names of the demo data set, so tests, docs/demo-data.md and GraphiQL examples can name its
 * objects. Every demo object has the same id on every install (users and spaces from their names,
 * the rest from the order of seeding: `withStableIds`); tests find users by e-mail and spaces by title.
 */
export const DEMO = {
  orgs: {
    /**
     * "Acme Docs": every role, a guest, teams, nested collections; `emailDomains: ['acme.test']`,
     * hostname `acme-docs`, plan `pro`, `defaultRole: read`.
     */
    acme: 'acme',
    /** "Globex": a second organization (plan `free`, `defaultRole: null`); ada is admin, hana edits. */
    globex: 'globex',
  },
  users: {
    /** Admin of every demo organization (the first token). */
    ada: 'ada@acme.test',
    /** Acme `create`; owner of the Writers team. */
    ben: 'ben@acme.test',
    /** Acme `review`; owner of the Reviewers team. */
    cy: 'cy@acme.test',
    /** Acme `edit` (an SSO member); member of Writers, owner of Platform. */
    dee: 'dee@acme.test',
    /** Acme `comment`; member of Writers. */
    eve: 'eve@acme.test',
    /** Acme `read`; member of Reviewers; direct `edit` grant on the "Runbooks" space. */
    finn: 'finn@acme.test',
    /**
     * Acme guest (role null), with a direct `read` grant on the Guides collection and a direct
     * `comment` grant on the "Tutorials" space inside it.
     */
    gus: 'gus@partner.test',
    /** Globex `edit`; not in Acme. */
    hana: 'hana@globex.test',
    /** Member of no organization; can join Acme through its e-mail domain. */
    ivy: 'ivy@acme.test',
  },
  teams: {
    /** Acme "Writers": owner ben; members dee, eve. `edit` on the Engineering collection. */
    writers: 'team-writers',
    /** Acme "Reviewers": owner cy; member finn. `review` on the Internal collection. */
    reviewers: 'team-reviewers',
    /** Acme "Platform": owner dee. `edit` on the "Architecture decisions" space. */
    platform: 'team-platform',
  },
  collections: {
    /** Acme "Product", top level. */
    product: 'col-product',
    /** Acme "Guides", inside Product; gus has `read`. */
    guides: 'col-guides',
    /** Acme "Advanced", inside Guides. */
    advanced: 'col-advanced',
    /** Acme "Engineering", top level; `defaultLevel: read`; team Writers has `edit`. */
    engineering: 'col-engineering',
    /** Acme "Internal", top level; `defaultLevel: inherit`; team Reviewers has `review`. */
    internal: 'col-internal',
    /** Globex "Handbook", top level. */
    globexHandbook: 'col-globex-handbook',
  },
  /**
   * Titles of the spaces with something particular about them (29 spaces in all: the 28 of
   * `SPACES`, and "Getting started (FR)", the result space of the demo translation).
   */
  spaces: {
    /** Acme root, private, Git-synchronized with `https://github.test/acme/handbook`. */
    gitSynced: 'Company handbook',
    /** Acme, in Product, `public`. */
    public: 'Release notes',
    /** Acme, in Guides, `share-link`, language `de`. */
    shareLink: 'Erste Schritte',
    /** Acme, in Engineering, `visitor-auth`, merge rules requiring cy's review. */
    visitorAuth: 'API reference',
    /** Acme, in Guides, `in-collection`; gus has a direct `comment` grant. */
    guestComment: 'Tutorials',
    /** Acme, in Engineering, private; finn has a direct `edit` grant. */
    userGrant: 'Runbooks',
    /** Acme, in Engineering, private, merge rules `none`; team Platform has `edit`. */
    teamGrant: 'Architecture decisions',
    /** Acme, in Advanced, private and `locked`. */
    locked: 'Security hardening',
    /** Acme, in Engineering, deleted 2 days ago: still restorable. */
    deleted: 'SDK changelog',
    /** Acme, in Internal, deleted 10 days ago: outside the 7-day restore window. */
    expired: 'Meeting notes 2023',
    /** Acme root, public: an overview and an API reference computed from the OpenAPI specification `acme-petstore`. */
    openapi: DEMO_SPEC_SPACE,
  },
  /** Docs sites by title (see `sites/demo.ts`). */
  sites: DEMO_SITES,
  /** Integrations by name (see `integrations/demo.ts`). */
  integrations: DEMO_INTEGRATIONS,
} as const;

const SEEDED_KEY = 'demo_seeded';
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

type Visibility = 'public' | 'unlisted' | 'share-link' | 'visitor-auth' | 'in-collection' | 'private';
type UserKey = keyof typeof DEMO.users;

interface DemoSpace {
  title: string;
  org: string;
  parent?: string;
  emoji?: string;
  visibility: Visibility;
  locked?: boolean;
  language?: 'en' | 'fr' | 'de';
  defaultLevel?: string;
  mergeRules?: 'none' | { reviewers: UserKey[] };
  gitSync?: true;
  visitorAuth?: true;
  deletedDaysAgo?: number;
  createdDaysAgo: number;
  updatedDaysAgo: number;
}

const { acme, globex } = DEMO.orgs;
const C = DEMO.collections;
const S = DEMO.spaces;

const SPACES: DemoSpace[] = [
  {
    title: S.gitSynced,
    org: acme,
    emoji: '📘',
    visibility: 'private',
    language: 'en',
    gitSync: true,
    createdDaysAgo: 390,
    updatedDaysAgo: 3,
  },
  {
    title: 'Status page',
    org: acme,
    emoji: '🟢',
    visibility: 'public',
    language: 'en',
    createdDaysAgo: 350,
    updatedDaysAgo: 1,
  },
  {
    title: 'Brand guidelines',
    org: acme,
    emoji: '🎨',
    visibility: 'unlisted',
    locked: true,
    createdDaysAgo: 300,
    updatedDaysAgo: 120,
  },
  {
    title: 'Product overview',
    org: acme,
    parent: C.product,
    emoji: '🚀',
    visibility: 'public',
    language: 'en',
    createdDaysAgo: 380,
    updatedDaysAgo: 12,
  },
  {
    title: S.public,
    org: acme,
    parent: C.product,
    emoji: '📣',
    visibility: 'public',
    language: 'en',
    createdDaysAgo: 370,
    updatedDaysAgo: 0.2,
  },
  {
    title: 'Roadmap',
    org: acme,
    parent: C.product,
    emoji: '🗺️',
    visibility: 'in-collection',
    createdDaysAgo: 200,
    updatedDaysAgo: 9,
  },
  {
    title: 'Pricing FAQ',
    org: acme,
    parent: C.product,
    visibility: 'share-link',
    language: 'en',
    createdDaysAgo: 150,
    updatedDaysAgo: 40,
  },
  {
    title: 'Getting started',
    org: acme,
    parent: C.guides,
    emoji: '👋',
    visibility: 'public',
    language: 'en',
    createdDaysAgo: 360,
    updatedDaysAgo: 5,
  },
  {
    title: S.guestComment,
    org: acme,
    parent: C.guides,
    emoji: '🧭',
    visibility: 'in-collection',
    language: 'en',
    createdDaysAgo: 340,
    updatedDaysAgo: 21,
  },
  {
    title: 'Guide de démarrage',
    org: acme,
    parent: C.guides,
    emoji: '🇫🇷',
    visibility: 'unlisted',
    language: 'fr',
    createdDaysAgo: 180,
    updatedDaysAgo: 30,
  },
  {
    title: S.shareLink,
    org: acme,
    parent: C.guides,
    emoji: '🇩🇪',
    visibility: 'share-link',
    language: 'de',
    createdDaysAgo: 170,
    updatedDaysAgo: 31,
  },
  {
    title: 'Performance tuning',
    org: acme,
    parent: C.advanced,
    emoji: '⚡',
    visibility: 'in-collection',
    language: 'en',
    createdDaysAgo: 250,
    updatedDaysAgo: 60,
  },
  {
    title: S.locked,
    org: acme,
    parent: C.advanced,
    emoji: '🔒',
    visibility: 'private',
    locked: true,
    language: 'en',
    createdDaysAgo: 240,
    updatedDaysAgo: 90,
  },
  {
    title: S.visitorAuth,
    org: acme,
    parent: C.engineering,
    emoji: '🔌',
    visibility: 'visitor-auth',
    visitorAuth: true,
    language: 'en',
    mergeRules: { reviewers: ['cy'] },
    createdDaysAgo: 330,
    updatedDaysAgo: 2,
  },
  {
    title: S.teamGrant,
    org: acme,
    parent: C.engineering,
    emoji: '🏛️',
    visibility: 'private',
    mergeRules: 'none',
    createdDaysAgo: 280,
    updatedDaysAgo: 14,
  },
  {
    title: S.userGrant,
    org: acme,
    parent: C.engineering,
    emoji: '🛠️',
    visibility: 'private',
    language: 'en',
    createdDaysAgo: 220,
    updatedDaysAgo: 7,
  },
  {
    title: S.deleted,
    org: acme,
    parent: C.engineering,
    emoji: '🧾',
    visibility: 'private',
    language: 'en',
    deletedDaysAgo: 2,
    createdDaysAgo: 160,
    updatedDaysAgo: 2,
  },
  {
    title: 'Onboarding checklist',
    org: acme,
    parent: C.internal,
    emoji: '✅',
    visibility: 'in-collection',
    defaultLevel: 'comment',
    createdDaysAgo: 310,
    updatedDaysAgo: 45,
  },
  {
    title: 'Incident postmortems',
    org: acme,
    parent: C.internal,
    emoji: '🚒',
    visibility: 'private',
    locked: true,
    mergeRules: { reviewers: ['cy', 'dee'] },
    createdDaysAgo: 230,
    updatedDaysAgo: 11,
  },
  {
    title: S.expired,
    org: acme,
    parent: C.internal,
    emoji: '🗒️',
    visibility: 'private',
    deletedDaysAgo: 10,
    createdDaysAgo: 400,
    updatedDaysAgo: 10,
  },
  {
    title: S.openapi,
    org: acme,
    emoji: '🐾',
    visibility: 'public',
    language: 'en',
    createdDaysAgo: 60,
    updatedDaysAgo: 40,
  },
  {
    title: 'Employee handbook',
    org: globex,
    parent: C.globexHandbook,
    emoji: '📗',
    visibility: 'in-collection',
    language: 'en',
    createdDaysAgo: 190,
    updatedDaysAgo: 6,
  },
  {
    title: 'Benefits',
    org: globex,
    parent: C.globexHandbook,
    emoji: '🎁',
    visibility: 'private',
    language: 'en',
    createdDaysAgo: 185,
    updatedDaysAgo: 50,
  },
  {
    title: 'Travel policy',
    org: globex,
    parent: C.globexHandbook,
    emoji: '✈️',
    visibility: 'private',
    locked: true,
    createdDaysAgo: 170,
    updatedDaysAgo: 75,
  },
  {
    title: 'Developer portal',
    org: globex,
    emoji: '💻',
    visibility: 'public',
    language: 'en',
    createdDaysAgo: 180,
    updatedDaysAgo: 4,
  },
  {
    title: 'Partner API',
    org: globex,
    emoji: '🤝',
    visibility: 'visitor-auth',
    visitorAuth: true,
    language: 'en',
    mergeRules: 'none',
    createdDaysAgo: 160,
    updatedDaysAgo: 8,
  },
  {
    title: 'Guide utilisateur',
    org: globex,
    emoji: '📙',
    visibility: 'unlisted',
    language: 'fr',
    createdDaysAgo: 120,
    updatedDaysAgo: 19,
  },
  { title: 'Handbuch', org: globex, visibility: 'share-link', language: 'de', createdDaysAgo: 100, updatedDaysAgo: 33 },
];

/**
 * Seeds the demo data set (see `DEMO`) the first time it runs on a database, in one
 * transaction, and returns the demo users' tokens in `DEMO.users` order, the admin first.
 * Later runs seed nothing and return the stored tokens.
 */
export function seedDemoData(db: Db): DemoTokens {
  // IMMEDIATE takes the write lock before the check, so two processes cannot both seed.
  return db.transaction(() => storedTokens(db) ?? withStableIds('demo', () => insertDemoData(db))).immediate();
}

/** True once the demo data was seeded in this database. */
export function isSeeded(db: Db): boolean {
  return db.prepare('SELECT 1 FROM meta WHERE key = ?').get(SEEDED_KEY) !== undefined;
}

function storedTokens(db: Db): DemoTokens | undefined {
  // The statement is shared with other readers of `meta` that pluck (the signing key): set the mode.
  const marker = db.prepare('SELECT value FROM meta WHERE key = ?').pluck(true).get(SEEDED_KEY) as string | undefined;
  if (marker === undefined) return undefined;
  const emails = JSON.parse(marker) as string[];
  const tokenOf = db.prepare(
    `SELECT t.token FROM api_tokens t JOIN users u ON u.id = t.user_id
     WHERE u.email = ? ORDER BY t.created_at, t.rowid LIMIT 1`,
  );
  const tokens: DemoTokens = {};
  for (const email of emails) {
    const row = tokenOf.get(email) as { token: string } | undefined;
    if (row) tokens[email] = row.token;
  }
  return tokens;
}

function insertDemoData(db: Db): DemoTokens {
  const start = Date.now();
  const ago = (days: number) => new Date(start - days * DAY).toISOString();

  const userIds = {} as Record<UserKey, string>;
  const tokens: DemoTokens = {};
  const insertUser = db.prepare(
    'INSERT INTO users (id, display_name, email, photo_url, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const insertToken = db.prepare('INSERT INTO api_tokens (token, user_id, created_at) VALUES (?, ?, ?)');
  const people: Record<UserKey, { name: string; photo?: boolean; since: number }> = {
    ada: { name: 'Ada Lovelace', photo: true, since: 420 },
    ben: { name: 'Ben Okafor', photo: true, since: 400 },
    cy: { name: 'Cy Tanaka', since: 320 },
    dee: { name: 'Dee Alvarez', photo: true, since: 300 },
    eve: { name: 'Eve Martin', since: 260 },
    finn: { name: 'Finn Larsen', since: 140 },
    gus: { name: 'Gus Partner', since: 35 },
    hana: { name: 'Hana Kowalski', photo: true, since: 210 },
    ivy: { name: 'Ivy Chen', since: 3 },
  };
  for (const key of Object.keys(DEMO.users) as UserKey[]) {
    const email = DEMO.users[key];
    const person = people[key];
    const id = stableId(`demo-user:${key}`);
    const token = newSecret(40);
    insertUser.run(
      id,
      person.name,
      email,
      person.photo ? `https://avatars.example.test/${key}.png` : null,
      ago(person.since),
    );
    insertToken.run(token, id, ago(person.since));
    userIds[key] = id;
    tokens[email] = token;
  }

  const insertOrg = db.prepare(
    `INSERT INTO organizations (id, title, created_at, email_domains, hostname, type, use_case, default_role, plan, created_by)
     VALUES (?, ?, ?, ?, ?, 'business', ?, ?, ?, ?)`,
  );
  insertOrg.run(
    acme,
    'Acme Docs',
    ago(420),
    JSON.stringify(['acme.test']),
    'acme-docs',
    'productDocs',
    'read',
    'pro',
    userIds.ada,
  );
  insertOrg.run(
    globex,
    'Globex',
    ago(210),
    JSON.stringify(['globex.test']),
    'globex',
    'internalDocs',
    null,
    'free',
    userIds.ada,
  );

  const insertMember = db.prepare(
    'INSERT INTO members (org_id, user_id, role, sso, joined_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const memberships: Array<
    [org: string, user: UserKey, role: string | null, joinedDaysAgo: number, seenDaysAgo: number | null, sso?: 1]
  > = [
    [acme, 'ada', 'admin', 420, 0.05],
    [acme, 'ben', 'create', 400, 1],
    [acme, 'cy', 'review', 320, null],
    [acme, 'dee', 'edit', 300, 0.5, 1],
    [acme, 'eve', 'comment', 260, 16],
    [acme, 'finn', 'read', 140, null],
    [acme, 'gus', null, 35, 4],
    [globex, 'ada', 'admin', 210, 2],
    [globex, 'hana', 'edit', 205, 0.3],
  ];
  for (const [org, user, role, joined, seen, sso] of memberships) {
    insertMember.run(org, userIds[user], role, sso ?? 0, ago(joined), seen === null ? null : ago(seen));
  }

  const insertTeam = db.prepare('INSERT INTO teams (id, org_id, title, created_at) VALUES (?, ?, ?, ?)');
  const insertTeamMember = db.prepare(
    'INSERT INTO team_members (team_id, user_id, role, added_at) VALUES (?, ?, ?, ?)',
  );
  const teams: Array<[id: string, title: string, createdDaysAgo: number, owner: UserKey, members: UserKey[]]> = [
    [DEMO.teams.writers, 'Writers', 380, 'ben', ['dee', 'eve']],
    [DEMO.teams.reviewers, 'Reviewers', 310, 'cy', ['finn']],
    [DEMO.teams.platform, 'Platform', 290, 'dee', []],
  ];
  for (const [id, title, created, owner, members] of teams) {
    insertTeam.run(id, acme, title, ago(created));
    insertTeamMember.run(id, userIds[owner], 'owner', ago(created));
    members.forEach((member, index) => {
      insertTeamMember.run(id, userIds[member], 'member', ago(created - 1 - index * 7));
    });
  }

  // Collections and spaces share one ordering per container (an organization root or a collection).
  const nextPosition = new Map<string, number>();
  const position = (org: string, parent: string | undefined) => {
    const container = parent ?? `org:${org}`;
    const value = (nextPosition.get(container) ?? 0) + 1000;
    nextPosition.set(container, value);
    return value;
  };

  const insertCollection = db.prepare(
    `INSERT INTO collections (id, org_id, parent_id, title, description, default_level, position, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const collections: Array<
    [
      id: string,
      org: string,
      parent: string | undefined,
      title: string,
      description: string | null,
      level: string,
      created: number,
      updated: number,
    ]
  > = [
    [C.product, acme, undefined, 'Product', 'Everything customers read about the product', 'inherit', 400, 20],
    [C.guides, acme, C.product, 'Guides', 'Step-by-step guides for new and returning users', 'inherit', 365, 25],
    [C.advanced, acme, C.guides, 'Advanced', null, 'inherit', 250, 60],
    [C.engineering, acme, undefined, 'Engineering', 'APIs, SDKs and how the platform is built', 'read', 335, 7],
    [C.internal, acme, undefined, 'Internal', null, 'inherit', 315, 45],
    [C.globexHandbook, globex, undefined, 'Handbook', 'How we work at Globex', 'inherit', 195, 6],
  ];
  for (const [id, org, parent, title, description, level, created, updated] of collections) {
    insertCollection.run(
      id,
      org,
      parent ?? null,
      title,
      description,
      level,
      position(org, parent),
      ago(created),
      ago(updated),
    );
  }

  const spaceIds = new Map<string, string>();
  const insertSpace = db.prepare(
    `INSERT INTO spaces (id, org_id, parent_id, title, emoji, visibility, edit_mode, merge_rules, language, default_level,
       revision, share_key, git_sync, visitor_auth, position, created_at, updated_at, deleted_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const space of SPACES) {
    // The same on every install, so that the documentation and bookmarks can name demo spaces.
    const id = stableId(`demo-space:${space.org}:${space.title}`);
    const revision = newId();
    spaceIds.set(space.title, id);
    const mergeRules =
      space.mergeRules === undefined
        ? { type: 'inherit' }
        : space.mergeRules === 'none'
          ? { type: 'none' }
          : {
              type: 'rules',
              rules: [
                { rule: 'require_specific_reviewers', users: space.mergeRules.reviewers.map((key) => userIds[key]) },
              ],
            };
    const gitSync = space.gitSync
      ? {
          repoName: 'acme/handbook',
          installationProvider: 'github',
          integration: 'github',
          url: 'https://github.test/acme/handbook',
          updatedAt: ago(space.updatedDaysAgo),
        }
      : null;
    insertSpace.run(
      id,
      space.org,
      space.parent ?? null,
      space.title,
      space.emoji ?? null,
      space.visibility,
      space.locked ? 'locked' : 'live',
      JSON.stringify(mergeRules),
      space.language ?? null,
      space.defaultLevel ?? 'inherit',
      revision,
      newSecret(24),
      gitSync && JSON.stringify(gitSync),
      space.visitorAuth ? JSON.stringify({ backend: 'custom' }) : null,
      position(space.org, space.parent),
      ago(space.createdDaysAgo),
      ago(space.updatedDaysAgo),
      space.deletedDaysAgo === undefined ? null : ago(space.deletedDaysAgo),
    );
    storeFirstRevision(db, id, revision, ago(space.createdDaysAgo));
  }

  const insertGrant = db.prepare(
    `INSERT INTO content_permissions (content_type, content_id, principal_type, principal_id, role, created_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const space = (title: string) => spaceIds.get(title)!;
  const grants: Array<
    [
      type: 'collection' | 'space',
      id: string,
      principal: 'user' | 'team',
      principalId: string,
      role: string,
      created: number,
    ]
  > = [
    ['collection', C.engineering, 'team', DEMO.teams.writers, 'edit', 330],
    ['collection', C.internal, 'team', DEMO.teams.reviewers, 'review', 300],
    ['collection', C.guides, 'user', userIds.gus, 'read', 34],
    ['space', space(S.guestComment), 'user', userIds.gus, 'comment', 30],
    ['space', space(S.userGrant), 'user', userIds.finn, 'edit', 100],
    ['space', space(S.teamGrant), 'team', DEMO.teams.platform, 'edit', 270],
  ];
  for (const [type, id, principal, principalId, role, created] of grants) {
    insertGrant.run(type, id, principal, principalId, role, ago(created));
  }

  db.prepare('INSERT INTO link_invites (id, org_id, role, created_at) VALUES (?, ?, ?, ?)').run(
    newId(),
    acme,
    'comment',
    ago(12),
  );

  const instructions = {
    object: 'document',
    data: { schemaVersion: 1 },
    nodes: [
      {
        object: 'block',
        type: 'paragraph',
        key: 'p1',
        isVoid: false,
        data: { align: 'start' },
        nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Answer in a friendly tone.', marks: [] }] }],
      },
    ],
  };
  db.prepare('INSERT INTO agent_instructions (org_id, instructions, updated_at, updated_by) VALUES (?, ?, ?, ?)').run(
    acme,
    JSON.stringify(instructions),
    ago(15),
    userIds.ada,
  );

  // Each domain's ids come from a sequence of its own: adding to one leaves the others' as they were.
  const domain = (name: string, seed: () => void) => withStableIds(`demo-${name}`, seed);
  // Real documentation in three spaces, with three revisions each.
  domain('content', () => seedDemoContent(db, spaceIds, ago));
  // Support conversations of Acme over the last thirteen weeks, split into issues and clustered
  // (before change requests: one of them addresses the installer-errors cluster).
  domain('conversations', () => seedDemoConversations(db, acme, start));
  // Change requests in every state on top of it.
  domain('change-requests', () => seedDemoChangeRequests(db, spaceIds, userIds));
  // Docs sites publishing some of them.
  domain('sites', () => seedDemoSites(db, { acme, globex }, spaceIds));
  // SAML providers of Acme: one active, one pending.
  domain('saml', () => seedDemoSaml(db, acme, ago(40)));
  domain('fonts', () => seedDemoFonts(db, acme, ago(35)));
  // "Getting started" translated into French (pseudo-localized), one run completed: its result
  // is the space "Getting started (FR)".
  domain('translations', () => seedDemoTranslations(db, acme, space('Getting started'), ago(4)));
  // The OpenAPI specification of Acme (two versions) and the space computing its reference.
  domain('openapi', () => seedDemoOpenAPI(db, acme, space(S.openapi), ago(60)));
  // Two integrations of Acme, installed, with their events: "Video embeds" (public, enabled on
  // "Release notes") and "Acme analytics" (private, enabled on the Acme Docs site).
  const docsSite = db
    .prepare('SELECT id FROM sites WHERE org_id = ? AND title = ?')
    .pluck(true)
    .get(acme, DEMO_SITES.docs) as string;
  domain('integrations', () => seedDemoIntegrations(db, { acme, globex }, space(S.public), docsSite));

  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(SEEDED_KEY, JSON.stringify(Object.values(DEMO.users)));
  return tokens;
}
