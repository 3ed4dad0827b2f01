import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Access, demand } from '../access.js';
import {
  badRequest,
  booleanParam,
  conflict,
  laterThan,
  notFoundInBody,
  newId,
  pageFromArray,
  pageParams,
  pageQuery,
  pageWindow,
  parseBody,
  parseQuery,
  preconditionFailed,
  sendDeleted,
  sendKeptPage,
} from '../http.js';
import type { CollectionRow, UserRow } from '../rows.js';
import { findOrganization } from '../organizations/store.js';
import { collectionJson } from './json.js';
import {
  deleteCollectionTree,
  insertCollection,
  loadCollection,
  spacesInCollection,
  transferCollection,
} from './store.js';
import { spaceJson } from '../spaces/json.js';
import type { Links } from '../links.js';
import type { Db } from '../store/db.js';
import { updateRow } from '../store/update.js';
import { collectionSubtree, moveItem, requireTargetCollection } from '../tree/positions.js';
import { rowsById, treeOrder } from '../tree/order.js';
import { defaultLevelSchema, movePositionSchema } from '../schemas.js';

const collectionTitle = z.string().trim().min(1, 'must be 1 to 50 characters').max(50, 'must be 1 to 50 characters');

const createCollectionBody = z.strictObject({
  title: collectionTitle.optional(),
  parent: z.string().min(1, 'must be a collection id').optional(),
});

const updateCollectionBody = z
  .strictObject({
    title: collectionTitle,
    description: z.string().max(100, 'must be at most 100 characters').nullable(),
    defaultLevel: defaultLevelSchema,
  })
  .partial()
  .refine((body) => Object.keys(body).length > 0, 'must set at least one of title, description, defaultLevel');

const moveCollectionBody = z
  .strictObject({
    parent: z.string().min(1, 'must be a collection id or null').nullable(),
    position: movePositionSchema,
  })
  .partial()
  .refine((body) => Object.keys(body).length > 0, 'must set parent or position');

const transferCollectionBody = z.strictObject({
  organization: z.string({ message: 'is required: the id of the target organization' }).min(1),
});

const listCollectionsQuery = z.object({ ...pageParams, nested: booleanParam.optional() });

type CollectionParams = { Params: { collectionId: string } };

/**
 * Collections and collection users group: list/create in an organization, get, update, delete,
 * list spaces, move, transfer (its permissions are `permissions/routes.ts`'s, shared with spaces).
 */
