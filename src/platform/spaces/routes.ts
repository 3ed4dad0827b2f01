import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Access, demand, OPEN_TO_VISITORS } from '../access.js';
import {
  badRequest,
  conflict,
  laterThan,
  notFound,
  notFoundInBody,
  pageFromArray,
  pageQuery,
  pageWindow,
  parseBody,
  parseQuery,
  preconditionFailed,
  sendDeleted,
  sendKeptPage,
} from '../http.js';
import type { SpaceRow, UserRow } from '../rows.js';
import { findOrganization } from '../organizations/store.js';
import { spaceJson } from './json.js';
import type { Links } from '../links.js';
import type { Db } from '../store/db.js';
import { updateRow } from '../store/update.js';
import { requireReviewersInOrg } from '../organizations/merge-rules.js';
import { moveItem, requireTargetCollection } from '../tree/positions.js';
import { rowsById, treeOrder } from '../tree/order.js';
import {
  copyTitle,
  duplicateSpace,
  insertSpace,
  loadSpace,
  restoreSpace,
  softDeleteSpace,
  transferSpace,
} from './store.js';
import {
  defaultLevelSchema,
  emojiSchema,
  languageSchema,
  movePositionSchema,
  spaceMergeRulesSchema,
} from '../schemas.js';
import { CONDITIONAL } from '../conditional.js';
import { CONTENT_VISIBILITIES } from '../contract/enums.js';

const SPACE_VISIBILITIES = CONTENT_VISIBILITIES;

const spaceTitle = z.string().trim().min(1, 'must be 1 to 50 characters').max(50, 'must be 1 to 50 characters');
const editMode = z.enum(['live', 'locked'], { message: 'must be live or locked' });
const parentId = z.string().min(1, 'must be a collection id');

const createSpaceBody = z.strictObject({
  title: spaceTitle.optional(),
  emoji: emojiSchema.optional(),
  parent: parentId.optional(),
  language: languageSchema.optional(),
  editMode: editMode.optional(),
  visibility: z.enum(SPACE_VISIBILITIES, { message: `must be one of ${SPACE_VISIBILITIES.join(', ')}` }).optional(),
});

const updateSpaceBody = z
  .strictObject({
    editMode,
    title: spaceTitle,
    defaultLevel: defaultLevelSchema,
    language: languageSchema,
    mergeRules: spaceMergeRulesSchema,
    emoji: emojiSchema.nullable(),
  })
  .partial()
  .refine((body) => Object.keys(body).length > 0, 'must set at least one field');

const moveSpaceBody = z
  .strictObject({ parent: parentId.nullable(), position: movePositionSchema })
  .partial()
  .refine((body) => Object.keys(body).length > 0, 'must set parent or position');

const transferSpaceBody = z
  .strictObject({ organization: z.string().min(1, 'must be an organization id'), parent: parentId.nullable() })
  .partial()
  .refine((body) => Object.keys(body).length > 0, 'must set organization or parent');

const getSpaceQuery = z.object({ shareKey: z.string().optional() });
const emptyBody = z.strictObject({});

type SpaceParams = { Params: { spaceId: string } };

/**
 * Spaces group: list/create in an organization, get, update, delete, duplicate, restore, move
 * and transfer.
 */
