import { storeFirstRevision } from './content/revisions.js';
import { type DemoData, loadDemoContent, loadDemoData } from './demo-content/load.js';
import { seedDemoContent } from './demo-content/seed.js';
import { seedDemoChangeRequests } from './demo-content/change-requests.js';
import { seedDemoComments } from './demo-content/comments.js';
import { seedDemoConversations } from './demo-content/conversations.js';
import { seedDemoIntegrations } from './demo-content/integrations.js';
import {
  loadDemoFonts,
  loadDemoImports,
  loadDemoIntegrations,
  loadDemoSaml,
  loadDemoTranslations,
} from './demo-content/load.js';
import { seedImportRun } from './imports/runs.js';
import { seedDemoOpenAPI } from './demo-content/openapi.js';
import { seedDemoCustomizations, seedDemoSites } from './demo-content/sites.js';
import { DEMO_SITES } from './sites/demo.js';
import { seedDemoSiteGrants } from './sites/permissions.js';
import { seedDemoSaml } from './sso/store.js';
import { seedDemoFonts } from './fonts/store.js';
import { seedDemoTranslation } from './translations/run.js';
import { insertGlossaryEntries } from './translations/glossary.js';
import { DEMO_SPEC_SPACE } from './openapi/demo.js';
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
  /** Integrations by name (see `demo-content/integrations/integrations.json`). */
  integrations: {
    /** Public, with a block and configurations; installed on Acme (enabled on "Release notes") and on Globex. */
    public: 'video-embeds',
    /** Private to Acme, target `site`; installed on Acme and enabled on the Acme Docs site. */
    private: 'acme-analytics',
    /** Private to Acme, target `site`, a script that may use cookies; enabled on the Acme Docs site. */
    chat: 'acme-support-chat',
  },
} as const;

