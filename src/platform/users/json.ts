import type { Links } from '../links.js';
import type { UserRow } from '../rows.js';

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