export function spaceRoutes(app: FastifyInstance): void {
  app.get<{ Params: { organizationId: string } }>('/orgs/:organizationId/spaces', async (request, reply) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId);
    const window = pageWindow(parseQuery(pageQuery, request.query));
    const visible = treeOrder(db, org.id)
      .spaces.map((space) => ({ space, role: access.spaceRole(space) }))
      .filter((entry) => entry.role !== null);
    const page = pageFromArray(visible, window);
    const rows = rowsById<SpaceRow>(
      db,
      'spaces',
      page.items.map((entry) => entry.space.id),
    );
    return sendKeptPage(reply, db, page, {
      kind: 'space',
      keyOf: ({ space, role }) => `${space.id} ${role} ${links.api}`,
      json: ({ space, role }) => spaceJson(rows.get(space.id)!, role, links),
    });
  });

  app.post<{ Params: { organizationId: string } }>('/orgs/:organizationId/spaces', async (request, reply) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'create');
    const body = parseBody(createSpaceBody, request.body);
    if (body.visibility === 'in-collection' && !body.parent) {
      throw badRequest(
        'Invalid body field "visibility": in-collection is only possible for a space with a parent collection',
      );
    }
    const parent = body.parent ? requireTargetCollection(access, org.id, body.parent) : null;
    const id = insertSpace(db, {
      orgId: org.id,
      parentId: parent?.id ?? null,
      title: body.title,
      emoji: body.emoji,
      visibility: body.visibility,
      editMode: body.editMode,
      language: body.language,
    });
    const created = loadSpace(db, id)!;
    reply.code(201).header('location', `${links.api}/spaces/${id}`);
    return spaceJson(created, access.spaceRole(created), links);
  });

  app.get<SpaceParams>(
    '/spaces/:spaceId',
    { config: { ...OPEN_TO_VISITORS.config, ...CONDITIONAL.config } },
    async (request) => {
      const { access, links } = request.ctx;
      const { shareKey } = parseQuery(getSpaceQuery, request.query);
      const { space, role } = findSpace(access, request.params.spaceId, { shareKey, includeDeleted: true });
      return spaceJson(space, role, links);
    },
  );

  app.delete<SpaceParams>('/spaces/:spaceId', async (request, reply) => {
    const { db, access } = request.ctx;
    const space = loadSpace(db, request.params.spaceId);
    if (!space || space.deleted_at) return sendDeleted(reply, false);
    const role = access.spaceRole(space);
    if (!access.canViewSpace(space, role)) return sendDeleted(reply, false);
    demand(role, 'admin', 'Deleting a space');
    softDeleteSpace(db, space.id);
    return sendDeleted(reply, true);
  });

  app.patch<SpaceParams>('/spaces/:spaceId', async (request) => {
    const { db, access, user, links } = request.ctx;
    const { space, role } = access.requireSpace(request.params.spaceId);
    const body = parseBody(updateSpaceBody, request.body);
    if (body.title !== undefined || body.emoji !== undefined || body.language !== undefined) {
      demand(role, 'edit', 'Changing the title, emoji or language of a space');
    }
    if (body.editMode !== undefined || body.defaultLevel !== undefined || body.mergeRules !== undefined) {
      demand(role, 'admin', 'Changing the edit mode, default level or merge rules of a space');
    }
    requireReviewersInOrg(db, space.org_id, body.mergeRules);
    updateRow(db, 'spaces', space.id, {
      edit_mode: body.editMode,
      title: body.title,
      default_level: body.defaultLevel,
      language: body.language,
      merge_rules: body.mergeRules && JSON.stringify(body.mergeRules),
      emoji: body.emoji,
      updated_at: laterThan(space.updated_at),
    });
    return spaceAnswer(db, user, space.id, links);
  });

  app.post<SpaceParams>('/spaces/:spaceId/duplicate', async (request, reply) => {
    const { db, access, links } = request.ctx;
    const { space } = access.requireSpace(request.params.spaceId);
    parseBody(emptyBody, request.body);
    access.requireDuplicateTarget(space);
    const id = duplicateSpace(db, space, copyTitle(space.title));
    const created = loadSpace(db, id)!;
    reply.code(201).header('location', `${links.api}/spaces/${id}`);
    return spaceJson(created, access.spaceRole(created), links);
  });

  app.post<SpaceParams>('/spaces/:spaceId/restore', async (request) => {
    const { db, access, links } = request.ctx;
    parseBody(emptyBody, request.body);
    const { space, role } = findSpace(access, request.params.spaceId, { includeDeleted: true });
    demand(role, 'admin', 'Restoring a space');
    if (!space.deleted_at) throw conflict('Space is not deleted');
    // The parent collection may have been deleted since; in-collection needs one.
    const visibility = space.parent_id === null && space.visibility === 'in-collection' ? 'private' : space.visibility;
    restoreSpace(db, space, visibility);
    const restored = loadSpace(db, space.id)!;
    return spaceJson(restored, access.spaceRole(restored), links);
  });

  app.post<SpaceParams>('/spaces/:spaceId/move', async (request) => {
    const { db, access, user, links } = request.ctx;
    const { space, role } = access.requireSpace(request.params.spaceId);
    demand(role, 'admin', 'Moving a space');
    const body = parseBody(moveSpaceBody, request.body);
    let parent = space.parent_id;
    if (body.parent === null) {
      access.requireOrg(space.org_id, 'create');
      parent = null;
    } else if (body.parent !== undefined) {
      parent = requireTargetCollection(access, space.org_id, body.parent).id;
    }
    if (parent === null && space.visibility === 'in-collection') {
      throw badRequest('Invalid body field "parent": a space with in-collection visibility must stay in a collection');
    }
    moveItem(db, 'space', space, parent, body.position);
    return spaceAnswer(db, user, space.id, links);
  });

  app.post<SpaceParams>('/spaces/:spaceId/transfer', async (request) => {
    const { db, access, user, links } = request.ctx;
    const { space, role } = findSpace(access, request.params.spaceId, { includeDeleted: true });
    demand(role, 'admin', 'Transferring a space');
    const body = parseBody(transferSpaceBody, request.body);
    const targetId = body.organization ?? space.org_id;
    const target = findOrganization(db, targetId);
    if (!target || access.orgRole(target.id) === undefined) {
      throw notFoundInBody('Target organization', 'organization', targetId);
    }
    if (space.deleted_at) throw preconditionFailed('The space cannot be moved: it is deleted');
    if (access.orgRole(target.id) !== 'admin') {
      throw preconditionFailed('The space cannot be moved: you must be an admin of the target organization');
    }
    const orgChanges = target.id !== space.org_id;
    let parent: string | null;
    if (body.parent === undefined) parent = orgChanges ? null : space.parent_id;
    else if (body.parent === null) parent = null;
    else parent = requireTargetCollection(access, target.id, body.parent).id;
    if (!orgChanges && parent === space.parent_id) {
      throw conflict('The space is already in that organization and collection: nothing to update');
    }
    if (parent === null && space.visibility === 'in-collection') {
      throw badRequest('Invalid body field "parent": a space with in-collection visibility needs a parent collection');
    }
    transferSpace(db, space, target.id, parent);
    return spaceAnswer(db, user, space.id, links);
  });
}

/**
 * Loads a space for the caller. With `includeDeleted`, a deleted space still within the restore
 * window is found, but only by callers with admin on it: for anyone else it does not exist.
 */
function findSpace(
  access: Access,
  id: string,
  options: { shareKey?: string | undefined; includeDeleted?: boolean },
): ReturnType<Access['requireSpace']> {
  const found = access.requireSpace(id, {
    ...(options.shareKey !== undefined ? { shareKey: options.shareKey } : {}),
    includeDeleted: options.includeDeleted ?? false,
  });
  if (found.space.deleted_at && found.role !== 'admin') throw notFound('Space');
  return found;
}

/**
 * A space as the caller sees it after a write, with a fresh `Access`, so that no role memoized
 * before the write shows through.
 */
function spaceAnswer(db: Db, user: UserRow, id: string, links: Links) {
  const space = loadSpace(db, id)!;
  return spaceJson(space, new Access(db, user).spaceRole(space), links);
}
