import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type Access, atLeast, type Role, ROLES } from '../access.js';
import {
  forbidden,
  notFound,
  notFoundInBody,
  now,
  pageFromArray,
  pageParams,
  pageQuery,
  pageWindow,
  parseBody,
  parseQuery,
  sendDeleted,
} from '../http.js';
import type { OrganizationRow, TeamRow, UserRow } from '../rows.js';
import { declareTables, type Db } from '../store/db.js';
import { teamJson } from '../teams/json.js';
import { userJson } from '../users/json.js';
import { DEMO_SITES } from './demo.js';
import { checkInvitees, parseInvite } from '../permissions/invite.js';
import { type AccessSource, strongestFirst } from '../permissions/sources.js';
import { requireSite, touchSite, type SiteRow } from './store.js';

/**
 * Who may do what with one docs site: grants of a role on the site to members of its organization
 * and to its teams, above what their organization role gives (a grant never lowers it). Every site
 * route decides through `requireSiteRole`, so a grant or its removal applies to the next request.
 */

// A grant names a user or a team, each with its own foreign key: removing the team, or the user,
// removes their grants, and so does removing the member from the organization (`removeMember`), so
// that a grant does not come back to life if they rejoin.
declareTables('site-permissions', [
  `
  CREATE TABLE IF NOT EXISTS site_permissions (
    site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
    team_id TEXT REFERENCES teams(id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('read', 'comment', 'edit', 'review', 'create', 'admin')),
    created_at TEXT NOT NULL,
    CHECK ((user_id IS NULL) <> (team_id IS NULL))
  );
  CREATE UNIQUE INDEX IF NOT EXISTS site_permissions_user ON site_permissions(site_id, user_id) WHERE user_id IS NOT NULL;
  CREATE UNIQUE INDEX IF NOT EXISTS site_permissions_team ON site_permissions(site_id, team_id) WHERE team_id IS NOT NULL;
  CREATE INDEX IF NOT EXISTS site_permissions_by_user ON site_permissions(user_id);
  CREATE INDEX IF NOT EXISTS site_permissions_by_team ON site_permissions(team_id);
  `,
]);

// ---------------------------------------------------------------------------------------------
// Effective access
// ---------------------------------------------------------------------------------------------

/** Where a user's role on a site comes from, as the description's `UserSitePermissionOrigin` says it. */
export type SiteOrigin =
  | { type: 'organization'; organization: string }
  | { type: 'site'; site: string; reason: 'member' | 'team'; team?: string };

interface GrantRow {
  role: Role;
  team_id: string | null;
}

/** The grants on a site that reach a user: their own and their teams'. */
function grantsReaching(db: Db, siteId: string, userId: string): GrantRow[] {
  return db
    .prepare(
      `SELECT role, team_id FROM site_permissions WHERE site_id = ?
         AND (user_id = ? OR team_id IN (SELECT team_id FROM team_members WHERE user_id = ?))`,
    )
    .all(siteId, userId, userId) as GrantRow[];
}

/**
 * The sources of a user's role on a site, strongest first (the shared order of `strongestFirst`):
 * organization admins administrate every site (their organization role alone); otherwise their
 * organization role (none for a guest) and every grant that reaches them, their own (`direct`) or a
 * team's. `orgRole` is the organization role as `Access.orgRole` reads it (undefined: no member, or
 * a disabled one, who has none).
 */
function siteSources(orgRole: Role | null | undefined, grants: readonly GrantRow[]): AccessSource[] {
  if (orgRole === undefined) return [];
  if (orgRole === 'admin') return [{ type: 'organization', role: 'admin' }];
  const sources: AccessSource[] = orgRole === null ? [] : [{ type: 'organization', role: orgRole }];
  for (const grant of grants) {
    sources.push(
      grant.team_id ? { type: 'team', role: grant.role, team: grant.team_id } : { type: 'direct', role: grant.role },
    );
  }
  return strongestFirst(sources);
}

/**
 * The role a user holds on a site and where it comes from: the first of their sources (the best of
 * the organization role and the grants; at the same rank the organization, then a direct grant, then
 * a team's), as the description's `origin` says it.
 */