const SEEDED_KEY = 'demo_seeded';
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

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
  const data = loadDemoData();
  checkNames(data);
  const start = Date.now();
  const ago = (days: number) => new Date(start - days * DAY).toISOString();

  const userIds: Record<string, string> = {};
  const tokens: DemoTokens = {};
  const insertUser = db.prepare(
    'INSERT INTO users (id, display_name, email, photo_url, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const insertToken = db.prepare('INSERT INTO api_tokens (token, user_id, created_at) VALUES (?, ?, ?)');
  for (const [key, person] of Object.entries(data.users)) {
    const id = stableId(`demo-user:${key}`);
    const token = newSecret(40);
    insertUser.run(
      id,
      person.name,
      person.email,
      person.photo ? `https://avatars.example.test/${key}.png` : null,
      ago(person.sinceDaysAgo),
    );
    insertToken.run(token, id, ago(person.sinceDaysAgo));
    userIds[key] = id;
    tokens[person.email] = token;
  }
  const user = (key: string) => {
    const id = userIds[key];
    if (!id) throw new Error(`Demo data names the user "${key}", who is not in its users`);
    return id;
  };

  const insertOrg = db.prepare(
    `INSERT INTO organizations (id, title, created_at, email_domains, hostname, type, use_case, default_role, plan, created_by)
     VALUES (?, ?, ?, ?, ?, 'business', ?, ?, ?, ?)`,
  );
  for (const org of data.organizations) {
    insertOrg.run(
      org.id,
      org.title,
      ago(org.createdDaysAgo),
      JSON.stringify(org.emailDomains),
      org.hostname,
      org.useCase,
      org.defaultRole,
      org.plan,
      user(org.createdBy),
    );
  }

  const insertMember = db.prepare(
    'INSERT INTO members (org_id, user_id, role, sso, joined_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (const member of data.members) {
    insertMember.run(
      member.org,
      user(member.user),
      member.role,
      member.sso ? 1 : 0,
      ago(member.joinedDaysAgo),
      member.lastSeenDaysAgo === null ? null : ago(member.lastSeenDaysAgo),
    );
  }

  const insertTeam = db.prepare('INSERT INTO teams (id, org_id, title, created_at) VALUES (?, ?, ?, ?)');
  const insertTeamMember = db.prepare(
    'INSERT INTO team_members (team_id, user_id, role, added_at) VALUES (?, ?, ?, ?)',
  );
  for (const team of data.teams) {
    insertTeam.run(team.id, team.org, team.title, ago(team.createdDaysAgo));
    insertTeamMember.run(team.id, user(team.owner), 'owner', ago(team.createdDaysAgo));
    // Members joined a day after the team was made, a week apart.
    team.members.forEach((member, index) => {
      insertTeamMember.run(team.id, user(member), 'member', ago(team.createdDaysAgo - 1 - index * 7));
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
  for (const collection of data.collections) {
    insertCollection.run(
      collection.id,
      collection.org,
      collection.parent ?? null,
      collection.title,
      collection.description,
      collection.defaultLevel,
      position(collection.org, collection.parent),
      ago(collection.createdDaysAgo),
      ago(collection.updatedDaysAgo),
    );
  }

  const spaceIds = new Map<string, string>();
  const insertSpace = db.prepare(
    `INSERT INTO spaces (id, org_id, parent_id, title, emoji, visibility, edit_mode, merge_rules, language, default_level,
       revision, share_key, git_sync, visitor_auth, position, created_at, updated_at, deleted_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const space of data.spaces) {
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
              rules: [{ rule: 'require_specific_reviewers', users: space.mergeRules.reviewers.map(user) }],
            };
    const gitSync = space.gitSync ? { ...space.gitSync, updatedAt: ago(space.updatedDaysAgo) } : null;
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
  const space = (title: string) => {
    const id = spaceIds.get(title);
    if (!id) throw new Error(`Demo data names the space "${title}", which is not in its spaces`);
    return id;
  };
  for (const grant of data.grants) {
    const [type, id] =
      grant.collection !== undefined ? ['collection', grant.collection] : ['space', space(grant.space!)];
    const [principal, principalId] = grant.team !== undefined ? ['team', grant.team] : ['user', user(grant.user!)];
    insertGrant.run(type, id, principal, principalId, grant.role, ago(grant.createdDaysAgo));
  }

  const insertInvite = db.prepare('INSERT INTO link_invites (id, org_id, role, created_at) VALUES (?, ?, ?, ?)');
  for (const invite of data.linkInvites) insertInvite.run(newId(), invite.org, invite.role, ago(invite.createdDaysAgo));

  const insertInstructions = db.prepare(
    'INSERT INTO agent_instructions (org_id, instructions, updated_at, updated_by) VALUES (?, ?, ?, ?)',
  );
  for (const item of data.agentInstructions) {
    insertInstructions.run(item.org, JSON.stringify(item.document), ago(item.updatedDaysAgo), user(item.updatedBy));
  }

  // Each domain's ids come from a sequence of its own: adding to one leaves the others' as they were.
  const domain = (name: string, seed: () => void) => withStableIds(`demo-${name}`, seed);
  // Real documentation in three spaces, with three revisions each.
  domain('content', () => seedDemoContent(db, spaceIds, ago, loadDemoContent(data.content)));
  // Support conversations of Acme over the last thirteen weeks, split into issues and clustered
  // (before change requests: one of them addresses the installer-errors cluster).
  domain('conversations', () => seedDemoConversations(db, start));
  // Change requests in every state on top of it.
  domain('change-requests', () => seedDemoChangeRequests(db, spaceIds, userIds));
  // Comment threads on its pages, after the merges that wrote them.
  domain('comments', () => seedDemoComments(db, spaceIds, userIds, start));
  // Docs sites publishing some of them.
  domain('sites', () => seedDemoSites(db, spaceIds, ago));
  // Grants on Acme's docs site, to users and teams (see `DEMO_SITE_GRANTS`).
  domain('site-permissions', () => seedDemoSiteGrants(db, userIds, ago(30)));
  // SAML providers of Acme: one active, one pending.
  const saml = loadDemoSaml();
  domain('saml', () => seedDemoSaml(db, saml.org, saml.providers, ago(saml.createdDaysAgo)));
  const fonts = loadDemoFonts();
  domain('fonts', () => seedDemoFonts(db, fonts.org, fonts.families, ago(fonts.createdDaysAgo)));
  // The customization of Acme's docs site, which names those fonts.
  domain('site-customization', () => seedDemoCustomizations(db, spaceIds));
  // "Getting started" translated into French (pseudo-localized), one run completed: its result
  // is the space "Getting started (FR)".
  const translations = loadDemoTranslations();
  // Its glossary first (ids of their own, so the translation's stay as documented): the run keeps its terms.
  domain('glossary', () =>
    insertGlossaryEntries(db, translations.org, translations.glossary, ago(translations.createdDaysAgo)),
  );
  domain('translations', () => {
    for (const { space: title, ...translation } of translations.translations) {
      seedDemoTranslation(
        db,
        translations.org,
        { ...translation, sourceSpaceId: space(title) },
        ago(translations.createdDaysAgo),
      );
    }
  });
  // The OpenAPI specification of Acme (two versions) and the space computing its reference.
  domain('openapi', () => seedDemoOpenAPI(db, spaceIds, ago));
  // Two integrations of Acme, installed, with their events: "Video embeds" (public, enabled on
  // "Release notes") and "Acme analytics" (private, enabled on the Acme Docs site).
  const integrations = loadDemoIntegrations();
  checkIntegrationNames(integrations.integrations.map((item) => item.name));
  domain('integrations', () => seedDemoIntegrations(db, spaceIds, integrations));
  // Imports into "Tutorials": one that could not reach its website, one of two files, completed
  // as an open change request.
  const imports = loadDemoImports();
  domain('imports', () => {
    for (const run of imports.runs) {
      seedImportRun(db, {
        orgId: imports.org,
        spaceId: space(run.space),
        userId: user(run.by),
        at: ago(run.createdDaysAgo),
        source: 'files' in run ? { files: run.files } : { website: run.website, failed: run.failed },
      });
    }
  });

  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(
    SEEDED_KEY,
    JSON.stringify(Object.values(data.users).map((person) => person.email)),
  );
  return tokens;
}

/** The names `DEMO` gives must be those of the data, in the same order (tokens are returned in it). */
function checkNames(data: DemoData): void {
  const named = JSON.stringify(Object.entries(DEMO.users));
  const seeded = JSON.stringify(Object.entries(data.users).map(([key, person]) => [key, person.email]));
  if (named !== seeded) throw new Error(`DEMO.users (${named}) and the demo data's users (${seeded}) differ`);
  const titles = new Set(data.spaces.map((space) => space.title));
  for (const title of Object.values(DEMO.spaces)) {
    if (!titles.has(title)) throw new Error(`DEMO.spaces names "${title}", which is not in the demo data`);
  }
}

/** The integrations `DEMO` names must be in the data. */
function checkIntegrationNames(names: readonly string[]): void {
  for (const name of Object.values(DEMO.integrations)) {
    if (!names.includes(name)) throw new Error(`DEMO.integrations names "${name}", which is not in the demo data`);
  }
}
