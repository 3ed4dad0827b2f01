import { atLeast, type Role } from '../access.js';
import type { Links } from '../links.js';
import type { CollectionRow } from '../rows.js';

/** A collection as seen by a user whose effective role on it is `role`. */
export function collectionJson(collection: CollectionRow, role: Role | null, links: Links) {
  return {
    object: 'collection' as const,
    id: collection.id,
    title: collection.title,
    ...(collection.description !== null ? { description: collection.description } : {}),
    organization: collection.org_id,
    ...(collection.parent_id ? { parent: collection.parent_id } : {}),
    defaultLevel: collection.default_level,
    urls: {
      location: `${links.api}/collections/${collection.id}`,
      app: `${links.app}/o/${collection.org_id}/c/${collection.id}`,
    },
    permissions: {
      view: role !== null,
      admin: atLeast(role, 'admin'),
      viewInviteLinks: atLeast(role, 'admin'),
      create: atLeast(role, 'create'),
    },
  };
}