function decide(
  site: Pick<SiteRow, 'id' | 'org_id'>,
  orgRole: Role | null | undefined,
  grants: readonly GrantRow[],
): { role: Role | null; origin: SiteOrigin; sources: AccessSource[] } {
  const sources = siteSources(orgRole, grants);
  const first = sources[0];
  const origin: SiteOrigin =
    first?.type === 'direct'
      ? { type: 'site', site: site.id, reason: 'member' }
      : first?.type === 'team'
        ? { type: 'site', site: site.id, reason: 'team', team: first.team! }
        : { type: 'organization', organization: site.org_id };
  return { role: first?.role ?? null, origin, sources };
}

/** The role a user holds on a site and where it comes from (see `decide`). */
export function siteAccessOf(
  db: Db,
  site: Pick<SiteRow, 'id' | 'org_id'>,
  userId: string,
  orgRole: Role | null | undefined,
): { role: Role | null; origin: SiteOrigin } {
  const { role, origin } = decide(site, orgRole, orgRole === undefined ? [] : grantsReaching(db, site.id, userId));
  return { role, origin };
}

/** The caller's role on a site: a Role, `null` when they may not read it, `undefined` when not a member. */
export function siteRole(access: Access, site: Pick<SiteRow, 'id' | 'org_id'>): Role | null | undefined {
  const orgRole = access.orgRole(site.org_id);
  if (orgRole === undefined) return undefined;
  return siteAccessOf(access.db, site, access.user.id, orgRole).role;
}

/**
 * Loads a site of an organization the caller belongs to and requires `min` on it (the
 * organization role or a grant on the site): a 404 for a non-member or a missing site, a 403
 * below `min`. A guest with no grant on any site is refused before the site is looked up, so
 * that a refusal does not tell which sites exist.
 */
export function requireSiteRole(
  access: Access,
  orgId: string,
  siteId: string,
  min: Role = 'read',
): { org: OrganizationRow; site: SiteRow; role: Role | null } {
  const org = access.requireOrg(orgId);
  const refusal = () => forbidden(`This needs the ${min} role on the site`);
  if (access.orgRole(org.id) === null) {
    const granted = access.db.prepare('SELECT 1 FROM site_permissions WHERE site_id = ?').get(siteId);
    if (!granted) throw refusal();
  }
  const site = requireSite(access.db, org.id, siteId);
  const role = siteRole(access, site) ?? null;
  if (!atLeast(role, min)) throw refusal();
  return { org, site, role };
}

// ---------------------------------------------------------------------------------------------
// Store
// ---------------------------------------------------------------------------------------------

type Principal = { kind: 'user' | 'team'; id: string };
const column = (kind: Principal['kind']) => (kind === 'user' ? 'user_id' : 'team_id');

/** Sets the grant of a user or team on a site; a null role removes it. True when something changed. */
export function setSiteGrant(db: Db, siteId: string, who: Principal, role: Role | null): boolean {
  const col = column(who.kind);
  if (role === null) return removeSiteGrant(db, siteId, who);
  const existing = db
    .prepare(`SELECT role FROM site_permissions WHERE site_id = ? AND ${col} = ?`)
    .pluck(true)
    .get(siteId, who.id) as Role | undefined;
  if (existing === role) return false;
  if (existing) {
    db.prepare(`UPDATE site_permissions SET role = ? WHERE site_id = ? AND ${col} = ?`).run(role, siteId, who.id);
  } else {
    db.prepare(`INSERT INTO site_permissions (site_id, ${col}, role, created_at) VALUES (?, ?, ?, ?)`).run(
      siteId,
      who.id,
      role,
      now(),
    );
  }
  return true;
}

/** Removes the grant of a user or team on a site; false when there was none. */
export function removeSiteGrant(db: Db, siteId: string, who: Principal): boolean {
  return (
    db.prepare(`DELETE FROM site_permissions WHERE site_id = ? AND ${column(who.kind)} = ?`).run(siteId, who.id)
      .changes > 0
  );
}

