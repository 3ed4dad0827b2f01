import type { Links } from '../links.js';
import type { UserRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { findUserById } from './store.js';

/** A user, as every route shows one. */
export function userJson(user: UserRow, links: Links) {
  return {
    object: 'user' as const,
    id: user.id,
    displayName: user.display_name,
    email: user.email,
    ...(user.photo_url ? { photoURL: user.photo_url } : {}),
    urls: { location: `${links.api}/users/${user.id}` },
  };
}

/** A user's JSON by id, or undefined for a user that no longer exists. */
export function userById(db: Db, links: Links, userId: string | null): ReturnType<typeof userJson> | undefined {
  if (!userId) return undefined;
  const user = findUserById(db, userId);
  return user ? userJson(user, links) : undefined;
}

/** A deleted user, where the API needs a user. */
export const deletedUser = (links: Links) => ({
  object: 'user' as const,
  id: 'deleted-user',
  displayName: 'Deleted user',
  urls: { location: `${links.api}/users/deleted-user` },
});

/** A user's JSON by id; the deleted user for one that no longer exists (or none). */
export const userOrDeleted = (db: Db, links: Links, userId: string | null) =>
  userById(db, links, userId) ?? deletedUser(links);
