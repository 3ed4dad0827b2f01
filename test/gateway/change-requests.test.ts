import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { storeFile } from '../../src/platform/content/files.js';
import { putDocument } from '../../src/platform/content/revisions.js';
import { commitContent, commitToChangeRequest, pngImage, textDocument } from '../fixtures/content.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { createGateway } from '../../src/gateway/http/server.js';
import {
  changeRequestsInEveryState,
  clusterOf,
  ingestConversations,
  type SpaceOfChangeRequests,
} from '../fixtures/change-requests.js';
import { addOrg, addUser, type TestOrg } from '../fixtures/org.js';

let g: TestGateway;
/** Acme: ada its admin; ben creates, cy reviews, dee (Dee Alvarez) edits, finn reads. */
let acme: TestOrg;
/** Acme's public "Getting started", with a change request in every state (the reviewed one is #5). */
let gettingStarted: SpaceOfChangeRequests;
/** The issue cluster the reviewed change request of "Getting started" addresses. */
let installErrors: string;

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  acme = addOrg(g.platform, {
    id: 'acme',
    members: { ada: 'admin', ben: 'create', cy: 'review', dee: 'edit', finn: 'read' },
    users: { dee: addUser(g.platform, 'dee', { name: 'Dee Alvarez' }) },
  });
  await ingestConversations(acme, [
    { id: 'install-1', messages: ['The installer fails with permission denied, I cannot install the CLI.'] },
  ]);
  installErrors = await clusterOf(acme, 'install-1');
  gettingStarted = await changeRequestsInEveryState(acme, {
    authors: ['ben', 'dee'],
    reviewer: 'finn',
    approver: 'cy',
    cluster: installErrors,
  });
});
afterAll(() => g.destroy());

const as = (key: string) => ({ token: acme.token(key) });
/** The e-mail of a member of Acme by key. */
const email = (key: string) => acme.user(key).email;

/** Runs an operation that must succeed with no errors and no user errors; returns its data. */
async function ok<T = any>(
  query: string,
  variables: Record<string, unknown> = {},
  options: { token?: string } = {},
): Promise<T> {
  const result = await g.gql<T>(query, variables, options);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  for (const value of Object.values(result.data as Record<string, unknown>)) {
    if (value && typeof value === 'object' && 'userErrors' in value)
      expect((value as { userErrors: unknown[] }).userErrors).toEqual([]);
  }
  return result.data as T;
}

const CREATE_SPACE = `mutation ($title: String!) {
  createSpace(input: { organizationId: "acme", title: $title }) { space { id platformId } }
}`;
const SET_NO_RULES = `mutation ($id: ID!) { updateSpace(input: { spaceId: $id, mergeRules: { type: NONE } }) { space { id } } }`;
const CREATE_CR = `mutation ($spaceId: ID!, $subject: String) {
  createChangeRequest(input: { spaceId: $spaceId, subject: $subject }) { changeRequest { id platformId number status } userErrors { message code field } }
}`;
const EDIT = `mutation ($id: ID!, $changes: [ContentChangeInput!]!) {
  editChangeRequestContent(input: { changeRequestId: $id, changes: $changes }) {
    changeRequest { id revision { platformId } }
    edits { kind pageId ref page { title } }
    userErrors { message code field }
  }
}`;
const MERGE = `mutation ($id: ID!) {
  mergeChangeRequest(input: { changeRequestId: $id }) {
    result revision { platformId } changeRequest { status outdated }
    conflicts { pageId blockKey property page { title } }
    userErrors { message code field }
  }
}`;

/** A fresh space (merge rules NONE) whose live content has the page "Guide" of three paragraphs. */
async function freshSpace(title: string): Promise<{ spaceId: string; spaceGlobalId: string; pageId: string }> {
  const { createSpace } = await ok(CREATE_SPACE, { title });
  await ok(SET_NO_RULES, { id: createSpace.space.id });
  const { createChangeRequest } = await ok(CREATE_CR, { spaceId: createSpace.space.id, subject: 'Seed' });
  const { editChangeRequestContent } = await ok(EDIT, {
    id: createChangeRequest.changeRequest.id,
    changes: [{ insertPage: { markdown: '# Guide\n\nAlpha paragraph.\n\nBeta paragraph.\n\nGamma paragraph.\n' } }],
  });
  await ok(MERGE, { id: createChangeRequest.changeRequest.id });
  return {
    spaceId: createSpace.space.platformId,
    spaceGlobalId: createSpace.space.id,
    pageId: editChangeRequestContent.edits[0].pageId,
  };
}

const rewrite = (pageId: string, beta: string) => [
  { updatePage: { pageId, markdown: `# Guide\n\nAlpha paragraph.\n\n${beta}\n\nGamma paragraph.\n` } },
];