/** The users granted a role on a site who are members of its organization, by name. */
function userGrants(db: Db, site: SiteRow): Array<{ user: UserRow; role: Role }> {
  const rows = db
    .prepare(
      `SELECT u.*, p.role AS granted FROM site_permissions p JOIN users u ON u.id = p.user_id
       JOIN members m ON m.org_id = ? AND m.user_id = u.id
       WHERE p.site_id = ? ORDER BY u.display_name COLLATE NOCASE, u.id`,
    )
    .all(site.org_id, site.id) as Array<UserRow & { granted: Role }>;
  return rows.map(({ granted, ...user }) => ({ user, role: granted }));
}

/** The teams granted a role on a site, by title. */
function teamGrants(db: Db, site: SiteRow): Array<{ team: TeamRow; role: Role }> {
  const rows = db
    .prepare(
      `SELECT t.*, p.role AS granted FROM site_permissions p JOIN teams t ON t.id = p.team_id
       WHERE p.site_id = ? ORDER BY t.title COLLATE NOCASE, t.id`,
    )
    .all(site.id) as Array<TeamRow & { granted: Role }>;
  return rows.map(({ granted, ...team }) => ({ team, role: granted }));
}

/** Every member of the organization who may read the site, with the role and its origin. */
function siteAudience(db: Db, site: SiteRow) {
  // The site's grants, and who holds them, read once for the whole organization.
  const grants = db
    .prepare('SELECT role, user_id, team_id FROM site_permissions WHERE site_id = ?')
    .all(site.id) as Array<GrantRow & { user_id: string | null }>;
  const reaching = new Map<string, GrantRow[]>();
  const reach = (userId: string, grant: GrantRow) => reaching.set(userId, [...(reaching.get(userId) ?? []), grant]);
  const teamMembers = db.prepare('SELECT user_id FROM team_members WHERE team_id = ?').pluck(true);
  for (const grant of grants) {
    if (grant.user_id) reach(grant.user_id, grant);
    else for (const userId of teamMembers.all(grant.team_id) as string[]) reach(userId, grant);
  }
  const rows = db
    .prepare(
      `SELECT u.*, m.role AS org_role, m.joined_at, m.last_seen_at FROM members m JOIN users u ON u.id = m.user_id
       WHERE m.org_id = ? AND m.disabled = 0`,
    )
    .all(site.org_id) as Array<UserRow & { org_role: Role | null; joined_at: string; last_seen_at: string | null }>;
  return rows.flatMap(({ org_role, joined_at, last_seen_at, ...user }) => {
    const { role, origin, sources } = decide(site, org_role, reaching.get(user.id) ?? []);
    return role === null ? [] : [{ user, role, origin, sources, joinedAt: joined_at, lastSeenAt: last_seen_at }];
  });
}

// ---------------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------------

type SiteParams = { organizationId: string; siteId: string };

const role = z.enum(ROLES, { message: `must be one of ${ROLES.join(', ')}, or null` }).nullable();
const updateBody = z.strictObject({ role: role.optional() });
const aggregateQuery = z.object({
  ...pageParams,
  order: z.enum(['asc', 'desc'], { message: 'must be asc or desc' }).optional(),
  role: z.enum([...ROLES, 'guest'], { message: `must be one of ${ROLES.join(', ')} or guest` }).optional(),
  search: z.string().max(256, 'must be at most 256 characters').optional(),
  sort: z.enum(['joinedAt', 'lastSeenAt', 'name'], { message: 'must be joinedAt, lastSeenAt or name' }).optional(),
  team: z.string().min(1).max(100).optional(),
});

function requireTeam(db: Db, orgId: string, teamId: string, field?: string): void {
  const team = db.prepare('SELECT 1 FROM teams WHERE org_id = ? AND id = ?').get(orgId, teamId);
  if (!team) throw field ? notFoundInBody('Team', field, teamId) : notFound('Team');
}

