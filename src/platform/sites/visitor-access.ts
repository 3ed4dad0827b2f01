import { Access } from '../access.js';
import type { Role } from '../access.js';
import type { SpaceRow, UserRow } from '../rows.js';
import type { Db } from '../store/db.js';
import type { SiteTokenClaims } from './visitors.js';

/**
 * What the bearer of an API token from a resolved published URL may read: the spaces the token
 * names (their content, as any reader would), and the published profile of its site. They are
 * no member of anything, so every other read is a 404; the platform refuses their writes.
 */
export class SiteVisitorAccess extends Access {
  private readonly spaces: ReadonlySet<string>;

  constructor(
    db: Db,
    user: UserRow,
    readonly token: SiteTokenClaims,
  ) {
    super(db, user);
    this.spaces = new Set(token.spaces);
  }

  override orgRole(): Role | null | undefined {
    return undefined;
  }

  override canViewSpace(space: SpaceRow, role: Role | null, shareKey?: string): boolean {
    return this.spaces.has(space.id) || super.canViewSpace(space, role, shareKey);
  }
}

/** The user a site visitor is, in answers that name the reader. */
export function visitorUser(token: SiteTokenClaims, at: string): UserRow {
  return { id: `visitor-${token.site}`, display_name: 'Site visitor', email: '', photo_url: null, created_at: at };
}
