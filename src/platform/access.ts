import type { Db } from './store/db.js';
import { treeOrder } from './tree/order.js';
import { forbidden, notFound } from './http.js';
import type { CollectionRow, MemberRow, OrganizationRow, SpaceRow, TeamRow, UserRow } from './rows.js';
import { MEMBER_ROLES } from './contract/enums.js';

/** The roles of a member, as the API description lists them (`MemberRole`). */
export const ROLES = MEMBER_ROLES;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { read: 1, comment: 2, edit: 3, review: 4, create: 5, admin: 6 };

/** Does `role` grant at least `min`? A null role (guest, or no access) grants nothing. */
export function atLeast(role: Role | null | undefined, min: Role): boolean {
  return role != null && RANK[role] >= RANK[min];
}

export function higher(a: Role | null, b: Role | null): Role | null {
  if (a === null) return b;
  if (b === null) return a;
  return RANK[a] >= RANK[b] ? a : b;
}

/** A deleted space stays restorable, and visible to its admins, for this long. */
export const RESTORE_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

export function isExpired(space: Pick<SpaceRow, 'deleted_at'>, at = Date.now()): boolean {
  return space.deleted_at !== null && at - Date.parse(space.deleted_at) > RESTORE_WINDOW_MS;
}

/** The membership row of a user in an organization (disabled members included). */
export function findMember(db: Db, orgId: string, userId: string): MemberRow | undefined {
  return db.prepare('SELECT * FROM members WHERE org_id = ? AND user_id = ?').get(orgId, userId) as
    | MemberRow
    | undefined;
}

/** Does the user belong to the organization, in any role (guests and disabled members included)? */
export function isOrgMember(db: Db, orgId: string, userId: string): boolean {
  return findMember(db, orgId, userId) !== undefined;
}

/** What the access rules read of a collection or a space. */
export type AccessFields = Pick<CollectionRow & SpaceRow, 'id' | 'org_id' | 'parent_id' | 'default_level'>;

/**
 * Decides what one user may see and do. One instance per request: the answers are memoized,
 * since a listing asks the same questions for many items.
 */
export class Access {
  private readonly memberships = new Map<string, MemberRow | null>();
  private readonly teamIds = new Map<string, string[]>();
  private readonly collectionRoles = new Map<string, Role | null>();
  /** Best role granted directly to the user or their teams, by `kind:id`, per organization. */
  private readonly grants = new Map<string, Map<string, Role>>();
  /** What a collection passes down to its content, by collection id. */
  private readonly inherited = new Map<string, { granted: Role | null; level: string | null }>();
  /** Collections by id, per organization. */
  private readonly collections = new Map<string, Map<string, AccessFields>>();

  constructor(
    readonly db: Db,
    readonly user: UserRow,
  ) {}

  membership(orgId: string): MemberRow | null {
    let member = this.memberships.get(orgId);
    if (member === undefined) {
      member = findMember(this.db, orgId, this.user.id) ?? null;
      this.memberships.set(orgId, member);
    }
    return member;
  }

  /** Organization role of the user: a Role, `null` for a guest, `undefined` for a non-member. */
  orgRole(orgId: string): Role | null | undefined {
    const member = this.membership(orgId);
    if (!member || member.disabled) return undefined;
    return member.role as Role | null;
  }

  /**
   * Loads an organization the user belongs to. A missing organization, or one the user is not
   * a member of, is a 404; `min` demands an organization role (guests have none): 403.
   */
  requireOrg(orgId: string, min?: Role): OrganizationRow {
    const org = this.db.prepare('SELECT * FROM organizations WHERE id = ?').get(orgId) as OrganizationRow | undefined;
    const role = org ? this.orgRole(orgId) : undefined;
    if (!org || role === undefined) throw notFound('Organization');
    if (min && !atLeast(role, min)) throw forbidden(`This needs the ${min} role in the organization`);
    return org;
  }

  /** Requires a non-guest member: guests cannot list members or teams. */
  requireOrgMember(orgId: string): OrganizationRow {
    return this.requireOrg(orgId, 'read');
  }