/**
 * Grants on a docs site (`/orgs/{organizationId}/sites/{siteId}/permissions`): site admins
 * (organization admins, and those granted admin on the site) invite users and teams, change and
 * remove their grants; members who may read the site, guests excepted, list the grants and who
 * has access through what. A grant to a user needs a member of the organization (a guest
 * included): sharing a site does not bring anyone into it.
 */
export function sitePermissionRoutes(app: FastifyInstance): void {
  const siteOf = (request: FastifyRequest<{ Params: SiteParams }>, min: Role) =>
    requireSiteRole(request.ctx.access, request.params.organizationId, request.params.siteId, min);
  const readerOf = (request: FastifyRequest<{ Params: SiteParams }>) => {
    const found = siteOf(request, 'read');
    request.ctx.access.requireNotGuest(found.org.id, 'Guests cannot list who has access to a site');
    return found;
  };

  app.post<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/permissions', async (request, reply) => {
    const body = parseInvite(request.body);
    const { site } = siteOf(request, 'admin');
    const { db } = request.ctx;
    checkInvitees(db, site.org_id, body, 'members');
    db.transaction(() => {
      for (const id of new Set(body.users)) setSiteGrant(db, site.id, { kind: 'user', id }, body.role);
      for (const id of new Set(body.teams)) setSiteGrant(db, site.id, { kind: 'team', id }, body.role);
      touchSite(db, site.id);
    })();
    return reply.code(204).send();
  });

  app.get<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/permissions/users', async (request) => {
    const window = pageWindow(parseQuery(pageQuery, request.query));
    const { site } = readerOf(request);
    return pageFromArray(userGrants(request.ctx.db, site), window, (grant) => ({
      permission: grant.role,
      user: userJson(grant.user, request.ctx.links),
    }));
  });

  app.get<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/permissions/teams', async (request) => {
    const window = pageWindow(parseQuery(pageQuery, request.query));
    const { site } = readerOf(request);
    const { db, access } = request.ctx;
    return pageFromArray(teamGrants(db, site), window, (grant) => ({
      permission: grant.role,
      team: teamJson(db, grant.team, access.canManageTeam(grant.team)),
    }));
  });

  type UserParams = SiteParams & { userId: string };
  type TeamParams = SiteParams & { teamId: string };

  /** Sets a user's grant on the site; a null (or absent) role removes it. */
  app.patch<{ Params: UserParams }>(
    '/orgs/:organizationId/sites/:siteId/permissions/users/:userId',
    async (request, reply) => {
      const body = parseBody(updateBody, request.body ?? {});
      const { site } = siteOf(request, 'admin');
      const { db } = request.ctx;
      const { userId } = request.params;
      if (!db.prepare('SELECT 1 FROM members WHERE org_id = ? AND user_id = ?').get(site.org_id, userId)) {
        throw notFound('Member');
      }
      db.transaction(() => {
        if (setSiteGrant(db, site.id, { kind: 'user', id: userId }, body.role ?? null)) touchSite(db, site.id);
      })();
      return reply.code(204).send();
    },
  );

  app.delete<{ Params: UserParams }>(
    '/orgs/:organizationId/sites/:siteId/permissions/users/:userId',
    async (request, reply) => {
      const { site } = siteOf(request, 'admin');
      const { db } = request.ctx;
      const removed = db.transaction(() => {
        const done = removeSiteGrant(db, site.id, { kind: 'user', id: request.params.userId });
        if (done) touchSite(db, site.id);
        return done;
      })();
      return sendDeleted(reply, removed);
    },
  );

  /** Sets a team's grant on the site; a null (or absent) role removes it. */
  app.patch<{ Params: TeamParams }>(
    '/orgs/:organizationId/sites/:siteId/permissions/teams/:teamId',
    async (request, reply) => {
      const body = parseBody(updateBody, request.body ?? {});
      const { site } = siteOf(request, 'admin');
      const { db } = request.ctx;
      requireTeam(db, site.org_id, request.params.teamId);
      db.transaction(() => {
        if (setSiteGrant(db, site.id, { kind: 'team', id: request.params.teamId }, body.role ?? null)) {
          touchSite(db, site.id);
        }
      })();
      return reply.code(204).send();
    },
  );

  app.delete<{ Params: TeamParams }>(
    '/orgs/:organizationId/sites/:siteId/permissions/teams/:teamId',
    async (request, reply) => {
      const { site } = siteOf(request, 'admin');
      const { db } = request.ctx;
      const removed = db.transaction(() => {
        const done = removeSiteGrant(db, site.id, { kind: 'team', id: request.params.teamId });
        if (done) touchSite(db, site.id);
        return done;
      })();
      return sendDeleted(reply, removed);
    },
  );

  app.get<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/permissions/aggregate', async (request) => {
    const query = parseQuery(aggregateQuery, request.query);
    const { site } = readerOf(request);
    const { db, links } = request.ctx;
    if (query.team) requireTeam(db, site.org_id, query.team);
    const inTeam = query.team
      ? new Set(
          db.prepare('SELECT user_id FROM team_members WHERE team_id = ?').pluck(true).all(query.team) as string[],
        )
      : undefined;
    const needle = query.search?.trim().toLowerCase();
    const entries = siteAudience(db, site)
      .filter((entry) => query.role === undefined || entry.role === (query.role === 'guest' ? null : query.role))
      .filter((entry) => !inTeam || inTeam.has(entry.user.id))
      .filter(
        (entry) =>
          !needle ||
          entry.user.display_name.toLowerCase().includes(needle) ||
          entry.user.email.toLowerCase().includes(needle),
      );
    const sort = query.sort ?? 'joinedAt';
    if (sort === 'lastSeenAt') {
      // Members never seen are left out, as the member list does.
      entries.splice(0, entries.length, ...entries.filter((entry) => entry.lastSeenAt !== null));
    }
    const key = (entry: (typeof entries)[number]) =>
      sort === 'name'
        ? entry.user.display_name.toLowerCase()
        : sort === 'joinedAt'
          ? entry.joinedAt
          : entry.lastSeenAt!;
    const sign = (query.order ?? 'desc') === 'asc' ? 1 : -1;
    entries.sort((a, b) => sign * (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.user.id < b.user.id ? -1 : 1));
    return pageFromArray(entries, pageWindow(query), (entry) => ({
      permission: entry.role,
      user: userJson(entry.user, links),
      origin: entry.origin,
      sources: entry.sources,
      // Disabled members have no access: the aggregate leaves them out.
      disabled: false,
      ...(entry.lastSeenAt ? { lastSeenAt: entry.lastSeenAt } : {}),
    }));
  });
}