export function collectionRoutes(app: FastifyInstance): void {
  app.get<{ Params: { organizationId: string } }>('/orgs/:organizationId/collections', async (request, reply) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId);
    const query = parseQuery(listCollectionsQuery, request.query);
    const window = pageWindow(query);
    const nested = query.nested ?? true;
    const visible = treeOrder(db, org.id)
      .collections.filter((collection) => nested || collection.parent_id === null)
      .map((collection) => ({ collection, role: access.collectionRole(collection) }))
      .filter((entry) => entry.role !== null);
    const page = pageFromArray(visible, window);
    const rows = rowsById<CollectionRow>(
      db,
      'collections',
      page.items.map((entry) => entry.collection.id),
    );
    return sendKeptPage(reply, db, page, {
      kind: 'collection',
      keyOf: ({ collection, role }) => `${collection.id} ${role} ${links.api}`,
      json: ({ collection, role }) => collectionJson(rows.get(collection.id)!, role, links),
    });
  });

  app.post<{ Params: { organizationId: string } }>('/orgs/:organizationId/collections', async (request, reply) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'create');
    const body = parseBody(createCollectionBody, request.body);
    const parent = body.parent ? requireTargetCollection(access, org.id, body.parent) : null;
    const id = newId();
    const created = insertCollection(db, {
      id,
      orgId: org.id,
      parentId: parent?.id ?? null,
      title: body.title ?? 'Untitled',
    });
    reply.code(201).header('location', `${links.api}/collections/${id}`);
    return collectionJson(created, access.collectionRole(created), links);
  });

  app.get<CollectionParams>('/collections/:collectionId', async (request) => {
    const { access, links } = request.ctx;
    const { collection, role } = access.requireCollection(request.params.collectionId);
    return collectionJson(collection, role, links);
  });

  app.delete<CollectionParams>('/collections/:collectionId', async (request, reply) => {
    const { db, access } = request.ctx;
    const collection = loadCollection(db, request.params.collectionId);
    const role = collection ? access.collectionRole(collection) : null;
    if (!collection || role === null) return sendDeleted(reply, false);
    demand(role, 'admin', 'Deleting a collection');
    deleteCollectionTree(db, collection);
    return sendDeleted(reply, true);
  });

  app.patch<CollectionParams>('/collections/:collectionId', async (request) => {
    const { db, access, user, links } = request.ctx;
    const { collection, role } = access.requireCollection(request.params.collectionId);
    demand(role, 'admin', 'Updating a collection');
    const body = parseBody(updateCollectionBody, request.body);
    updateRow(db, 'collections', collection.id, {
      title: body.title,
      description: body.description,
      default_level: body.defaultLevel,
      updated_at: laterThan(collection.updated_at),
    });
    return collectionAnswer(db, user, collection.id, links);
  });

  app.get<CollectionParams>('/collections/:collectionId/spaces', async (request, reply) => {
    const { db, access, links } = request.ctx;
    const { collection } = access.requireCollection(request.params.collectionId);
    const window = pageWindow(parseQuery(pageQuery, request.query));
    const visible = spacesInCollection(db, collection.id)
      .map((space) => ({ space, role: access.spaceRole(space) }))
      .filter(({ space, role }) => access.canViewSpace(space, role));
    return sendKeptPage(reply, db, pageFromArray(visible, window), {
      kind: 'space',
      keyOf: ({ space, role }) => `${space.id} ${role} ${links.api}`,
      json: ({ space, role }) => spaceJson(space, role, links),
    });
  });

  app.post<CollectionParams>('/collections/:collectionId/move', async (request) => {
    const { db, access, user, links } = request.ctx;
    const { collection, role } = access.requireCollection(request.params.collectionId);
    demand(role, 'admin', 'Moving a collection');
    const body = parseBody(moveCollectionBody, request.body);
    let parentId = collection.parent_id;
    if (body.parent !== undefined) {
      if (body.parent === null) {
        access.requireOrg(collection.org_id, 'create');
        parentId = null;
      } else {
        const target = requireTargetCollection(access, collection.org_id, body.parent);
        if (collectionSubtree(db, collection.id).includes(target.id)) {
          throw badRequest(
            'Invalid body field "parent": cannot move a collection into itself or one of its descendants',
          );
        }
        parentId = target.id;
      }
    }
    moveItem(db, 'collection', collection, parentId, body.position);
    return collectionAnswer(db, user, collection.id, links);
  });

  app.post<CollectionParams>('/collections/:collectionId/transfer', async (request) => {
    const { db, access, user, links } = request.ctx;
    const { collection, role } = access.requireCollection(request.params.collectionId);
    demand(role, 'admin', 'Transferring a collection');
    const body = parseBody(transferCollectionBody, request.body);
    const target = findOrganization(db, body.organization);
    if (!target || access.orgRole(target.id) === undefined) {
      throw notFoundInBody('Target organization', 'organization', body.organization);
    }
    if (target.id === collection.org_id) throw conflict('The collection already belongs to that organization');
    if (access.orgRole(target.id) !== 'admin') {
      throw preconditionFailed('The collection cannot be moved: you must be an admin of the target organization');
    }
    transferCollection(db, collection, target.id);
    return collectionAnswer(db, user, collection.id, links);
  });
}

/**
 * A collection as the caller sees it after a write, with a fresh `Access`: the request's one
 * memoized the caller's role from before the write.
 */
function collectionAnswer(db: Db, user: UserRow, id: string, links: Links) {
  const collection = loadCollection(db, id)!;
  return collectionJson(collection, new Access(db, user).collectionRole(collection), links);
}