  private userTeams(orgId: string): string[] {
    let ids = this.teamIds.get(orgId);
    if (!ids) {
      ids = (
        this.db
          .prepare(
            'SELECT tm.team_id AS id FROM team_members tm JOIN teams t ON t.id = tm.team_id WHERE t.org_id = ? AND tm.user_id = ?',
          )
          .all(orgId, this.user.id) as Array<{ id: string }>
      ).map((row) => row.id);
      this.teamIds.set(orgId, ids);
    }
    return ids;
  }

  /**
   * The best role granted directly on one item, to the user or to one of their teams. Every
   * grant of the user in the organization is read at once, since a listing asks for each item.
   */
  private directGrant(kind: 'collection' | 'space', id: string, orgId: string): Role | null {
    let grants = this.grants.get(orgId);
    if (!grants) {
      const teams = this.userTeams(orgId);
      const rows = this.db
        .prepare(
          `SELECT content_type AS kind, content_id AS id, role FROM content_permissions
           WHERE (principal_type = 'user' AND principal_id = ?)
              OR (principal_type = 'team' AND principal_id IN (SELECT value FROM json_each(?)))`,
        )
        .all(this.user.id, JSON.stringify(teams)) as Array<{ kind: string; id: string; role: Role }>;
      grants = new Map();
      for (const row of rows) {
        const key = `${row.kind}:${row.id}`;
        grants.set(key, higher(grants.get(key) ?? null, row.role)!);
      }
      this.grants.set(orgId, grants);
    }
    return grants.get(`${kind}:${id}`) ?? null;
  }

  /** The collections of an organization by id, from its tree (kept across requests until a write). */
  private collectionsOf(orgId: string): Map<string, AccessFields> {
    let byId = this.collections.get(orgId);
    if (!byId) {
      byId = new Map(treeOrder(this.db, orgId).collections.map((collection) => [collection.id, collection]));
      this.collections.set(orgId, byId);
    }
    return byId;
  }

  /**
   * What a collection passes down to what it contains: the best grant on it and its ancestors,
   * and the nearest explicit `defaultLevel` up the chain (null when every level inherits).
   */
  private inheritedFrom(
    orgId: string,
    collectionId: string,
    seen: Set<string> = new Set(),
  ): { granted: Role | null; level: string | null } {
    const known = this.inherited.get(collectionId);
    if (known) return known;
    const collection = this.collectionsOf(orgId).get(collectionId);
    let result: { granted: Role | null; level: string | null } = { granted: null, level: null };
    if (collection && !seen.has(collectionId)) {
      seen.add(collectionId);
      const above = collection.parent_id
        ? this.inheritedFrom(orgId, collection.parent_id, seen)
        : { granted: null, level: null };
      result = {
        granted: higher(this.directGrant('collection', collection.id, collection.org_id), above.granted),
        level: collection.default_level !== 'inherit' ? collection.default_level : above.level,
      };
    }
    this.inherited.set(collectionId, result);
    return result;
  }

  /**
   * Effective role on a collection: organization admins administrate everything; otherwise the
   * best of the grants on the collection and its ancestors, and of the nearest explicit
   * `defaultLevel` (or the organization role when all levels inherit), which applies to
   * members but not to guests.
   */
  collectionRole(collection: AccessFields): Role | null {
    const cached = this.collectionRoles.get(collection.id);
    if (cached !== undefined) return cached;
    const role = this.contentRole('collection', collection);
    this.collectionRoles.set(collection.id, role);
    return role;
  }

  /** Effective role on a space; same rules as collections, through the parent chain. */
  spaceRole(space: AccessFields): Role | null {
    return this.contentRole('space', space);
  }

  private contentRole(kind: 'collection' | 'space', item: AccessFields): Role | null {
    const orgRole = this.orgRole(item.org_id);
    if (orgRole === undefined) return null;
    if (orgRole === 'admin') return 'admin';
    const above = item.parent_id ? this.inheritedFrom(item.org_id, item.parent_id) : { granted: null, level: null };
    const granted = higher(this.directGrant(kind, item.id, item.org_id), above.granted);
    const level = item.default_level === 'inherit' ? above.level : item.default_level;
    const base: Role | null = orgRole === null ? null : ((level ?? orgRole) as Role | null);
    return higher(base, granted);
  }

