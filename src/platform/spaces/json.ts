import { atLeast, type Role } from '../access.js';
import type { Links } from '../links.js';
import type { SpaceRow } from '../rows.js';
import { gitSyncState } from './git-sync.js';

/**
 * A space as seen by a user whose effective role on it is `role` (`null`: public reader). For
 * its admins, the published URL of a `share-link` space carries the `shareKey` that opens it.
 */
export function spaceJson(space: SpaceRow, role: Role | null, links: Links) {
  const published = `${links.published}/${space.id}`;
  // The share key is the secret of a share-link space: only its admins are given it.
  const sharedLink =
    space.visibility === 'share-link' && atLeast(role, 'admin')
      ? `${published}?shareKey=${encodeURIComponent(space.share_key)}`
      : published;
  return {
    object: 'space' as const,
    id: space.id,
    title: space.title,
    // The description's value for "no emoji" is "".
    emoji: space.emoji ?? '',
    visibility: space.visibility,
    createdAt: space.created_at,
    updatedAt: space.updated_at,
    ...(space.deleted_at ? { deletedAt: space.deleted_at } : {}),
    editMode: space.edit_mode,
    mergeRules: JSON.parse(space.merge_rules),
    urls: {
      location: `${links.api}/spaces/${space.id}`,
      app: `${links.app}/s/${space.id}`,
      published: sharedLink,
      ...(space.visibility === 'public' || space.visibility === 'unlisted' ? { public: published } : {}),
    },
    organization: space.org_id,
    ...(space.parent_id ? { parent: space.parent_id } : {}),
    ...(space.language ? { language: space.language } : {}),
    ...(space.git_sync ? { gitSync: gitSyncState(space) } : {}),
    ...(space.visitor_auth ? { visitorAuth: JSON.parse(space.visitor_auth) } : {}),
    revision: space.revision,
    defaultLevel: space.default_level,
    comments: space.comments_open ?? 0,
    changeRequests: space.change_requests,
    changeRequestsOpen: space.change_requests_open,
    changeRequestsDraft: space.change_requests_draft,
    permissions: {
      view: true,
      access: role !== null,
      admin: atLeast(role, 'admin'),
      viewInviteLinks: atLeast(role, 'admin'),
      edit: atLeast(role, 'edit') && space.edit_mode === 'live',
      triggerGitSync: atLeast(role, 'edit'),
      comment: atLeast(role, 'comment'),
      merge: atLeast(role, 'review'),
      review: atLeast(role, 'review'),
      installIntegration: atLeast(role, 'admin'),
    },
  };
}