// ---------------------------------------------------------------------------------------------
// Demo data
// ---------------------------------------------------------------------------------------------

/**
 * The demo's grants on Acme's docs site (`DEMO_SITES.docs`): finn (`read` in Acme) administrates
 * it, the guest gus reads it, the team Writers may change its structure and Reviewers has `review`.
 */
export const DEMO_SITE_GRANTS = {
  site: DEMO_SITES.docs,
  users: { finn: 'admin', gus: 'read' },
  teams: { 'team-writers': 'create', 'team-reviewers': 'review' },
} as const satisfies { site: string; users: Record<string, Role>; teams: Record<string, Role> };

/** Seeds `DEMO_SITE_GRANTS`, the users by their demo keys (`userIds`). */
export function seedDemoSiteGrants(db: Db, userIds: Record<string, string>, at: string): void {
  const site = db.prepare('SELECT id FROM sites WHERE title = ?').pluck(true).get(DEMO_SITE_GRANTS.site) as
    | string
    | undefined;
  if (!site) throw new Error(`The demo data has no site "${DEMO_SITE_GRANTS.site}"`);
  const insert = db.prepare(
    'INSERT INTO site_permissions (site_id, user_id, team_id, role, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  for (const [key, role] of Object.entries(DEMO_SITE_GRANTS.users)) {
    const userId = userIds[key];
    if (!userId) throw new Error(`The demo site grants name the user "${key}", who is not in the demo data`);
    insert.run(site, userId, null, role, at);
  }
  for (const [teamId, role] of Object.entries(DEMO_SITE_GRANTS.teams)) insert.run(site, null, teamId, role, at);
}
