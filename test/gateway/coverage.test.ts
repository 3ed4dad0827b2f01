import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalWoff2 } from '../../src/platform/fonts/woff.js';
import { putDocument } from '../../src/platform/content/revisions.js';
import { commitContent, sampleContent, textDocument } from '../fixtures/content.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, addUser, type TestOrg, type TestUser } from '../fixtures/org.js';
import { petStore, uploadSpec } from '../fixtures/openapi-specs.js';
import { buildSite, visitorToken, writePages } from '../fixtures/sites.js';
import { addLinkInvite } from '../fixtures/wide.js';
import { graphOperations, NOT_IN_GRAPH, servedOperations, type Operation } from '../fixtures/operations.js';
import { graphql } from '../graphql/index.js';

/**
 * Drives the REST operations the platform serves through GraphQL, one case per group of the
 * official API description (its tags), each case failing on any error or userError. Whether every
 * operation was reached through the graph is a check of the whole suite (`../suite-checks.ts`): the
 * tests of each domain reach their own operations too, so a new operation of a group needs no edit
 * here. The inventory is derived from the routes the platform registers (see
 * `../fixtures/operations.ts`): a route of a new group fails the first case below.
 */
let g: TestGateway;
/** What the platform answered during the current case. */
const answered: Array<{ method: string; url: string; status: number }> = [];

/** Northwind (ada admin, ben `create`, cy `review`, finn `read`; e-mail domain `northwind.test`) and Southwind. */
let north: TestOrg;
/** Ivy: in no organization, of Northwind's e-mail domain, so she may join it. */
let ivyUser: TestUser;
/** Northwind's team Writers. */
let writers: string;
/** Northwind's invite link (deleted by the organizations case). */
let linkInvite: string;
/** Northwind's collection Product. */
let product: string;
/** Northwind's spaces by title. */
const spaces: Record<string, string> = {};
/** The slug of Northwind's OpenAPI specification. */
const PETSTORE = 'petstore';
/** A visitor token that Northwind's visitor-auth site (on api.northwind.test) accepts. */
let apiVisitorToken: string;

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  const users: Record<string, TestUser> = {};
  for (const key of ['ada', 'ben', 'cy', 'finn', 'ivy'])
    users[key] = addUser(g.platform, key, { email: `${key}@northwind.test` });
  ivyUser = users.ivy!;
  north = addOrg(g.platform, {
    id: 'northwind',
    title: 'Northwind Docs',
    users,
    emailDomains: ['northwind.test'],
    members: { ada: 'admin', ben: 'create', cy: 'review', finn: 'read' },
  });
  addOrg(g.platform, { id: 'southwind', title: 'Southwind', users, members: { ada: 'admin' } });
  linkInvite = await addLinkInvite(north, 'ada');
  writers = await north.team('Writers', ['finn'], { owners: ['ben'] });
  product = await north.collection('Product');
  for (const title of ['Getting started', 'Release notes', 'Runbooks', 'Company handbook', 'Petstore API'])
    spaces[title] = await north.space(title, { language: 'en' });
  await uploadSpec(north, PETSTORE, [petStore()]);
  await writePages(north, spaces['Getting started']!, [{ title: 'Introduction' }]);
  await buildSite(north, {
    title: 'Northwind Docs',
    siteSpaces: [{ space: spaces['Getting started']! }],
    defaultContent: true,
  });
  const api = await buildSite(north, {
    title: 'Northwind API',
    visibility: 'visitor-auth',
    hostname: 'api.northwind.test',
    siteSpaces: [{ space: spaces['Getting started']! }],
  });
  apiVisitorToken = await visitorToken(api.signingKey!, { sub: 'visitor', plan: 'pro' });
});
afterAll(() => g.destroy());

/** Runs a typed operation, fails on any error or userError, and keeps what the platform answered. */
async function run<R, V extends Record<string, unknown>>(
  document: TypedDocumentNode<R, V>,
  variables?: V,
  token?: string,
): Promise<R> {
  const result = await g.typed(document, variables, token ? { token } : {});
  answered.push(...g.platform.app.stats.answers);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  for (const value of Object.values(result.data ?? {})) {
    if (value && typeof value === 'object' && 'userErrors' in value)
      expect((value as { userErrors: unknown[] }).userErrors).toEqual([]);
  }
  return result.data!;
}