  /**
   * Can the user read the space? Members with a role can; anyone authenticated can read a
   * `public` or `unlisted` space, and a `share-link` space with its share key.
   */
  canViewSpace(space: SpaceRow, role: Role | null, shareKey?: string): boolean {
    if (role !== null) return true;
    if (space.visibility === 'public' || space.visibility === 'unlisted') return true;
    return space.visibility === 'share-link' && shareKey !== undefined && shareKey === space.share_key;
  }

  /** Can the user rename, delete and manage members of the team: organization admin or team owner. */
  canManageTeam(team: Pick<TeamRow, 'id' | 'org_id'>): boolean {
    if (this.orgRole(team.org_id) === 'admin') return true;
    const row = this.db
      .prepare("SELECT 1 FROM team_members WHERE team_id = ? AND user_id = ? AND role = 'owner'")
      .get(team.id, this.user.id);
    return row !== undefined;
  }

  /**
   * The copy of a duplicated space lands next to it: whoever can read the space (public readers
   * included) also needs the create role in its organization and, for a space in a collection,
   * on that collection. Both refusals are 403s, since the space itself is visible.
   */
  requireDuplicateTarget(space: SpaceRow): void {
    if (!atLeast(this.orgRole(space.org_id), 'create')) {
      throw forbidden("Duplicating a space needs the create role in the space's organization");
    }
    if (!space.parent_id) return;
    const parent = this.db.prepare('SELECT * FROM collections WHERE id = ?').get(space.parent_id) as
      | CollectionRow
      | undefined;
    if (!parent || !atLeast(this.collectionRole(parent), 'create')) {
      throw forbidden("Duplicating a space needs the create role in the space's collection");
    }
  }

  /** Guests see what is shared with them, not who else the organization's content is shared with. */
  requireNotGuest(orgId: string, refusal: string): void {
    if (this.orgRole(orgId) === null) throw forbidden(refusal);
  }

  /** Loads a collection the user can see, else 404. */
  requireCollection(id: string): { collection: CollectionRow; role: Role } {
    const collection = this.db.prepare('SELECT * FROM collections WHERE id = ?').get(id) as CollectionRow | undefined;
    const role = collection ? this.collectionRole(collection) : null;
    if (!collection || role === null) throw notFound('Collection');
    return { collection, role };
  }

  /**
   * Loads a space the user can see, else 404. Deleted spaces are found only with
   * `includeDeleted`, and never once the restore window has passed.
   */
  requireSpace(
    id: string,
    options: { shareKey?: string; includeDeleted?: boolean } = {},
  ): { space: SpaceRow; role: Role | null } {
    const space = this.db.prepare('SELECT * FROM spaces WHERE id = ?').get(id) as SpaceRow | undefined;
    if (!space || isExpired(space) || (space.deleted_at && !options.includeDeleted)) throw notFound('Space');
    const role = this.spaceRole(space);
    if (!this.canViewSpace(space, role, options.shareKey)) throw notFound('Space');
    return { space, role };
  }
}

/** Throws 403 unless the role is at least `min`. */
export function demand(role: Role | null | undefined, min: Role, what: string): void {
  if (!atLeast(role, min)) throw forbidden(`${what} needs the ${min} role`);
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route serves site visitors (the bearers of a resolved URL's API token): it reads
     * content through `request.ctx.content`, which gives them their view. Every route without
     * it refuses them, so a new route is closed to visitors until it says otherwise.
     */
    visitors?: boolean;
    /** A POST that only reads (a search): with `visitors`, site visitors may call it too. */
    readsOnly?: boolean;
  }
}

/** The options of a GET route site visitors may call (`app.get(path, OPEN_TO_VISITORS, handler)`). */
export const OPEN_TO_VISITORS = { config: { visitors: true } } as const;

/** The options of a POST route that only reads (a search), which site visitors may call too. */
export const READS_OPEN_TO_VISITORS = { config: { visitors: true, readsOnly: true } } as const;