describe('change requests through the graph', () => {
  it('runs the whole cycle: create, edit with markdown, request a review, approve, merge; the page is live and found by search', async () => {
    const { spaceId, spaceGlobalId } = await freshSpace('GraphQL cycle');
    const created = await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Add the glossary' }, as('dee'));
    const cr = created.createChangeRequest.changeRequest;
    expect(cr).toMatchObject({ number: 2, status: 'DRAFT' });

    const edited = await ok(
      EDIT,
      {
        id: cr.id,
        changes: [
          {
            insertPage: {
              ref: 'glossary',
              markdown: '---\ndescription: Terms\n---\n# Glossary\n\nA quasiperiodic tiling never repeats.\n',
            },
          },
        ],
      },
      as('dee'),
    );
    expect(edited.editChangeRequestContent.edits).toEqual([
      { kind: 'CREATED_PAGE', pageId: expect.any(String), ref: 'glossary', page: { title: 'Glossary' } },
    ]);

    const cy = await ok(`query { viewer { platformId } }`, {}, as('cy'));
    const requested = await ok(
      `mutation ($id: ID!, $users: [ID!]!) {
        requestChangeRequestReviewers(input: { changeRequestId: $id, userIds: $users }) {
          requestedReviewers { user { platformId } requestedBy { platformId } }
          changeRequest { status }
          userErrors { message }
        }
      }`,
      { id: cr.id, users: [cy.viewer.platformId] },
      as('dee'),
    );
    expect(requested.requestChangeRequestReviewers.changeRequest.status).toBe('OPEN');
    const reviewed = await ok(
      `mutation ($id: ID!) {
        submitChangeRequestReview(input: { changeRequestId: $id, status: APPROVED, comment: { text: "Nice" } }) {
          review { id platformId status reviewer { platformId } comment { text } }
          userErrors { message }
        }
      }`,
      { id: cr.id },
      as('cy'),
    );
    const review = reviewed.submitChangeRequestReview.review;
    expect(review).toEqual({
      id: expect.any(String),
      platformId: expect.any(String),
      status: 'APPROVED',
      reviewer: { platformId: cy.viewer.platformId },
      comment: { text: 'Nice' },
    });
    // Its global ID carries its space and change request: refetched in one request, linked back for free.
    const refetched = await g.gql(
      `query ($id: ID!) { node(id: $id) { ... on ChangeRequestReview { status comment { text } changeRequest { id } } } }`,
      { id: review.id },
    );
    expect(refetched.data).toEqual({
      node: { status: 'APPROVED', comment: { text: 'Nice' }, changeRequest: { id: cr.id } },
    });
    expect(refetched.upstreamRequests).toEqual([
      `GET /v1/spaces/${spaceId}/change-requests/${cr.platformId}/reviews/${review.platformId}`,
    ]);

    // Merged, then read in the same request: the new content, nothing stale.
    const merged = await ok(
      `mutation ($id: ID!, $space: ID!) {
        mergeChangeRequest(input: { changeRequestId: $id }) {
          result
          changeRequest { status mergedBy { platformId } revisionMerged { platformId } }
          userErrors { message }
        }
        after: updateSpace(input: { spaceId: $space, title: "GraphQL cycle" }) {
          space { content { pages { title } } search(query: "quasiperiodic") { nodes { title } } }
        }
      }`,
      { id: cr.id, space: spaceGlobalId },
      as('cy'),
    );
    expect(merged.mergeChangeRequest).toMatchObject({
      result: 'MERGED',
      changeRequest: { status: 'MERGED', mergedBy: { platformId: cy.viewer.platformId } },
    });
    expect(merged.after.space.content.pages.map((page: { title: string }) => page.title)).toEqual([
      'Guide',
      'Glossary',
    ]);
    expect(merged.after.space.search.nodes.map((page: { title: string }) => page.title)).toEqual(['Glossary']);

    const read = await ok(
      `query ($space: ID!) {
        space(id: $space) {
          counts { changeRequests }
          changeRequest(id: "2") {
            subject status outdated
            createdBy { email }
            revisionInitial { platformId }
            reviews { totalCount nodes { status } }
            contributors { nodes { kind user { email } } }
            changes { changes { __typename ... on PageCreatedChange { page { title } } } }
            content { pages { title } }
          }
        }
      }`,
      { space: spaceId },
    );
    expect(read.space.changeRequest).toMatchObject({
      subject: 'Add the glossary',
      status: 'MERGED',
      outdated: false,
      createdBy: { email: email('dee') },
      reviews: { totalCount: 1, nodes: [{ status: 'APPROVED' }] },
      changes: { changes: [{ __typename: 'PageCreatedChange', page: { title: 'Glossary' } }] },
    });
    expect(read.space.changeRequest.contributors.nodes.map((c: { kind: string }) => c.kind).sort()).toEqual([
      'COMMENT',
      'EDIT',
    ]);
  });

  it('links the file and the reusable content of a conflict, free for their ids', async () => {
    const { createSpace } = await ok(CREATE_SPACE, { title: 'GraphQL file conflict' });
    await ok(SET_NO_RULES, { id: createSpace.space.id });
    const { db } = g.platform;
    const space = createSpace.space.platformId;
    const documentId = putDocument(db, space, textDocument([[0, 'Shared words.']]));
    const file = storeFile(db, {
      id: 'file-terms',
      name: 'terms.txt',
      contentType: 'text/plain',
      bytes: Buffer.from('Terms\n'),
    });
    const content = (fileName: string, title: string) => ({
      pages: [],
      files: [{ ...file, name: fileName }],
      reusableContents: [{ id: 'rc-terms', title, documentId }],
      variables: {},
    });
    commitContent(db, space, content('terms.txt', 'Terms'));
    const request = (await ok(CREATE_CR, { spaceId: createSpace.space.id, subject: 'Rename' })).createChangeRequest
      .changeRequest;
    const requestRevision = commitToChangeRequest(db, request.platformId, content('request.txt', 'Request terms'));
    commitContent(db, space, content('live.txt', 'Live terms'));

    const keysOnly = await g.gql<any>(
      `mutation ($id: ID!) { mergeChangeRequest(input: { changeRequestId: $id }) {
        result conflicts { fileId file { id platformId } reusableContentId reusableContent { id } property } } }`,
      { id: request.id },
    );
    expect(keysOnly.errors).toBeUndefined();
    const key = `${space}/${requestRevision}`;
    expect(keysOnly.data.mergeChangeRequest).toEqual({
      result: 'CONFLICTS',
      conflicts: [
        {
          fileId: 'file-terms',
          file: { id: encodeGlobalID('File', `${key}/file-terms`), platformId: 'file-terms' },
          reusableContentId: null,
          reusableContent: null,
          property: 'name',
        },
        {
          fileId: null,
          file: null,
          reusableContentId: 'rc-terms',
          reusableContent: { id: encodeGlobalID('ReusableContent', `${key}/rc-terms`) },
          property: 'title',
        },
      ],
    });
    // The merge alone: the links' ids come from the conflict.
    expect(keysOnly.upstreamRequests.filter((request) => request.startsWith('GET'))).toEqual([]);

    const read = await ok(
      `mutation ($id: ID!) { mergeChangeRequest(input: { changeRequestId: $id }) {
        conflicts { file { name } reusableContent { title } } } }`,
      { id: request.id },
    );
    // Both as the change request has them.
    expect(read.mergeChangeRequest.conflicts).toEqual([
      { file: { name: 'request.txt' }, reusableContent: null },
      { file: null, reusableContent: { title: 'Request terms' } },
    ]);
  });

  it('reports a conflict and changes nothing live; updating from main puts both versions in; once resolved it merges', async () => {
    const { spaceGlobalId, pageId } = await freshSpace('GraphQL conflict');
    const first = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'First' })).createChangeRequest.changeRequest;
    const second = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Second' })).createChangeRequest
      .changeRequest;
    await ok(EDIT, { id: first.id, changes: rewrite(pageId, 'Beta by the first.') });
    await ok(EDIT, { id: second.id, changes: rewrite(pageId, 'Beta by the second.') });
    expect((await ok(MERGE, { id: first.id })).mergeChangeRequest.result).toBe('MERGED');
    const live = async () =>
      (
        await ok(
          `query ($id: ID!) { space(id: $id) { content { page(id: "${pageId}") { ... on DocumentPage { document { text } } } } } }`,
          { id: spaceGlobalId },
        )
      ).space.content.page.document.text;
    const before = await live();

    const conflict = await ok(MERGE, { id: second.id });
    expect(conflict.mergeChangeRequest).toMatchObject({
      result: 'CONFLICTS',
      changeRequest: { status: 'DRAFT', outdated: true },
      conflicts: [{ pageId, blockKey: expect.any(String), property: null, page: { title: 'Guide' } }],
    });
    expect(await live()).toBe(before);

    const updated = await ok(
      `mutation ($id: ID!) {
        updateChangeRequestFromMain(input: { changeRequestId: $id }) {
          result changeRequest { outdated content { page(id: "${pageId}") { ... on DocumentPage { document { text } } } } }
          conflicts { pageId blockKey }
          userErrors { message }
        }
      }`,
      { id: second.id },
    );
    expect(updated.updateChangeRequestFromMain).toMatchObject({
      result: 'CONFLICTS',
      changeRequest: { outdated: false },
    });
    expect(updated.updateChangeRequestFromMain.changeRequest.content.page.document.text).toBe(
      'Alpha paragraph.\nBeta by the second.\nBeta by the first.\nGamma paragraph.',
    );
    await ok(EDIT, { id: second.id, changes: rewrite(pageId, 'Beta by both.') });
    expect((await ok(MERGE, { id: second.id })).mergeChangeRequest.result).toBe('MERGED');
    expect(await live()).toBe('Alpha paragraph.\nBeta by both.\nGamma paragraph.');
  });

  it('names the input in its user errors as the client wrote it', async () => {
    const answer = await g.gql(
      `mutation { mergeChangeRequest(input: { changeRequestId: "999" }) { result userErrors { message code field } } }`,
    );
    expect(answer.data.mergeChangeRequest.userErrors).toEqual([
      {
        message: 'spaceId: is required when changeRequestId is not a global ID',
        code: 'BAD_USER_INPUT',
        field: ['spaceId'],
      },
    ]);
    expect(answer.upstream).toBe(0);
  });

  it('answers a broken merge rule with a PRECONDITION_FAILED user error naming it', async () => {
    const { spaceGlobalId } = await freshSpace('GraphQL rules');
    const cy = await ok(`query { viewer { platformId } }`, {}, as('cy'));
    await ok(
      `mutation ($id: ID!, $cy: ID!) {
      updateSpace(input: { spaceId: $id, mergeRules: { type: RULES, requiredReviewers: [$cy] } }) { space { id } }
    }`,
      { id: spaceGlobalId, cy: cy.viewer.platformId },
    );
    const cr = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Needs review' }, as('dee'))).createChangeRequest
      .changeRequest;
    const refused = await g.gql(MERGE, { id: cr.id }, as('cy'));
    expect(refused.errors).toBeUndefined();
    expect(refused.data!.mergeChangeRequest).toMatchObject({
      result: null,
      userErrors: [{ code: 'PRECONDITION_FAILED', message: expect.stringMatching(/require_specific_reviewers/) }],
    });
  });

  it('rejects a batch with one bad change as a user error naming the change, and writes nothing', async () => {
    const { spaceGlobalId, pageId } = await freshSpace('GraphQL atomic');
    const cr = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Atomic' })).createChangeRequest.changeRequest;
    const result = await g.gql(EDIT, {
      id: cr.id,
      changes: [{ updatePage: { pageId, title: 'Renamed' } }, { deletePage: { pageId: 'no-such-page' } }],
    });
    expect(result.errors).toBeUndefined();
    // Named as the client wrote it: the second change's deletePage.pageId, not the REST body's changes.1.page.
    expect(result.data.editChangeRequestContent).toMatchObject({
      changeRequest: null,
      userErrors: [{ code: 'BAD_USER_INPUT', field: ['changes', '1', 'deletePage', 'pageId'] }],
    });
    expect(result.data.editChangeRequestContent.userErrors[0].message).toContain(
      'input field "changes.1.deletePage.pageId"',
    );
    const twoKinds = await g.gql(EDIT, { id: cr.id, changes: [{ deletePage: { pageId }, updatePage: { pageId } }] });
    expect(twoKinds.errors?.[0]?.message).toMatch(/exactly one/i);
    const page = await ok(
      `query ($id: ID!) { node(id: $id) { ... on ChangeRequest { content { page(id: "${pageId}") { title } } } } }`,
      { id: cr.id },
    );
    expect(page.node.content.page.title).toBe('Guide');
  });

  it('takes a page of 25,000 paragraphs, answers one past the markdown budget with a user error naming it, and keeps answering', async () => {
    const { spaceGlobalId } = await freshSpace('GraphQL many paragraphs');
    const cr = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Many' })).createChangeRequest.changeRequest;
    // A gateway that waits for the platform longer than the default 10 s: a loaded test machine
    // may take that long over such a page.
    const patient = createGateway({
      upstreamUrl: g.platform.url,
      clientOptions: { timeoutMs: 60_000 },
      graphiql: { enabled: false },
    });
    const gql = async (query: string, variables: Record<string, unknown> = {}) => {
      const response = await patient.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${g.platform.adminToken}` },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as { data: any; errors?: unknown[] };
    };
    try {
      const inserted = await gql(EDIT, {
        id: cr.id,
        changes: [{ insertPage: { title: 'Long', markdown: 'a\n\n'.repeat(25_000) } }],
      });
      expect(inserted.errors).toBeUndefined();
      expect(inserted.data.editChangeRequestContent).toMatchObject({
        edits: [{ kind: 'CREATED_PAGE', page: { title: 'Long' } }],
        userErrors: [],
      });
      const refused = await gql(
        EDIT.replace('userErrors { message code field }', 'userErrors { message code field limit value max }'),
        {
          id: cr.id,
          changes: [{ insertPage: { title: 'Longer', markdown: 'a\n\n'.repeat(30_000) } }],
        },
      );
      expect(refused.errors).toBeUndefined();
      expect(refused.data.editChangeRequestContent).toMatchObject({
        changeRequest: null,
        userErrors: [
          { code: 'BAD_USER_INPUT', message: expect.stringMatching(/more than 50000 nodes .*the limit is 50000/) },
        ],
      });
      // The budget is named for programs too, as the platform named it.
      const [budget] = refused.data.editChangeRequestContent.userErrors;
      expect(budget).toMatchObject({ limit: 'markdownNodes', max: 50_000 });
      expect(budget.value).toBeGreaterThan(50_000);
    } finally {
      await patient.close();
    }
    const pages = await ok(
      `query ($id: ID!) { node(id: $id) { ... on ChangeRequest { content { pages { title } } } } }`,
      { id: cr.id },
    );
    expect(pages.node.content.pages.map((page: { title: string }) => page.title)).toEqual(['Guide', 'Long']);
    expect((await ok('{ viewer { id } }')).viewer.id).toEqual(expect.any(String));
  }, 120_000);

  it('lists change requests of a space and of an organization with one connection type and filters', async () => {
    const spaceId = gettingStarted.spaceId;
    const data = await ok(
      `query ($id: ID!) {
        space(id: $id) {
          open: changeRequests { totalCount nodes { number outdated conversationsIssuesClusterId } }
          drafts: changeRequests(status: DRAFT) { totalCount }
          merged: changeRequests(status: MERGED, orderBy: CREATED_AT) { nodes { mergedAt revisionMerged { platformId } } }
        }
        organization(id: "acme") { changeRequests(status: OPEN) { totalCount nodes { space { title } } } }
      }`,
      { id: spaceId },
    );
    // The outdated, the conflicting and the reviewed one are open; one is a draft.
    expect(data.space.open.totalCount).toBe(3);
    expect(data.space.open.nodes.filter((node: { outdated: boolean }) => node.outdated)).toHaveLength(2);
    expect(data.space.drafts.totalCount).toBe(1);
    expect(data.space.merged.nodes[0].revisionMerged.platformId).toEqual(expect.any(String));
    expect(data.organization.changeRequests.totalCount).toBeGreaterThanOrEqual(data.space.open.totalCount);
  });
});

/** The paths the platform received for the last operation, with `spaceId` written `S`. */
const pathsOf = (result: { upstreamRequests: string[] }, spaceId: string) =>
  result.upstreamRequests.map((request) => request.split(spaceId).join('S'));

describe('upstream requests of change request reads', () => {
  it('lists the change requests of a space in two requests: createdBy is embedded, the space id free', async () => {
    const spaceId = gettingStarted.spaceId;
    const result = await g.gql(
      `query ($id: ID!) { space(id: $id) { id changeRequests { nodes { number subject createdBy { displayName } space { id } } } } }`,
      { id: spaceId },
    );
    expect(result.errors).toBeUndefined();
    const { space } = result.data;
    // The open ones: the outdated one, the conflicting one, the reviewed one (newest first).
    expect(space.changeRequests.nodes).toEqual([
      {
        number: 5,
        subject: 'Explain the most common install errors',
        createdBy: { displayName: 'Dee Alvarez' },
        space: { id: space.id },
      },
      {
        number: 4,
        subject: 'Shorter quickstart introduction',
        createdBy: { displayName: 'Dee Alvarez' },
        space: { id: space.id },
      },
      {
        number: 3,
        subject: 'Document the log level setting',
        createdBy: { displayName: 'Dee Alvarez' },
        space: { id: space.id },
      },
    ]);
    // The space (`space(id:)` reads it), then the list: each change request embeds its creator,
    // and a link that asks only the key of its space reads nothing.
    expect(pathsOf(result, spaceId)).toEqual(['GET /v1/spaces/S', 'GET /v1/spaces/S/change-requests?limit=50']);
    expect(result.upstream).toBe(2);
  });

  it("reads a change request's page titles in three requests: the space, the change request, its content's tree", async () => {
    const spaceId = gettingStarted.spaceId;
    const result = await g.gql(
      `query ($id: ID!) { space(id: $id) { changeRequest(id: "1") { content { pages { title } } } } }`,
      { id: spaceId },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data.space.changeRequest.content.pages.map((page: { title: string }) => page.title)).toContain(
      'Quickstart',
    );
    const { platformId } = (
      await ok(`query ($id: ID!) { space(id: $id) { changeRequest(id: "1") { platformId } } }`, { id: spaceId })
    ).space.changeRequest;
    // Asked only for its pages, the content reads its tree alone (not the whole revision), through
    // the change request's `…/content` routes.
    expect(pathsOf(result, spaceId)).toEqual([
      'GET /v1/spaces/S',
      'GET /v1/spaces/S/change-requests/1',
      `GET /v1/spaces/S/change-requests/${platformId}/content/pages`,
    ]);
    expect(result.upstream).toBe(3);
  });

  it('hands out the revisions of a change request as links: asked only their keys, they cost nothing', async () => {
    const spaceId = gettingStarted.spaceId;
    const listed = await ok(
      `query ($id: ID!) { space(id: $id) { changeRequests(status: MERGED) { nodes { id platformId } } } }`,
      { id: spaceId },
    );
    const merged = listed.space.changeRequests.nodes[0];
    const result = await g.gql(
      `query ($id: ID!) {
        node(id: $id) {
          ... on ChangeRequest { revision { id platformId } revisionInitial { platformId } revisionMerged { platformId } revisionMergedAncestor { platformId } }
        }
      }`,
      { id: merged.id },
    );
    expect(result.errors).toBeUndefined();
    const node = result.data.node;
    expect(node).toEqual({
      revision: { id: expect.any(String), platformId: expect.any(String) },
      revisionInitial: { platformId: expect.any(String) },
      revisionMerged: { platformId: expect.any(String) },
      revisionMergedAncestor: null,
    });
    expect(
      new Set([node.revision.platformId, node.revisionInitial.platformId, node.revisionMerged.platformId]).size,
    ).toBe(3);
    // The change request only: every revision is its key.
    expect(pathsOf(result, spaceId)).toEqual([`GET /v1/spaces/S/change-requests/${merged.platformId}`]);
    expect(result.upstream).toBe(1);
  });

  it('refetches a change request by its global ID in one request', async () => {
    const spaceId = gettingStarted.spaceId;
    const listed = await ok(`query ($id: ID!) { space(id: $id) { changeRequest(id: "5") { id platformId } } }`, {
      id: spaceId,
    });
    const result = await g.gql(`query ($id: ID!) { node(id: $id) { ... on ChangeRequest { subject } } }`, {
      id: listed.space.changeRequest.id,
    });
    expect(result.errors).toBeUndefined();
    expect(result.data.node).toEqual({ subject: 'Explain the most common install errors' });
    // The global ID carries the space: no read of the space first.
    expect(pathsOf(result, spaceId)).toEqual([
      `GET /v1/spaces/S/change-requests/${listed.space.changeRequest.platformId}`,
    ]);
    expect(result.upstream).toBe(1);
  });

  it('reads the changes of a change request in two requests more: the changes and its page tree', async () => {
    const spaceId = gettingStarted.spaceId;
    const listed = await ok(
      `query ($id: ID!) { space(id: $id) { changeRequest(id: "5") { id platformId revision { platformId } } } }`,
      { id: spaceId },
    );
    const { id, platformId, revision } = listed.space.changeRequest;
    const result = await g.gql(
      `query ($id: ID!) {
        node(id: $id) {
          ... on ChangeRequest {
            changes {
              more
              changes { __typename ... on PageCreatedChange { page { title parent { title } } } }
            }
          }
        }
      }`,
      { id },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data.node.changes).toEqual({
      more: 0,
      changes: [
        {
          __typename: 'PageCreatedChange',
          page: { title: 'Common install errors', parent: { title: 'Installation' } },
        },
      ],
    });
    // The change request (node), then together its changes and its page tree (the pages of the
    // changes and their parents are in it).
    const [first, ...together] = pathsOf(result, spaceId);
    expect(first).toBe(`GET /v1/spaces/S/change-requests/${platformId}`);
    expect(together.sort()).toEqual([
      `GET /v1/spaces/S/change-requests/${platformId}/changes?limit=10`,
      `GET /v1/spaces/S/revisions/${revision.platformId}/pages`,
    ]);
    expect(result.upstream).toBe(3);
    // Asked only how many, or of what kind, the changes need no tree.
    const kinds = await g.gql(
      `query ($id: ID!) { node(id: $id) { ... on ChangeRequest { changes { more changes { __typename } } } } }`,
      { id },
    );
    expect(kinds.data.node.changes).toEqual({ more: 0, changes: [{ __typename: 'PageCreatedChange' }] });
    expect(kinds.upstream).toBe(2);
  });

  it('reads the space of a list of change requests once, however many there are', async () => {
    const { spaceGlobalId, spaceId } = await freshSpace('Counted requests');
    const N = 4;
    for (let index = 1; index <= N; index++)
      await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: `Request ${index}` }, as('dee'));
    const node = { createdBy: { displayName: 'Dee Alvarez' }, space: { title: 'Counted requests' } };

    const ofSpace = await g.gql(
      `query ($id: ID!) { space(id: $id) { changeRequests(status: DRAFT) { nodes { createdBy { displayName } space { title } } } } }`,
      { id: spaceGlobalId },
    );
    expect(ofSpace.errors).toBeUndefined();
    expect(ofSpace.data.space.changeRequests.nodes).toEqual(Array.from({ length: N }, () => node));
    // The space read by `space(id:)` is the one each change request links to: two requests for N.
    expect(pathsOf(ofSpace, spaceId)).toEqual([
      'GET /v1/spaces/S',
      'GET /v1/spaces/S/change-requests?limit=50&status=draft',
    ]);
    expect(ofSpace.upstream).toBe(2);

    const ofOrganization = await g.gql(
      `query { organization(id: "acme") { changeRequests(status: DRAFT) { nodes { createdBy { displayName } space { id title } } } } }`,
    );
    expect(ofOrganization.errors).toBeUndefined();
    const nodes = ofOrganization.data.organization.changeRequests.nodes as Array<{
      space: { id: string; title: string };
    }>;
    expect(nodes.filter((item) => item.space.id === spaceGlobalId)).toHaveLength(N);
    const spaces = new Set(nodes.map((item) => item.space.id));
    expect(nodes.length).toBeGreaterThan(spaces.size);
    // The organization, the list, then each distinct space once (not once per change request).
    expect(ofOrganization.upstream).toBe(2 + spaces.size);
    expect(ofOrganization.upstreamRequests.filter((request) => request === `GET /v1/spaces/${spaceId}`)).toHaveLength(
      1,
    );
  });
});

/** The titles of a page tree, nested pages after their parent's title. */
type Titled = { title: string; children?: Titled[] };
const titles = (pages: Titled[]): unknown[] =>
  pages.map((page) => (page.children && page.children.length > 0 ? [page.title, titles(page.children)] : page.title));

const TREE = `pages { title children { title children { title } } }`;

describe('more change request behaviour through the graph', () => {
  it('applies a template to the live content, and to a change request only', async () => {
    const { spaceGlobalId } = await freshSpace('GraphQL templates');
    const live = await ok(
      `mutation ($s: ID!) {
        applySpaceTemplate(input: { spaceId: $s, templateId: "changelog" }) {
          space { title content { ${TREE} } }
          changeRequest { id }
          userErrors { message code field }
        }
      }`,
      { s: spaceGlobalId },
    );
    expect(live.applySpaceTemplate.changeRequest).toBeNull();
    expect(live.applySpaceTemplate.space.title).toBe('GraphQL templates');
    expect(titles(live.applySpaceTemplate.space.content.pages)).toEqual([
      'Guide',
      ['Changelog', ['Version 1.1', 'Version 1.0']],
    ]);

    const cr = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'API docs' })).createChangeRequest.changeRequest;
    const onRequest = await ok(
      `mutation ($s: ID!, $cr: ID!) {
        applySpaceTemplate(input: { spaceId: $s, changeRequestId: $cr, templateId: "api-reference" }) {
          changeRequest { id number content { ${TREE} } }
          userErrors { message code field }
        }
      }`,
      { s: spaceGlobalId, cr: cr.id },
    );
    expect(onRequest.applySpaceTemplate.changeRequest).toMatchObject({ id: cr.id, number: cr.number });
    expect(titles(onRequest.applySpaceTemplate.changeRequest.content.pages)).toEqual([
      'Guide',
      ['Changelog', ['Version 1.1', 'Version 1.0']],
      'API overview',
      'Authentication',
      'Errors',
      ['Resources', ['Users']],
    ]);
    // The live content is as the first template left it.
    const after = await ok(`query ($s: ID!) { space(id: $s) { content { ${TREE} } } }`, { s: spaceGlobalId });
    expect(titles(after.space.content.pages)).toEqual(['Guide', ['Changelog', ['Version 1.1', 'Version 1.0']]]);
  });

  it('gives a PDF of the content of a change request at a signed URL that works for about one hour', async () => {
    const { spaceGlobalId, pageId } = await freshSpace('GraphQL PDF');
    const cr = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Printed' })).createChangeRequest.changeRequest;
    await ok(EDIT, { id: cr.id, changes: rewrite(pageId, 'Beta, as the change request has it.') });
    const asked = Date.now();
    const data = await ok(
      `query ($id: ID!, $page: ID!) {
        node(id: $id) {
          ... on ChangeRequest { revision { platformId } pdf { url expiresAt } one: pdf(pageId: $page, only: true) { url } }
        }
      }`,
      { id: cr.id, page: pageId },
    );
    const answered = Date.now();
    const { revision, pdf, one } = data.node;
    const url = new URL(pdf.url);
    // The change request's revision is printed, not the live content.
    expect(url.searchParams.get('revision')).toBe(revision.platformId);
    expect(new URL(one.url).searchParams.get('page')).toBe(pageId);
    const expiresAt = Date.parse(pdf.expiresAt);
    expect(expiresAt).toBe(Number(url.searchParams.get('expires')) * 1000);
    expect(expiresAt).toBeGreaterThanOrEqual(asked + 3600_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(answered + 3600_000);

    const download = await fetch(pdf.url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await download.arrayBuffer())
        .subarray(0, 5)
        .toString('latin1'),
    ).toBe('%PDF-');
  });

  it('withdraws a review request: deleted, then nothing left to delete', async () => {
    const { spaceGlobalId } = await freshSpace('GraphQL reviewers');
    const cr = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Reviewed' })).createChangeRequest.changeRequest;
    const cy = acme.user('cy').id;
    const requested = await ok(
      `mutation ($id: ID!, $cy: ID!) {
        requestChangeRequestReviewers(input: { changeRequestId: $id, userIds: [$cy] }) {
          changeRequest { status requestedReviewers { totalCount nodes { user { email } } } }
          userErrors { message }
        }
      }`,
      { id: cr.id, cy },
    );
    expect(requested.requestChangeRequestReviewers.changeRequest).toEqual({
      status: 'OPEN',
      requestedReviewers: { totalCount: 1, nodes: [{ user: { email: email('cy') } }] },
    });
    const REMOVE = `mutation ($id: ID!, $cy: ID!) {
      removeChangeRequestReviewer(input: { changeRequestId: $id, userId: $cy }) {
        deleted deletedId userErrors { message code field }
      }
    }`;
    // A review request is no object of the graph: nothing for a client's cache to drop.
    expect((await ok(REMOVE, { id: cr.id, cy })).removeChangeRequestReviewer).toEqual({
      deleted: true,
      deletedId: null,
      userErrors: [],
    });
    expect((await ok(REMOVE, { id: cr.id, cy })).removeChangeRequestReviewer).toEqual({
      deleted: false,
      deletedId: null,
      userErrors: [],
    });
    const read = await ok(
      `query ($id: ID!) { node(id: $id) { ... on ChangeRequest { requestedReviewers { totalCount } } } }`,
      { id: cr.id },
    );
    expect(read.node.requestedReviewers.totalCount).toBe(0);
  });

  it('inserts a file from base64 and a page showing it by its batch ref', async () => {
    const { spaceGlobalId } = await freshSpace('GraphQL files');
    const cr = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Brand' })).createChangeRequest.changeRequest;
    const png = pngImage(5, 2);
    const edited = await ok(
      `mutation ($id: ID!, $changes: [ContentChangeInput!]!) {
        editChangeRequestContent(input: { changeRequestId: $id, changes: $changes }) {
          insertedFiles { platformId name contentType size dimensions { width height } downloadURL }
          edits { kind ref pageId page { title ... on DocumentPage { document { json } } } }
          userErrors { message code field }
        }
      }`,
      {
        id: cr.id,
        changes: [
          {
            insertFiles: {
              files: [{ name: 'logo.png', ref: 'logo', contentType: 'image/png', base64: png.toString('base64') }],
            },
          },
          { insertPage: { ref: 'brand', markdown: '# Brand\n\nOur logo:\n\n![logo](./logo)\n' } },
        ],
      },
    );
    const { insertedFiles, edits } = edited.editChangeRequestContent;
    expect(insertedFiles).toEqual([
      {
        platformId: expect.any(String),
        name: 'logo.png',
        contentType: 'image/png',
        size: png.length,
        dimensions: { width: 5, height: 2 },
        downloadURL: expect.any(String),
      },
    ]);
    const file = insertedFiles[0];
    expect(Buffer.from(await (await fetch(file.downloadURL)).arrayBuffer()).equals(png)).toBe(true);
    expect(edits).toEqual([
      {
        kind: 'CREATED_PAGE',
        ref: 'brand',
        pageId: expect.any(String),
        page: { title: 'Brand', document: { json: expect.any(Object) } },
      },
    ]);
    // The ref became a reference to the inserted file.
    const refs: unknown[] = [];
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(collect);
      else if (node && typeof node === 'object') {
        const ref = (node as { data?: { ref?: unknown } }).data?.ref;
        if (ref) refs.push(ref);
        Object.values(node).forEach(collect);
      }
    };
    collect(edits[0].page.document.json);
    expect(refs).toEqual([{ kind: 'file', file: file.platformId }]);
    // The content of the change request has the file; the live content does not.
    const read = await ok(
      `query ($id: ID!, $space: ID!, $file: ID!) {
        node(id: $id) { ... on ChangeRequest { content { file(id: $file) { name } } } }
        space(id: $space) { content { files { totalCount } } }
      }`,
      { id: cr.id, space: spaceGlobalId, file: file.platformId },
    );
    expect(read).toEqual({
      node: { content: { file: { name: 'logo.png' } } },
      space: { content: { files: { totalCount: 0 } } },
    });
  });

  it('reverts some blocks of a page to the content the change request is based on', async () => {
    const { spaceGlobalId, pageId } = await freshSpace('GraphQL revert');
    const PAGE = `query ($id: ID!) { node(id: $id) { ... on ChangeRequest { content { page(id: "${pageId}") { ... on DocumentPage { document { text json } } } } } } }`;
    const cr = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Revert' })).createChangeRequest.changeRequest;
    const before = (await ok(PAGE, { id: cr.id })).node.content.page.document;
    const keys = (before.json as { nodes: Array<{ key: string }> }).nodes.map((node) => node.key);
    expect(keys).toHaveLength(3);
    await ok(EDIT, {
      id: cr.id,
      changes: [
        { updatePage: { pageId, markdown: '# Guide\n\nAlpha, edited.\n\nBeta, edited.\n\nGamma paragraph.\n' } },
      ],
    });
    expect((await ok(PAGE, { id: cr.id })).node.content.page.document.text).toBe(
      'Alpha, edited.\nBeta, edited.\nGamma paragraph.',
    );

    const reverted = await ok(
      `mutation ($id: ID!, $page: ID!, $blocks: [String!]) {
        editChangeRequestContent(input: { changeRequestId: $id, changes: [{ revertPage: { pageId: $page, blocks: $blocks } }] }) {
          edits { kind pageId page { ... on DocumentPage { document { text } } } }
          userErrors { message code field }
        }
      }`,
      { id: cr.id, page: pageId, blocks: [keys[1]] },
    );
    expect(reverted.editChangeRequestContent.edits).toEqual([
      {
        kind: 'UPDATED_PAGE',
        pageId,
        page: { document: { text: 'Alpha, edited.\nBeta paragraph.\nGamma paragraph.' } },
      },
    ]);
  });

  it('archives and reopens a change request, and refuses MERGED as a user error', async () => {
    const { spaceGlobalId } = await freshSpace('GraphQL status');
    const cr = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Status' })).createChangeRequest.changeRequest;
    const UPDATE = `mutation ($id: ID!, $status: ChangeRequestStatus!) {
      updateChangeRequest(input: { changeRequestId: $id, status: $status }) { changeRequest { id status } userErrors { message code field } }
    }`;
    expect((await ok(UPDATE, { id: cr.id, status: 'ARCHIVED' })).updateChangeRequest.changeRequest).toEqual({
      id: cr.id,
      status: 'ARCHIVED',
    });
    const archived = await ok(
      `query ($s: ID!) { space(id: $s) { changeRequests(status: ARCHIVED) { nodes { id } } } }`,
      { s: spaceGlobalId },
    );
    expect(archived.space.changeRequests.nodes).toEqual([{ id: cr.id }]);
    expect((await ok(UPDATE, { id: cr.id, status: 'OPEN' })).updateChangeRequest.changeRequest).toEqual({
      id: cr.id,
      status: 'OPEN',
    });

    const refused = await g.gql(UPDATE, { id: cr.id, status: 'MERGED' });
    expect(refused.errors).toBeUndefined();
    expect(refused.data.updateChangeRequest).toEqual({
      changeRequest: null,
      userErrors: [{ message: expect.stringMatching(/mergeChangeRequest/), code: 'BAD_USER_INPUT', field: ['status'] }],
    });
    // Refused before the platform is asked: it is still open.
    expect(refused.upstream).toBe(0);
    const read = await ok(`query ($id: ID!) { node(id: $id) { ... on ChangeRequest { status mergedAt } } }`, {
      id: cr.id,
    });
    expect(read.node).toEqual({ status: 'OPEN', mergedAt: null });
  });

  it('reads a change request by its global ID through node(id:)', async () => {
    const spaceId = gettingStarted.spaceId;
    const listed = await ok(`query ($id: ID!) { space(id: $id) { id changeRequest(id: "#5") { id } } }`, {
      id: spaceId,
    });
    const data = await ok(
      `query ($id: ID!) {
        node(id: $id) {
          __typename id
          ... on ChangeRequest { number subject status conversationsIssuesClusterId createdBy { email } space { id title } reviews { nodes { status reviewer { email } } } }
        }
      }`,
      { id: listed.space.changeRequest.id },
    );
    expect(data.node).toEqual({
      __typename: 'ChangeRequest',
      id: listed.space.changeRequest.id,
      number: 5,
      subject: 'Explain the most common install errors',
      status: 'OPEN',
      conversationsIssuesClusterId: installErrors,
      createdBy: { email: email('dee') },
      space: { id: listed.space.id, title: 'Getting started' },
      reviews: { nodes: [{ status: 'APPROVED', reviewer: { email: email('cy') } }] },
    });
  });

  it('refuses a change request global ID of another space in Space.changeRequest(id:)', async () => {
    const { spaceGlobalId } = await freshSpace('GraphQL other space');
    const cr = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Elsewhere' })).createChangeRequest
      .changeRequest;
    const own = await ok(`query ($s: ID!, $cr: ID!) { space(id: $s) { changeRequest(id: $cr) { id subject } } }`, {
      s: spaceGlobalId,
      cr: cr.id,
    });
    expect(own.space.changeRequest).toEqual({ id: cr.id, subject: 'Elsewhere' });

    const other = gettingStarted.spaceId;
    const result = await g.gql(
      `query ($s: ID!, $cr: ID!) { space(id: $s) { title changeRequest(id: $cr) { id subject } } }`,
      { s: other, cr: cr.id },
    );
    expect(result.data).toEqual({ space: { title: 'Getting started', changeRequest: null } });
    expect(result.errors).toEqual([
      {
        message: expect.stringMatching(/is a change request of another space$/),
        locations: expect.any(Array),
        path: ['space', 'changeRequest'],
        extensions: { code: 'BAD_USER_INPUT', field: ['id'] },
      },
    ]);
    // Only the space was read: the change request was not asked for in the wrong space.
    expect(pathsOf(result, other)).toEqual(['GET /v1/spaces/S']);
  });

  it('merges two change requests that edited different blocks of one page: both edits are live', async () => {
    const { spaceGlobalId, pageId } = await freshSpace('GraphQL clean merge');
    const first = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Alpha' })).createChangeRequest.changeRequest;
    const second = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Gamma' })).createChangeRequest
      .changeRequest;
    await ok(EDIT, {
      id: first.id,
      changes: [
        { updatePage: { pageId, markdown: '# Guide\n\nAlpha by the first.\n\nBeta paragraph.\n\nGamma paragraph.\n' } },
      ],
    });
    await ok(EDIT, {
      id: second.id,
      changes: [
        {
          updatePage: { pageId, markdown: '# Guide\n\nAlpha paragraph.\n\nBeta paragraph.\n\nGamma by the second.\n' },
        },
      ],
    });
    expect((await ok(MERGE, { id: first.id })).mergeChangeRequest).toMatchObject({
      result: 'MERGED',
      changeRequest: { status: 'MERGED' },
      conflicts: [],
    });
    // The second is based on content that changed since, elsewhere in the page: it merges cleanly.
    const before = await ok(`query ($id: ID!) { node(id: $id) { ... on ChangeRequest { outdated } } }`, {
      id: second.id,
    });
    expect(before.node.outdated).toBe(true);
    expect((await ok(MERGE, { id: second.id })).mergeChangeRequest).toMatchObject({
      result: 'MERGED',
      changeRequest: { status: 'MERGED' },
      conflicts: [],
    });
    const live = await ok(
      `query ($s: ID!) { space(id: $s) { content { page(id: "${pageId}") { ... on DocumentPage { document { text } } } } } }`,
      { s: spaceGlobalId },
    );
    expect(live.space.content.page.document.text).toBe('Alpha by the first.\nBeta paragraph.\nGamma by the second.');
  });

  it('runs two merges into one space in one operation, in order: both merged, both pages live', async () => {
    const { spaceGlobalId } = await freshSpace('GraphQL two merges');
    const one = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'One' })).createChangeRequest.changeRequest;
    const two = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Two' })).createChangeRequest.changeRequest;
    await ok(EDIT, { id: one.id, changes: [{ insertPage: { markdown: '# One\n\nThe first page.\n' } }] });
    await ok(EDIT, { id: two.id, changes: [{ insertPage: { markdown: '# Two\n\nThe second page.\n' } }] });
    const merged = await ok(
      `mutation ($one: ID!, $two: ID!, $s: ID!) {
        one: mergeChangeRequest(input: { changeRequestId: $one }) { result changeRequest { status } conflicts { pageId } userErrors { message } }
        two: mergeChangeRequest(input: { changeRequestId: $two }) { result changeRequest { status } conflicts { pageId } userErrors { message } }
        after: updateSpace(input: { spaceId: $s, title: "GraphQL two merges" }) { space { content { pages { title } } } }
      }`,
      { one: one.id, two: two.id, s: spaceGlobalId },
    );
    const done = { result: 'MERGED', changeRequest: { status: 'MERGED' }, conflicts: [], userErrors: [] };
    expect(merged.one).toEqual(done);
    expect(merged.two).toEqual(done);
    expect(merged.after.space.content.pages.map((page: { title: string }) => page.title)).toEqual([
      'Guide',
      'One',
      'Two',
    ]);
    const live = await ok(
      `query ($s: ID!) { space(id: $s) { content { pages { title } } changeRequests(status: MERGED) { totalCount } } }`,
      { s: spaceGlobalId },
    );
    expect(live.space).toEqual({
      content: { pages: [{ title: 'Guide' }, { title: 'One' }, { title: 'Two' }] },
      changeRequests: { totalCount: 3 },
    });
  });
});

describe('upstream requests of change request writes', () => {
  it('reads the change request after a write only when the payload asks for more than its keys', async () => {
    const { spaceGlobalId } = await freshSpace('Counted writes');
    const first = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Keys only' })).createChangeRequest
      .changeRequest;
    const keysOnly = await g.gql(
      `mutation ($id: ID!) { mergeChangeRequest(input: { changeRequestId: $id }) { result changeRequest { id } userErrors { code } } }`,
      {
        id: first.id,
      },
    );
    expect(keysOnly.data.mergeChangeRequest).toEqual({
      result: 'MERGED',
      changeRequest: { id: first.id },
      userErrors: [],
    });
    // The merge alone.
    expect(keysOnly.upstream).toBe(1);

    const second = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Read after' })).createChangeRequest
      .changeRequest;
    const read = await g.gql(
      `mutation ($id: ID!) { mergeChangeRequest(input: { changeRequestId: $id }) { result changeRequest { status mergedAt } } }`,
      { id: second.id },
    );
    expect(read.data.mergeChangeRequest).toMatchObject({
      result: 'MERGED',
      changeRequest: { status: 'MERGED', mergedAt: expect.any(String) },
    });
    // The merge, then the change request as it is after it.
    expect(read.upstream).toBe(2);

    const template = await g.gql(
      `mutation ($space: ID!) { applySpaceTemplate(input: { spaceId: $space, templateId: "changelog" }) { space { id } userErrors { code } } }`,
      {
        space: spaceGlobalId,
      },
    );
    expect(template.data.applySpaceTemplate).toEqual({ space: { id: spaceGlobalId }, userErrors: [] });
    expect(template.upstream).toBe(1);
  });
});

describe('writes naming a change request by its number', () => {
  it('answers the change request with its real id, and creates one with its description in one request', async () => {
    const { spaceGlobalId, spaceId } = await freshSpace('By number');
    const created = await g.gql(
      `mutation ($space: ID!) {
        createChangeRequest(input: { spaceId: $space, subject: "Described", description: { text: "Why it matters" } }) {
          changeRequest { platformId number description { text } }
          userErrors { code }
        }
      }`,
      { space: spaceGlobalId },
    );
    expect(created.data.createChangeRequest).toMatchObject({
      changeRequest: { description: { text: 'Why it matters' } },
      userErrors: [],
    });
    expect(created.upstream).toBe(1);
    const { platformId, number } = created.data.createChangeRequest.changeRequest;
    const updated = await g.gql(
      `mutation ($space: ID!, $number: ID!) {
        updateChangeRequestFromMain(input: { spaceId: $space, changeRequestId: $number }) { result changeRequest { id platformId } userErrors { code } }
      }`,
      { space: spaceId, number: String(number) },
    );
    expect(updated.data.updateChangeRequestFromMain.changeRequest.platformId).toBe(platformId);
    const refetched = await ok(`query ($id: ID!) { node(id: $id) { ... on ChangeRequest { platformId } } }`, {
      id: updated.data.updateChangeRequestFromMain.changeRequest.id,
    });
    expect(refetched.node.platformId).toBe(platformId);
  });
});