function matcher(path: string): RegExp {
  return new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?.*)?$`);
}

function reached(operation: Pick<Operation, 'method' | 'path'>, answers: typeof answered): boolean {
  return answers.some(
    (answer) =>
      answer.method === operation.method &&
      matcher(operation.path).test(answer.url) &&
      answer.status >= 200 &&
      answer.status < 300,
  );
}

/** The operations the graph must reach, from the routes the running platform registered. */
function inventory(): Operation[] {
  return graphOperations(g.platform.app.registeredRoutes);
}

// ---------------------------------------------------------------------------------------------
// What several cases need: platform ids of members, Ivy as a member of Northwind, content to read.

async function memberId(email: string): Promise<string> {
  const people = await run(
    graphql(`query CoverageMemberIds {
      organization(id: "northwind") { members(first: 50) { nodes { platformId user { email } } } }
    }`),
  );
  return people.organization!.members!.nodes.find((m) => m.user.email === email)!.platformId;
}

const JOIN = graphql(
  `mutation CoverageJoin { joinOrganization(input: { organizationId: "northwind" }) { organization { platformId } userErrors { code } } }`,
);

/** Ivy's member id in Northwind; she joins it first when she is not a member (she starts outside it). */
async function ivyMember(): Promise<string> {
  const joined = graphql(
    `query CoverageJoined { organization(id: "northwind") { members(search: "ivy") { nodes { platformId } } } }`,
  );
  const found = (await run(joined)).organization!.members!.nodes[0];
  if (found) return found.platformId;
  await run(JOIN, undefined, ivyUser.token);
  return (await run(joined)).organization!.members!.nodes[0]!.platformId;
}

let narrow: Promise<{ space: string; revision: string }> | undefined;

/**
 * A space whose current content has every kind of thing a narrow read asks for: the sample pages
 * and files, a page without a body and a reusable content. Committed once.
 */
function narrowContent(): Promise<{ space: string; revision: string }> {
  narrow ??= (async () => {
    const space = spaces.Runbooks!;
    const base = sampleContent(g.platform.db, space, ' (narrow)');
    const snippet = putDocument(g.platform.db, space, textDocument([[0, 'Reach support at support@northwind.test.']]));
    const bodiless = { id: 'pg-empty', type: 'document' as const, title: 'Empty page', slug: 'empty', pages: [] };
    const revision = commitContent(g.platform.db, space, {
      ...base.content,
      pages: [...base.content.pages, bodiless],
      reusableContents: [{ id: 'rc-support', title: 'Support', documentId: snippet }],
    });
    return { space, revision };
  })();
  return narrow;
}

const CREATE_SPACE = graphql(`mutation CoverageCreateOwnSpace($title: String!) {
  createSpace(input: { organizationId: "northwind", title: $title }) { space { id platformId } userErrors { code } }
}`);

/** A new space of Northwind without merge rules, so change requests on it merge without reviews. */
async function spaceWithoutRules(title: string): Promise<string> {
  const created = await run(CREATE_SPACE, { title });
  const id = created.createSpace.space!.id;
  await run(
    graphql(
      `mutation CoverageChangeRequestRules($s: ID!) { updateSpace(input: { spaceId: $s, mergeRules: { type: NONE } }) { userErrors { code } } }`,
    ),
    { s: id },
  );
  return id;
}

// ---------------------------------------------------------------------------------------------
// The cases: each drives the operations of its groups (tags of the official description). A case
// drives several groups when their operations need one another's objects (a review needs its
// change request).

interface Case {
  name: string;
  groups: string[];
  drive(): Promise<void>;
}

const CASES: Case[] = [
  {
    name: 'users',
    groups: ['users'],
    async drive() {
      await run(graphql(`query CoverageViewer { viewer { platformId } }`));
      await run(graphql(`query CoverageUser($id: ID!) { user(id: $id) { displayName } }`), {
        id: await memberId(north.user('ben').email),
      });
    },
  },
  {
    name: 'organizations',
    groups: ['organizations'],
    async drive() {
      await run(
        graphql(`query CoverageOrganizations {
      organizations { nodes { platformId } }
      organizationsByEmailDomain(domain: "northwind.test") { platformId }
      organization(id: "northwind") { agentInstructions { updatedAt } search(query: "installer") { totalCount } }
    }`),
      );
      await run(JOIN, undefined, ivyUser.token);
      await run(
        graphql(`mutation CoverageOrganizationWrites($invite: ID!) {
      updateOrganization(input: { organizationId: "northwind", ai: true }) { userErrors { code } }
      deleteOrganizationInvite(input: { organizationId: "northwind", inviteId: $invite }) { deleted userErrors { code } }
      updateAgentInstructions(input: { organizationId: "northwind", instructions: { text: "Be kind." } }) { userErrors { code } }
    }`),
        { invite: linkInvite },
      );
    },
  },
  {
    name: 'organization invites',
    groups: ['organization-invites'],
    async drive() {
      const created = await run(
        graphql(`mutation CoverageInviteWrites {
      createOrganizationInvite(input: { organizationId: "northwind", role: READ, maxUses: 5 }) { invite { id } userErrors { code } }
      inviteUsersToOrganization(input: { organizationId: "northwind", emails: ["new.reader@northwind.test"], role: READ }) { invited userErrors { code } }
    }`),
      );
      const invite = created.createOrganizationInvite.invite!.id;
      await run(
        graphql(`mutation CoverageInviteJoin($invite: ID!) {
      updateOrganizationInvite(input: { organizationId: "northwind", inviteId: $invite, role: COMMENT }) { invite { role } userErrors { code } }
      joinOrganizationWithInvite(input: { organizationId: "northwind", inviteId: $invite }) { organization { platformId } userErrors { code } }
    }`),
        { invite },
      );
      await run(
        graphql(`query CoverageInviteReads($invite: ID!) {
      organization(id: "northwind") { invites(first: 5) { totalCount } }
      node(id: $invite) { ... on OrganizationInvite { role } }
    }`),
        { invite },
      );
    },
  },
  {
    name: 'organization members',
    groups: ['organization-members'],
    async drive() {
      const ivy = await ivyMember();
      await run(
        graphql(`query CoverageMemberReads($ben: ID!) {
      organization(id: "northwind") { members(first: 2) { nodes { spaces(first: 2) { totalCount } teams { totalCount } } } }
      member(organizationId: "northwind", userId: $ben) { role }
    }`),
        { ben: await memberId(north.user('ben').email) },
      );
      await run(
        graphql(
          `mutation CoveragePing { pingOrganization(input: { organizationId: "northwind" }) { userErrors { code } } }`,
        ),
        undefined,
        ivyUser.token,
      );
      await run(
        graphql(`mutation CoverageMemberWrites($ivy: ID!) {
      setMemberSso(input: { organizationId: "northwind", userId: $ivy }) { userErrors { code } }
      updateMember(input: { organizationId: "northwind", userId: $ivy, role: EDIT }) { userErrors { code } }
    }`),
        { ivy },
      );
      await run(
        graphql(
          `mutation CoverageRemoveMember($ivy: ID!) { removeMember(input: { organizationId: "northwind", userId: $ivy }) { deleted userErrors { code } } }`,
        ),
        { ivy },
      );
    },
  },
  {
    name: 'teams',
    groups: ['teams', 'team-members'],
    async drive() {
      const ivy = await ivyMember();
      await run(
        graphql(`query CoverageTeamReads($team: ID!) {
      organization(id: "northwind") { teams { nodes { platformId members { totalCount } } } }
      team(organizationId: "northwind", id: $team) { title }
    }`),
        { team: writers },
      );
      const team = await run(
        graphql(
          `mutation CoverageCreateTeam($ivy: ID!) { createTeam(input: { organizationId: "northwind", title: "Coverage", memberIds: [$ivy] }) { team { id } userErrors { code } } }`,
        ),
        { ivy },
      );
      await run(
        graphql(`mutation CoverageTeamWrites($team: ID!, $ivy: ID!, $finn: String!) {
      updateTeam(input: { teamId: $team, title: "Coverage team" }) { userErrors { code } }
      updateTeamMembers(input: { teamId: $team, add: [$finn] }) { userErrors { code } }
      setTeamMember(input: { teamId: $team, userId: $ivy, role: OWNER }) { userErrors { code } }
      removeTeamMember(input: { teamId: $team, userId: $ivy }) { deleted userErrors { code } }
      deleteTeam(input: { teamId: $team }) { deleted userErrors { code } }
    }`),
        { team: team.createTeam.team!.id, ivy, finn: north.user('finn').email },
      );
    },
  },
  {
    name: 'collections',
    groups: ['collections', 'collection-permissions', 'space-permissions'],
    async drive() {
      const ivy = await ivyMember();
      await run(
        graphql(`query CoverageCollectionReads($collection: ID!) {
      organization(id: "northwind") { collections { nodes { platformId users { totalCount } accessibleBy { totalCount } spaces { totalCount } } } }
      collection(id: $collection) { title }
    }`),
        { collection: product },
      );
      const collections = await run(
        graphql(`mutation CoverageCreateCollections {
      a: createCollection(input: { organizationId: "northwind", title: "Coverage A" }) { collection { platformId } userErrors { code } }
      b: createCollection(input: { organizationId: "northwind", title: "Coverage B" }) { collection { platformId } userErrors { code } }
    }`),
      );
      const a = collections.a.collection!.platformId;
      const b = collections.b.collection!.platformId;
      await run(
        graphql(`mutation CoverageCollectionWrites($a: ID!, $b: ID!, $ivy: ID!) {
      updateCollection(input: { collectionId: $a, description: "For the coverage test" }) { userErrors { code } }
      moveCollection(input: { collectionId: $b, parentId: $a }) { userErrors { code } }
      inviteToCollection(input: { collectionId: $a, role: READ, userIds: [$ivy] }) { userErrors { code } }
      updateCollectionUserPermission(input: { collectionId: $a, userId: $ivy, role: EDIT }) { userErrors { code } }
      removeCollectionUser(input: { collectionId: $a, userId: $ivy }) { deleted userErrors { code } }
    }`),
        { a, b, ivy },
      );
      await run(
        graphql(`mutation CoverageCollectionTransfers($a: ID!) {
      transferCollection(input: { collectionId: $a, organizationId: "southwind" }) { userErrors { code } }
      deleteCollection(input: { collectionId: $a }) { deleted userErrors { code } }
    }`),
        { a },
      );
    },
  },
  {
    name: 'spaces',
    groups: ['spaces'],
    async drive() {
      const reads = await run(
        graphql(
          `query CoverageSpaces { organization(id: "northwind") { spaces(first: 50) { nodes { platformId title } } } }`,
        ),
      );
      await run(graphql(`query CoverageSpace($id: ID!) { space(id: $id) { title links(first: 1) { totalCount } } }`), {
        id: reads.organization!.spaces!.nodes[0]!.platformId,
      });
      const parent = await run(
        graphql(`mutation CoverageSpaceParent {
      createCollection(input: { organizationId: "northwind", title: "Coverage spaces" }) { collection { platformId } userErrors { code } }
    }`),
      );
      const space = await run(
        graphql(
          `mutation CoverageCreateSpace($a: ID!) { createSpace(input: { organizationId: "northwind", title: "Coverage space", parentId: $a }) { space { platformId } userErrors { code } } }`,
        ),
        { a: parent.createCollection.collection!.platformId },
      );
      const spaceId = space.createSpace.space!.platformId;
      const copy = await run(
        graphql(`mutation CoverageSpaceWrites($s: ID!) {
      updateSpace(input: { spaceId: $s, title: "Coverage space 2" }) { userErrors { code } }
      duplicateSpace(input: { spaceId: $s }) { space { platformId } userErrors { code } }
      moveSpace(input: { spaceId: $s, parentId: null }) { userErrors { code } }
    }`),
        { s: spaceId },
      );
      await run(
        graphql(`mutation CoverageTransfers($s: ID!, $copy: ID!) {
      transferSpace(input: { spaceId: $copy, organizationId: "southwind" }) { userErrors { code } }
      deleteSpace(input: { spaceId: $s }) { deleted userErrors { code } }
      restoreSpace(input: { spaceId: $s }) { space { platformId } userErrors { code } }
    }`),
        { s: spaceId, copy: copy.duplicateSpace.space!.platformId },
      );
    },
  },
  {
    name: 'space content',
    groups: ['space-content'],
    async drive() {
      const contentSpace = spaces.Runbooks!;
      commitContent(g.platform.db, contentSpace, sampleContent(g.platform.db, contentSpace, ' (coverage)').content);
      await run(
        graphql(`query CoverageContent($id: ID!) {
      space(id: $id) {
        search(query: "installer") { totalCount }
        pdf { url }
        content {
          changes { more }
          files(first: 1) { nodes { backlinks { totalCount } } }
          page(path: "") { ... on DocumentPage { markdown document { text } links { totalCount } backlinks { totalCount } } }
        }
      }
    }`),
        { id: contentSpace },
      );
      // Each narrow read of the current content and of a revision by id: asked alone, a revision
      // reads only what is asked (its tree, its files, one file, one page, one reusable content).
      const { revision } = await narrowContent();
      await run(
        graphql(`query CoverageCurrentContent($id: ID!) {
      space(id: $id) {
        tree: content { pages { title } }
        files: content { files(first: 1) { totalCount } }
        file: content { file(id: "file-notes") { name } }
        byId: content { page(id: "pg-install") { title ... on DocumentPage { markdown metaLinks { alternates { url } } } } }
        byPath: content { page(path: "getting-started") { title } }
        reusable: content { reusableContent(id: "rc-support") { title document { text } } }
        full: content { createdAt }
      }
    }`),
        { id: contentSpace },
      );
      await run(
        graphql(`query CoverageRevision($id: ID!, $revision: ID!) {
      space(id: $id) {
        tree: revision(id: $revision) { pages { title } }
        files: revision(id: $revision) { files(first: 1) { totalCount } }
        file: revision(id: $revision) { file(id: "file-notes") { name } }
        byId: revision(id: $revision) { page(id: "pg-empty") { ... on DocumentPage { document { text } markdown metaLinks { alternates { url } } } } }
        byPath: revision(id: $revision) { page(path: "api") { title } }
        reusable: revision(id: $revision) { reusableContent(id: "rc-support") { title } }
        full: revision(id: $revision) { createdAt }
      }
    }`),
        { id: contentSpace, revision },
      );
      await run(
        graphql(`query CoverageComputed($space: ID!) { space(id: $space) {
      computedRevision(source: { openApi: { spec: "petstore" } }, seed: "c") { title }
      computedDocument(source: { openApi: { spec: "petstore", doc: MODELS } }, seed: "c") { json }
    } }`),
        { space: spaces['Petstore API']! },
      );
      const templated = await spaceWithoutRules('Coverage template');
      await run(
        graphql(
          `mutation CoverageApplyTemplate($s: ID!) { applySpaceTemplate(input: { spaceId: $s, templateId: "changelog" }) { userErrors { code } } }`,
        ),
        { s: templated },
      );
    },
  },
  {
    name: 'change request content',
    groups: ['change-request-content'],
    async drive() {
      const { space } = await narrowContent();
      // The same narrow reads of a change request's content, through the change request.
      const request = await run(
        graphql(
          `mutation CoverageContentRequest($id: ID!) { createChangeRequest(input: { spaceId: $id, subject: "Coverage" }) { changeRequest { id } userErrors { code } } }`,
        ),
        { id: space },
      );
      const id = request.createChangeRequest.changeRequest!.id;
      await run(
        graphql(`query CoverageRequestContent($id: ID!) {
      node(id: $id) {
        ... on ChangeRequest {
          tree: content { pages { title } }
          files: content { files(first: 1) { totalCount nodes { backlinks { totalCount } } } }
          file: content { file(id: "file-notes") { name } }
          byId: content { page(id: "pg-install") { title ... on DocumentPage { markdown metaLinks { alternates { url } } links { totalCount } backlinks { totalCount } } } }
          byPath: content { page(path: "getting-started") { title } }
          reusable: content { reusableContent(id: "rc-support") { title } }
          full: content { createdAt }
        }
      }
    }`),
        { id },
      );
      const edited = await run(
        graphql(`mutation CoverageEditRequestContent($cr: ID!) {
      editChangeRequestContent(input: { changeRequestId: $cr, changes: [{ insertPage: { markdown: "# Coverage page" } }] }) { edits { kind } userErrors { code } }
    }`),
        { cr: id },
      );
      expect(edited.editChangeRequestContent.edits).toEqual([{ kind: 'CREATED_PAGE' }]);
      const changes = await run(
        graphql(`query CoverageRequestChanges($id: ID!) {
      node(id: $id) { ... on ChangeRequest { changes { changes { __typename } } } }
    }`),
        { id },
      );
      expect(changes.node).toEqual({ changes: { changes: [{ __typename: 'PageCreatedChange' }] } });
    },
  },
  {
    name: 'change requests',
    groups: ['change-requests', 'change-requests-reviews', 'change-request-reviewers', 'change-request-contributors'],
    // Change requests, on a space of their own without merge rules: one is created, edited, given
    // a template, asked for reviews (one withdrawn), updated from the live content the template
    // changed, approved, read with all its lists and its PDF, then merged.
    async drive() {
      const crSpaceId = await spaceWithoutRules('Coverage change requests');
      const createdRequest = await run(
        graphql(`mutation CoverageCreateChangeRequest($s: ID!) {
      createChangeRequest(input: { spaceId: $s, subject: "Coverage" }) { changeRequest { id status } userErrors { code } }
    }`),
        { s: crSpaceId },
      );
      expect(createdRequest.createChangeRequest.changeRequest!.status).toBe('DRAFT');
      const cr = createdRequest.createChangeRequest.changeRequest!.id;
      const crWrites = await run(
        graphql(`mutation CoverageChangeRequestWrites($s: ID!, $cr: ID!, $cy: ID!, $finn: ID!) {
      updateChangeRequest(input: { changeRequestId: $cr, subject: "Coverage request" }) { changeRequest { subject } userErrors { code } }
      editChangeRequestContent(input: { changeRequestId: $cr, changes: [{ insertPage: { markdown: "# Coverage page" } }] }) { edits { kind } userErrors { code } }
      applySpaceTemplate(input: { spaceId: $s, templateId: "changelog" }) { userErrors { code } }
      requestChangeRequestReviewers(input: { changeRequestId: $cr, userIds: [$cy, $finn] }) { changeRequest { status } userErrors { code } }
      removeChangeRequestReviewer(input: { changeRequestId: $cr, userId: $finn }) { deleted userErrors { code } }
      updateChangeRequestFromMain(input: { changeRequestId: $cr }) { result userErrors { code } }
    }`),
        {
          s: crSpaceId,
          cr,
          cy: await memberId(north.user('cy').email),
          finn: await memberId(north.user('finn').email),
        },
      );
      expect(crWrites).toMatchObject({
        updateChangeRequest: { changeRequest: { subject: 'Coverage request' } },
        editChangeRequestContent: { edits: [{ kind: 'CREATED_PAGE' }] },
        requestChangeRequestReviewers: { changeRequest: { status: 'OPEN' } },
        removeChangeRequestReviewer: { deleted: true },
        updateChangeRequestFromMain: { result: 'UPDATED' },
      });
      await run(
        graphql(`mutation CoverageReviewChangeRequest($cr: ID!) {
      submitChangeRequestReview(input: { changeRequestId: $cr, status: APPROVED }) { review { status } userErrors { code } }
    }`),
        { cr },
        north.token('cy'),
      );
      const crReads = await run(
        graphql(`query CoverageChangeRequestReads($s: ID!, $cr: ID!) {
      space(id: $s) {
        changeRequests { totalCount }
        changeRequest(id: $cr) {
          pdf { url }
          changes { changes { __typename } }
          reviews { totalCount }
          requestedReviewers { totalCount }
          contributors { totalCount }
        }
      }
      organization(id: "northwind") { changeRequests { totalCount } }
    }`),
        { s: crSpaceId, cr },
      );
      expect(crReads.space!.changeRequests.totalCount).toBe(1);
      expect(crReads.space!.changeRequest!.reviews.totalCount).toBe(1);
      expect(crReads.space!.changeRequest!.changes.changes).toEqual([{ __typename: 'PageCreatedChange' }]);
      const merged = await run(
        graphql(`mutation CoverageMergeChangeRequest($cr: ID!) {
      mergeChangeRequest(input: { changeRequestId: $cr }) { result changeRequest { status } userErrors { code } }
    }`),
        { cr },
      );
      expect(merged.mergeChangeRequest).toMatchObject({ result: 'MERGED', changeRequest: { status: 'MERGED' } });
    },
  },
  {
    name: 'Git Sync',
    groups: ['space-git'],
    // Export to a local repository, import it back, read the state, remove the link.
    async drive() {
      const { execFileSync } = await import('node:child_process');
      const { mkdtempSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const { join } = await import('node:path');
      const bare = join(mkdtempSync(join(tmpdir(), 'coverage-git-')), 'repo.git');
      execFileSync('git', ['init', '--bare', '--quiet', '--initial-branch=main', bare]);
      const s = (await run(CREATE_SPACE, { title: 'Coverage Git' })).createSpace.space!.id;
      await run(
        graphql(`mutation CoverageExportToGit($s: ID!, $url: String!) {
      exportToGit(input: { spaceId: $s, url: $url, ref: "refs/heads/main", commitMessage: "Coverage" }) { operation { state } userErrors { code } }
    }`),
        { s, url: bare },
      );
      await g.platform.app.jobs.drain();
      await run(
        graphql(`mutation CoverageImportFromGit($s: ID!, $url: String!) {
      importFromGit(input: { spaceId: $s, url: $url, ref: "refs/heads/main" }) { operation { state } userErrors { code } }
    }`),
        { s, url: bare },
      );
      await g.platform.app.jobs.drain();
      const git = await run(
        graphql(`query CoverageGitInfo($s: ID!) { space(id: $s) { gitInfo { operation { state direction } } } }`),
        { s },
      );
      expect(git.space!.gitInfo!.operation).toEqual({ state: 'SUCCESS', direction: 'IMPORT' });
      const removed = await run(
        graphql(
          `mutation CoverageRemoveGit($s: ID!) { removeLegacyGitInstallation(input: { spaceId: $s }) { deleted userErrors { code } } }`,
        ),
        { s },
      );
      expect(removed.removeLegacyGitInstallation.deleted).toBe(true);
    },
  },
  {
    name: 'docs sites',
    groups: [
      'sites',
      'site-structure',
      'site-spaces',
      'site-sections',
      'site-section-groups',
      'site-share-links',
      'site-publishing-auth',
    ],
    // A site is created with a space, read with its lists and structure, configured, published
    // and unpublished; its structure grows a site space, a section and a group, each updated and
    // moved (with the deprecated moves and with structure/sort); who may read it is set; then all
    // is deleted.
    async drive() {
      const createdSite = await run(
        graphql(`mutation CoverageCreateSite($space: ID!) {
      createSite(input: { organizationId: "northwind", title: "Coverage site", spaceIds: [$space] }) { site { id } userErrors { code } }
    }`),
        { space: spaces['Release notes']! },
      );
      const site = createdSite.createSite.site!.id;
      const siteReads = await run(
        graphql(`query CoverageSiteReads($site: ID!) {
      organization(id: "northwind") { sites(title: "coverage") { totalCount } }
      node(id: $site) {
        ... on Site { siteSpaces { totalCount } sections { totalCount } sectionGroups { totalCount } structure { __typename } }
      }
    }`),
        { site },
      );
      expect(siteReads.organization!.sites!.totalCount).toBe(1);
      await run(
        graphql(`mutation CoverageSiteWrites($site: ID!) {
      updateSite(input: { siteId: $site, title: "Coverage site 2" }) { site { title } userErrors { code } }
      publishSite(input: { siteId: $site }) { site { isPublished } userErrors { code } }
      unpublishSite(input: { siteId: $site }) { site { isPublished } userErrors { code } }
    }`),
        { site },
      );
      const addedSpace = await run(
        graphql(`mutation CoverageAddSpaceToSite($site: ID!, $space: ID!) {
      addSpaceToSite(input: { siteId: $site, spaceId: $space }) { siteSpace { id } userErrors { code } }
    }`),
        { site, space: spaces.Runbooks! },
      );
      const siteSpace = addedSpace.addSpaceToSite.siteSpace!.id;
      await run(
        graphql(`mutation CoverageSiteSpaceWrites($siteSpace: ID!) {
      updateSiteSpace(input: { siteSpaceId: $siteSpace, hidden: true }) { siteSpace { hidden } userErrors { code } }
      moveSiteSpace(input: { siteSpaceId: $siteSpace }) { siteSpace { path } userErrors { code } }
    }`),
        { siteSpace },
      );
      const addedSection = await run(
        graphql(`mutation CoverageCreateSiteSection($site: ID!, $space: ID!) {
      createSiteSection(input: { siteId: $site, spaceId: $space }) { siteSection { id } userErrors { code } }
    }`),
        { site, space: spaces['Company handbook']! },
      );
      const section = addedSection.createSiteSection.siteSection!.id;
      const addedGroup = await run(
        graphql(`mutation CoverageCreateSiteSectionGroup($site: ID!, $section: ID!) {
      createSiteSectionGroup(input: { siteId: $site, title: "Coverage group", siteSectionIds: [$section] }) { siteSectionGroup { id } userErrors { code } }
    }`),
        { site, section },
      );
      const group = addedGroup.createSiteSectionGroup.siteSectionGroup!.id;
      await run(
        graphql(`mutation CoverageSiteSectionWrites($section: ID!, $group: ID!, $siteSpace: ID!) {
      updateSiteSection(input: { siteSectionId: $section, description: "Covered" }) { siteSection { description } userErrors { code } }
      moveSiteSection(input: { siteSectionId: $section }) { siteSection { path } userErrors { code } }
      updateSiteSectionGroup(input: { siteSectionGroupId: $group, icon: "folder" }) { siteSectionGroup { icon } userErrors { code } }
      moveSiteSectionGroup(input: { siteSectionGroupId: $group }) { siteSectionGroup { title } userErrors { code } }
      sortSiteStructure(input: { itemId: $siteSpace }) { siteSpace { path } userErrors { code } }
    }`),
        { section, group, siteSpace },
      );
      // Who may read it: share links, visitor authentication, the adaptive schema, the profile.
      await run(
        graphql(`query CoverageSiteAccessReads($site: ID!) {
      node(id: $site) { ... on Site { shareLinks { totalCount } visitorAuth { backend } published { scripts { url } } } }
    }`),
        { site },
      );
      const accessWrites = await run(
        graphql(`mutation CoverageSiteAccessWrites($site: ID!, $schema: JSON!) {
      createSiteShareLink(input: { siteId: $site, name: "Coverage" }) { shareLink { id } userErrors { code } }
      updateSiteVisitorAuth(input: { siteId: $site, backend: CUSTOM, logoutUrl: "https://example.com/logout" }) { visitorAuth { logoutUrl } userErrors { code } }
      regenerateSiteVisitorAuthKey(input: { siteId: $site }) { visitorAuth { backend } userErrors { code } }
      updateSiteAdaptiveSchema(input: { siteId: $site, jsonSchema: $schema }) { adaptiveSchema { templateConditions { condition } } userErrors { code } }
    }`),
        {
          site,
          schema: {
            type: 'object',
            properties: { beta: { type: 'boolean', description: 'Beta' } },
            additionalProperties: false,
          },
        },
      );
      const shareLink = accessWrites.createSiteShareLink.shareLink!.id;
      await run(
        graphql(
          `query CoverageAdaptiveSchema($site: ID!) { node(id: $site) { ... on Site { adaptiveSchema { updatedAt } } } }`,
        ),
        { site },
      );
      await run(
        graphql(`mutation CoverageShareLinkWrites($link: ID!) {
      updateSiteShareLink(input: { shareLinkId: $link, name: "Covered" }) { shareLink { name } userErrors { code } }
      deleteSiteShareLink(input: { shareLinkId: $link }) { deleted userErrors { code } }
    }`),
        { link: shareLink },
      );
      const siteDeletes = await run(
        graphql(`mutation CoverageSiteDeletes($site: ID!, $section: ID!, $group: ID!, $siteSpace: ID!) {
      deleteSiteSpace(input: { siteSpaceId: $siteSpace }) { deleted userErrors { code } }
      deleteSiteSectionGroup(input: { siteSectionGroupId: $group }) { deleted userErrors { code } }
      deleteSiteSection(input: { siteSectionId: $section }) { deleted userErrors { code } }
      deleteSite(input: { siteId: $site }) { deleted userErrors { code } }
    }`),
        { site, section, group, siteSpace },
      );
      expect(siteDeletes).toEqual({
        deleteSiteSpace: { deleted: true, userErrors: [] },
        deleteSiteSectionGroup: { deleted: true, userErrors: [] },
        deleteSiteSection: { deleted: true, userErrors: [] },
        deleteSite: { deleted: true, userErrors: [] },
      });
    },
  },
  {
    name: 'URLs',
    groups: ['urls'],
    async drive() {
      const published = `${new URL(g.platform.url).origin}/published/northwind`;
      await run(
        graphql(`query CoverageUrls($published: String!, $app: String!, $token: String!) {
      anonymous: resolveUrl(url: $published) { __typename }
      visitor: resolveUrl(url: "https://api.northwind.test/", visitor: { jwtToken: $token }) { __typename }
      app: resolveUrl(url: $app) { __typename }
      embedUrl(url: $published) { title }
    }`),
        {
          published,
          app: `${new URL(g.platform.url).origin}/app/s/${spaces['Release notes']!}`,
          token: apiVisitorToken,
        },
      );
    },
  },
  {
    name: 'SAML and SSO',
    groups: ['sso'],
    // A provider created, read alone and in the list, updated and deleted; the SSO logins.
    async drive() {
      const saml = await run(
        graphql(
          `mutation CoverageCreateSaml { createSamlProvider(input: { organizationId: "southwind", label: "Coverage" }) { provider { id } userErrors { code } } }`,
        ),
      );
      const provider = saml.createSamlProvider.provider!.id;
      await run(
        graphql(`query CoverageSamlReads($id: ID!) {
      organization(id: "southwind") { samlProviders { totalCount } ssoProviders { label } }
      node(id: $id) { ... on SamlProvider { label } }
    }`),
        { id: provider },
      );
      await run(
        graphql(`mutation CoverageSamlWrites($id: ID!) {
      updateSamlProvider(input: { providerId: $id, label: "Covered" }) { provider { label } userErrors { code } }
      deleteSamlProvider(input: { providerId: $id }) { deleted userErrors { code } }
    }`),
        { id: provider },
      );
    },
  },
  {
    name: 'custom fonts',
    groups: ['storage', 'custom-fonts'],
    // A file uploaded (a multipart request), a font created from it, read alone and in the list,
    // changed and deleted.
    async drive() {
      const form = new FormData();
      const upload =
        'mutation CoverageUpload($file: Upload!) { uploadFile(input: { organizationId: "southwind", kind: CUSTOMIZATION_FONT, file: $file }) { file { key } userErrors { code } } }';
      form.append('operations', JSON.stringify({ query: upload, variables: { file: null } }));
      form.append('map', JSON.stringify({ 0: ['variables.file'] }));
      form.append(
        '0',
        new Blob([new Uint8Array(minimalWoff2('Coverage', 400))], { type: 'font/woff2' }),
        'coverage.woff2',
      );
      g.platform.app.stats.reset();
      const uploaded = (await (
        await g.gateway.fetch('http://gateway.test/graphql', {
          method: 'POST',
          headers: { authorization: `Bearer ${g.platform.adminToken}`, 'apollo-require-preflight': 'true' },
          body: form,
        })
      ).json()) as any;
      answered.push(...g.platform.app.stats.answers);
      expect(uploaded.data.uploadFile.userErrors).toEqual([]);
      const fonts = await run(
        graphql(`mutation CoverageCreateFont($key: String!) {
      createCustomFont(input: { organizationId: "southwind", fontFamily: "Coverage", fontFaces: [{ weight: 400, storageKey: $key }] }) { font { id } userErrors { code } }
    }`),
        { key: uploaded.data.uploadFile.file.key },
      );
      const font = fonts.createCustomFont.font!.id;
      await run(
        graphql(`query CoverageFontReads($id: ID!) {
      organization(id: "southwind") { fonts { totalCount } }
      node(id: $id) { ... on CustomFont { fontFamily } }
    }`),
        { id: font },
      );
      await run(
        graphql(`mutation CoverageFontWrites($id: ID!) {
      updateCustomFont(input: { fontId: $id, fontFamily: "Covered" }) { font { fontFamily } userErrors { code } }
      deleteCustomFont(input: { fontId: $id }) { deleted userErrors { code } }
    }`),
        { id: font },
      );
    },
  },
  {
    name: 'translations',
    groups: ['translations'],
    // One created, read alone and in the list, changed, run and deleted.
    async drive() {
      const translations = await run(
        graphql(`mutation CoverageCreateTranslation($space: ID!) {
      createTranslation(input: { organizationId: "northwind", language: ES, source: { spaceId: $space, language: EN } }) { translation { id } userErrors { code } }
    }`),
        { space: spaces['Getting started']! },
      );
      const translation = translations.createTranslation.translation!.id;
      await run(
        graphql(`query CoverageTranslationReads($id: ID!) {
      organization(id: "northwind") { translations { totalCount } }
      node(id: $id) { ... on Translation { status } }
    }`),
        { id: translation },
      );
      await run(
        graphql(`mutation CoverageTranslationWrites($id: ID!) {
      updateTranslation(input: { translationId: $id, instructions: { text: "Covered" } }) { translation { status } userErrors { code } }
      runTranslation(input: { translationId: $id }) { translation { status } userErrors { code } }
    }`),
        { id: translation },
      );
      await g.platform.app.jobs.drain();
      await run(
        graphql(
          `mutation CoverageTranslationDelete($id: ID!) { deleteTranslation(input: { translationId: $id }) { deleted userErrors { code } } }`,
        ),
        { id: translation },
      );
    },
  },
  {
    name: 'OpenAPI specifications',
    groups: ['openapi', 'openapi-versions'],
    // A specification created, read with its versions and their content, updated, made public and deleted.
    async drive() {
      await run(
        graphql(`mutation CoverageCreateSpec($text: String!) {
      createOpenApiSpec(input: { organizationId: "northwind", slug: "coverage", source: { text: $text } }) { spec { id } userErrors { code } }
    }`),
        {
          text: 'openapi: 3.1.0\ninfo:\n  title: Coverage\n  version: "1"\npaths:\n  /a:\n    get:\n      tags: [a]\n      responses:\n        "200":\n          description: OK\n',
        },
      );
      await g.platform.app.jobs.drain();
      const specReads = await run(
        graphql(`query CoverageSpecReads {
      organization(id: "northwind") {
        openApiSpecs { totalCount }
        openApiSpec(slug: "coverage") { document content lastVersion { platformId createdAt } versions { nodes { platformId content } } }
      }
    }`),
      );
      const versionId = specReads.organization!.openApiSpec!.versions.nodes[0]!.platformId;
      await run(
        graphql(
          `query CoverageSpecVersion($id: ID!) { organization(id: "northwind") { openApiSpec(slug: "coverage") { version(id: $id) { createdAt } } } }`,
        ),
        { id: versionId },
      );
      await run(
        graphql(`mutation CoverageSpecWrites($text: String!) {
      updateOpenApiSpec(input: { organizationId: "northwind", slug: "coverage", source: { text: $text } }) { created userErrors { code } }
      setOpenApiSpecVisibility(input: { organizationId: "northwind", slug: "coverage", visibility: PUBLIC }) { spec { visibility } userErrors { code } }
      deleteOpenApiSpec(input: { organizationId: "northwind", slug: "coverage" }) { deleted userErrors { code } }
    }`),
        { text: 'openapi: 3.1.0\ninfo: { title: C, version: "2" }\npaths: {}\n' },
      );
      await g.platform.app.jobs.drain();
    },
  },
  {
    name: 'conversations',
    groups: ['conversations'],
    // Ingested, listed and read with their issues and clusters; a cluster muted.
    async drive() {
      await run(
        graphql(`mutation CoverageIngest {
      ingestConversations(input: { organizationId: "northwind", conversations: [{ id: "coverage-1", source: "coverage", parts: [{ role: "user", body: "The installer fails with permission denied." }] }] }) { ingested userErrors { code } }
    }`),
      );
      const conversations = await run(
        graphql(`query CoverageConversations {
      organization(id: "northwind") {
        conversations(source: "coverage") { nodes { id parts { body } } }
        conversationIssues(first: 1) { nodes { id title } }
        issuesClusters(first: 1) { nodes { id platformId } }
      }
    }`),
      );
      const coverageOrg = conversations.organization!;
      await run(
        graphql(`query CoverageConversationNodes($conversation: ID!, $issue: ID!, $cluster: ID!) {
      conversation: node(id: $conversation) { ... on Conversation { metadata { attributes } } }
      issue: node(id: $issue) { ... on ConversationIssue { impact } }
      cluster: node(id: $cluster) { ... on IssuesCluster { label } }
    }`),
        {
          conversation: coverageOrg.conversations!.nodes[0]!.id,
          issue: coverageOrg.conversationIssues!.nodes[0]!.id,
          cluster: coverageOrg.issuesClusters!.nodes[0]!.id,
        },
      );
      await run(
        graphql(`mutation CoverageMute($id: ID!) {
      mute: setIssuesClusterMuted(input: { clusterId: $id, muted: true }) { cluster { muted } userErrors { code } }
    }`),
        { id: coverageOrg.issuesClusters!.nodes[0]!.id },
      );
      await run(
        graphql(
          `mutation CoverageUnmute($id: ID!) { setIssuesClusterMuted(input: { clusterId: $id, muted: false }) { cluster { muted } userErrors { code } } }`,
        ),
        { id: coverageOrg.issuesClusters!.nodes[0]!.id },
      );
    },
  },
  {
    name: 'integrations',
    groups: ['integrations'],
    // Published, installed on the organization, a space and a site, changed, read with their
    // events, and removed.
    async drive() {
      const integrationSpace = spaces['Getting started']!;
      const coverageSite = (
        await run(
          graphql(
            `query CoverageIntegrationSite { organization(id: "northwind") { sites(first: 1) { nodes { id } } } }`,
          ),
        )
      ).organization!.sites!.nodes[0]!.id;
      await run(
        graphql(`mutation CoveragePublish {
      publishIntegration(input: { name: "coverage", organizationId: "northwind", title: "Coverage", description: "Covers.", script: "export default {}", scopes: [], visibility: PUBLIC }) { integration { name } userErrors { code } }
    }`),
      );
      const installed = await run(
        graphql(
          `mutation CoverageInstall { installIntegration(input: { integrationName: "coverage", organizationId: "northwind" }) { installation { id } userErrors { code } } }`,
        ),
      );
      const installationId = installed.installIntegration.installation!.id;
      await run(
        graphql(`mutation CoverageInstallOn($installation: ID!, $space: ID!, $site: ID!) {
      installIntegrationOnSpace(input: { installationId: $installation, spaceId: $space }) { spaceInstallation { status } userErrors { code } }
      installIntegrationOnSite(input: { installationId: $installation, siteId: $site }) { siteInstallation { status } userErrors { code } }
      updateIntegrationInstallation(input: { installationId: $installation, externalIds: ["c"] }) { installation { status } userErrors { code } }
      updateIntegrationSpaceInstallation(input: { installationId: $installation, spaceId: $space, externalIds: ["c"] }) { spaceInstallation { status } userErrors { code } }
      updateIntegrationSiteInstallation(input: { installationId: $installation, siteId: $site, externalIds: ["c"] }) { siteInstallation { status } userErrors { code } }
    }`),
        { installation: installationId, space: integrationSpace, site: coverageSite },
      );
      await g.platform.app.jobs.drain();
      const integrationReads = await run(
        graphql(`query CoverageIntegrationReads($installation: ID!, $space: ID!, $site: ID!) {
      integrations { totalCount }
      integration(name: "coverage") {
        installations { totalCount }
        spaceInstallations { totalCount }
        siteInstallations { totalCount }
        events(first: 1) { nodes { id } }
      }
      node(id: $installation) {
        ... on IntegrationInstallation {
          status
          spaceInstallations { totalCount }
          siteInstallations { totalCount }
          spaceInstallation(spaceId: $space) { status }
          siteInstallation(siteId: $site) { status }
        }
      }
    }`),
        { installation: installationId, space: integrationSpace, site: coverageSite },
      );
      await run(
        graphql(
          `query CoverageIntegrationEvent($id: ID!) { node(id: $id) { ... on IntegrationEvent { trace { message } } } }`,
        ),
        { id: integrationReads.integration!.events!.nodes[0]!.id },
      );
      await run(
        graphql(`mutation CoverageUninstall($installation: ID!, $space: ID!, $site: ID!) {
      uninstallIntegrationFromSpace(input: { installationId: $installation, spaceId: $space }) { deleted userErrors { code } }
      uninstallIntegrationFromSite(input: { installationId: $installation, siteId: $site }) { deleted userErrors { code } }
      uninstallIntegration(input: { installationId: $installation }) { deleted userErrors { code } }
      unpublishIntegration(input: { name: "coverage" }) { deleted userErrors { code } }
    }`),
        { installation: installationId, space: integrationSpace, site: coverageSite },
      );
    },
  },
];

describe('every REST operation the platform serves is reachable through GraphQL', () => {
  it('names only groups the platform serves', () => {
    // A renamed tag would leave a case checking nothing. A group without a case is fine: its own
    // domain's tests reach it, and the suite checks say so when they do not.
    const covered = new Set(CASES.flatMap((one) => one.groups));
    const groups = new Set(servedOperations(g.platform.app.registeredRoutes).map((operation) => operation.group));
    expect([...covered.difference(groups)]).toEqual([]);
  });

  for (const { name, groups, drive } of CASES) {
    it(`drives ${name} (${groups.join(', ')}) through the graph`, async () => {
      answered.length = 0;
      await drive();
      // Each operation must be reached by some test of the suite (test/suite-checks.ts); the case
      // itself reaches at least one of each of its groups, so it cannot drift to checking nothing.
      const operations = inventory().filter((operation) => groups.includes(operation.group));
      const unreachedGroups = groups.filter(
        (group) => !operations.some((operation) => operation.group === group && reached(operation, answered)),
      );
      expect(unreachedGroups).toEqual([]);
    });
  }

  it('leaves out only served operations', () => {
    const served = servedOperations(g.platform.app.registeredRoutes);
    for (const left of NOT_IN_GRAPH) {
      expect(served.some((operation) => operation.method === left.method && operation.path === left.path)).toBe(true);
    }
  });
});
