import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../../src/platform/demo-data.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';

const U = DEMO.users;

let g: TestGateway;

beforeAll(async () => {
  g = await startTestGateway();
});
afterAll(() => g.destroy());

const as = (email: string) => ({ token: g.platform.token(email) });

/** Runs an operation that must succeed with no errors and no user errors; returns its data. */
async function ok<T = any>(query: string, variables: Record<string, unknown> = {}, options: { token?: string } = {}): Promise<T> {
  const result = await g.gql<T>(query, variables, options);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  for (const value of Object.values(result.data as Record<string, unknown>)) {
    if (value && typeof value === 'object' && 'userErrors' in value) expect((value as { userErrors: unknown[] }).userErrors).toEqual([]);
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
  return { spaceId: createSpace.space.platformId, spaceGlobalId: createSpace.space.id, pageId: editChangeRequestContent.edits[0].pageId };
}

const rewrite = (pageId: string, beta: string) => [
  { updatePage: { pageId, markdown: `# Guide\n\nAlpha paragraph.\n\n${beta}\n\nGamma paragraph.\n` } },
];

describe('change requests through the graph', () => {
  it('runs the whole cycle: create, edit with markdown, request a review, approve, merge; the page is live and found by search', async () => {
    const { spaceId, spaceGlobalId } = await freshSpace('GraphQL cycle');
    const created = await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Add the glossary' }, as(U.dee));
    const cr = created.createChangeRequest.changeRequest;
    expect(cr).toMatchObject({ number: 2, status: 'DRAFT' });

    const edited = await ok(
      EDIT,
      { id: cr.id, changes: [{ insertPage: { ref: 'glossary', markdown: '---\ndescription: Terms\n---\n# Glossary\n\nA quasiperiodic tiling never repeats.\n' } }] },
      as(U.dee),
    );
    expect(edited.editChangeRequestContent.edits).toEqual([
      { kind: 'CREATED_PAGE', pageId: expect.any(String), ref: 'glossary', page: { title: 'Glossary' } },
    ]);

    const cy = await ok(`query { viewer { platformId } }`, {}, as(U.cy));
    const requested = await ok(
      `mutation ($id: ID!, $users: [ID!]!) {
        requestChangeRequestReviewers(input: { changeRequestId: $id, userIds: $users }) {
          requestedReviewers { user { platformId } requestedBy { platformId } }
          changeRequest { status }
          userErrors { message }
        }
      }`,
      { id: cr.id, users: [cy.viewer.platformId] },
      as(U.dee),
    );
    expect(requested.requestChangeRequestReviewers.changeRequest.status).toBe('OPEN');
    const reviewed = await ok(
      `mutation ($id: ID!) {
        submitChangeRequestReview(input: { changeRequestId: $id, status: APPROVED, comment: { text: "Nice" } }) {
          review { status reviewer { platformId } comment { text } }
          userErrors { message }
        }
      }`,
      { id: cr.id },
      as(U.cy),
    );
    expect(reviewed.submitChangeRequestReview.review).toEqual({ status: 'APPROVED', reviewer: { platformId: cy.viewer.platformId }, comment: { text: 'Nice' } });

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
      as(U.cy),
    );
    expect(merged.mergeChangeRequest).toMatchObject({ result: 'MERGED', changeRequest: { status: 'MERGED', mergedBy: { platformId: cy.viewer.platformId } } });
    expect(merged.after.space.content.pages.map((page: { title: string }) => page.title)).toEqual(['Guide', 'Glossary']);
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
      createdBy: { email: U.dee },
      reviews: { totalCount: 1, nodes: [{ status: 'APPROVED' }] },
      changes: { changes: [{ __typename: 'PageCreatedChange', page: { title: 'Glossary' } }] },
    });
    expect(read.space.changeRequest.contributors.nodes.map((c: { kind: string }) => c.kind).sort()).toEqual(['COMMENT', 'EDIT']);
  });

  it('reports a conflict and changes nothing live; updating from main puts both versions in; once resolved it merges', async () => {
    const { spaceGlobalId, pageId } = await freshSpace('GraphQL conflict');
    const first = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'First' })).createChangeRequest.changeRequest;
    const second = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Second' })).createChangeRequest.changeRequest;
    await ok(EDIT, { id: first.id, changes: rewrite(pageId, 'Beta by the first.') });
    await ok(EDIT, { id: second.id, changes: rewrite(pageId, 'Beta by the second.') });
    expect((await ok(MERGE, { id: first.id })).mergeChangeRequest.result).toBe('MERGED');
    const live = async () => (await ok(`query ($id: ID!) { space(id: $id) { content { page(id: "${pageId}") { ... on DocumentPage { document { text } } } } } }`, { id: spaceGlobalId })).space.content.page.document.text;
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
    expect(updated.updateChangeRequestFromMain).toMatchObject({ result: 'CONFLICTS', changeRequest: { outdated: false } });
    expect(updated.updateChangeRequestFromMain.changeRequest.content.page.document.text).toBe(
      'Alpha paragraph.\nBeta by the second.\nBeta by the first.\nGamma paragraph.',
    );
    await ok(EDIT, { id: second.id, changes: rewrite(pageId, 'Beta by both.') });
    expect((await ok(MERGE, { id: second.id })).mergeChangeRequest.result).toBe('MERGED');
    expect(await live()).toBe('Alpha paragraph.\nBeta by both.\nGamma paragraph.');
  });

  it('answers a broken merge rule with a PRECONDITION_FAILED user error naming it', async () => {
    const { spaceGlobalId } = await freshSpace('GraphQL rules');
    const cy = await ok(`query { viewer { platformId } }`, {}, as(U.cy));
    await ok(`mutation ($id: ID!, $cy: ID!) {
      updateSpace(input: { spaceId: $id, mergeRules: { type: RULES, requiredReviewers: [$cy] } }) { space { id } }
    }`, { id: spaceGlobalId, cy: cy.viewer.platformId });
    const cr = (await ok(CREATE_CR, { spaceId: spaceGlobalId, subject: 'Needs review' }, as(U.dee))).createChangeRequest.changeRequest;
    const refused = await g.gql(MERGE, { id: cr.id }, as(U.cy));
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
    expect(result.data.editChangeRequestContent).toMatchObject({
      changeRequest: null,
      userErrors: [{ code: 'BAD_USER_INPUT', field: ['changes', '1', 'page'] }],
    });
    const twoKinds = await g.gql(EDIT, { id: cr.id, changes: [{ deletePage: { pageId }, updatePage: { pageId } }] });
    expect(twoKinds.errors?.[0]?.message).toMatch(/exactly one/i);
    const page = await ok(`query ($id: ID!) { node(id: $id) { ... on ChangeRequest { content { page(id: "${pageId}") { title } } } } }`, { id: cr.id });
    expect(page.node.content.page.title).toBe('Guide');
  });

  it('lists change requests of a space and of an organization with one connection type and filters', async () => {
    const spaceId = g.platform.spaceId('Getting started');
    const data = await ok(
      `query ($id: ID!) {
        space(id: $id) {
          open: changeRequests { totalCount nodes { number outdated conversationsIssuesCluster } }
          drafts: changeRequests(status: DRAFT) { totalCount }
          merged: changeRequests(status: MERGED, orderBy: CREATED_AT) { nodes { mergedAt revisionMerged { platformId } } }
        }
        organization(id: "acme") { changeRequests(status: OPEN) { totalCount nodes { space { title } } } }
      }`,
      { id: spaceId },
    );
    expect(data.space.open.totalCount).toBeGreaterThanOrEqual(3);
    expect(data.space.drafts.totalCount).toBeGreaterThanOrEqual(1);
    expect(data.space.merged.nodes[0].revisionMerged.platformId).toEqual(expect.any(String));
    expect(data.organization.changeRequests.totalCount).toBeGreaterThanOrEqual(data.space.open.totalCount);
  });
});
