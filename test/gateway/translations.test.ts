import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';

let g: TestGateway;
/** Admin `admin` and `ben` (create); "Getting started" (six pages) already translated into French once. */
let org: TestOrg;

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  org = addOrg(g.platform, { id: 'polyglot', members: { admin: 'admin', ben: 'create' } });
  const { createSpace } = await ok(CREATE_SPACE, { title: 'Getting started' });
  await ok(SET_NO_RULES, { id: createSpace.space.id });
  await mergeEdit(
    createSpace.space.id,
    ['Welcome', 'Install', 'Configure', 'First steps', 'Upgrade', 'Troubleshooting'].map((title) => ({
      insertPage: { markdown: `# ${title}\n\n${title} the agent, step by step.\n` },
    })),
  );
  const created = await ok(
    `mutation ($space: ID!) { createTranslation(input: { organizationId: "polyglot", language: FR, source: { spaceId: $space, language: EN } }) { translation { id } userErrors { code } } }`,
    { space: createSpace.space.id },
  );
  await ok(`mutation ($id: ID!) { runTranslation(input: { translationId: $id }) { userErrors { code } } }`, {
    id: created.createTranslation.translation.id,
  });
  await g.platform.app.jobs.drain();
});
afterAll(() => g.destroy());

const ok = <T = any>(query: string, variables: Record<string, unknown> = {}, options: { token?: string } = {}) =>
  expectOk<T>(g, query, variables, options);

const CREATE_SPACE = `mutation ($title: String!) {
  createSpace(input: { organizationId: "polyglot", title: $title, language: "en" }) { space { id platformId } userErrors { message } }
}`;
const SET_NO_RULES = `mutation ($id: ID!) { updateSpace(input: { spaceId: $id, mergeRules: { type: NONE } }) { space { id } userErrors { message } } }`;
const CREATE_CR = `mutation ($spaceId: ID!) { createChangeRequest(input: { spaceId: $spaceId, subject: "Edit" }) { changeRequest { id } userErrors { message } } }`;
const EDIT = `mutation ($id: ID!, $changes: [ContentChangeInput!]!) {
  editChangeRequestContent(input: { changeRequestId: $id, changes: $changes }) { edits { pageId } userErrors { message } }
}`;
const MERGE = `mutation ($id: ID!) { mergeChangeRequest(input: { changeRequestId: $id }) { result userErrors { message } } }`;

/** Applies `changes` to the live content of a space through a merged change request; answers the edited page ids. */
async function mergeEdit(spaceId: string, changes: unknown[]): Promise<string[]> {
  const { createChangeRequest } = await ok(CREATE_CR, { spaceId });
  const { editChangeRequestContent } = await ok(EDIT, { id: createChangeRequest.changeRequest.id, changes });
  await ok(MERGE, { id: createChangeRequest.changeRequest.id });
  return editChangeRequestContent.edits.map((edit: { pageId: string }) => edit.pageId);
}

const TRANSLATION = `
  id platformId status language
  source { spaceId language space { title } }
  result { spaceId language space { title language } revision { platformId } }
  instructions { text }
  stats { runs totalPages totalWords latestPages latestWords totalDuration latestRunDuration }
`;

/** Titles and markdown of the pages of a space's current content, by title order of the tree. */
async function pagesOf(spaceId: string): Promise<Array<{ title: string; markdown: string }>> {
  const data = await ok(
    `query ($id: ID!) { space(id: $id) { content { pages { title ... on DocumentPage { markdown } } } } }`,
    { id: spaceId },
  );
  return data.space.content.pages;
}

describe('translations', () => {
  it('lists a translation that ran with its source and result, linked', async () => {
    const result = await g.gql<any>(
      `{ organization(id: "polyglot") { translations { totalCount nodes { ${TRANSLATION} organization { platformId } } } } }`,
    );
    expect(result.errors).toBeUndefined();
    const [demo] = result.data.organization.translations.nodes;
    expect(result.data.organization.translations.totalCount).toBe(1);
    expect(demo).toMatchObject({
      status: 'COMPLETED',
      language: 'FR',
      source: { language: 'EN', space: { title: 'Getting started' } },
      result: { language: 'FR', space: { language: 'fr' }, revision: { platformId: expect.any(String) } },
      stats: { runs: 1 },
      organization: { platformId: 'polyglot' },
    });
    expect(demo.stats.totalPages).toBeGreaterThan(5);
    // Non-admins cannot see translations.
    const member = await g.gql<any>(
      `{ organization(id: "polyglot") { translations { totalCount } } }`,
      {},
      { token: org.token('ben') },
    );
    expect(member.data.organization.translations).toBeNull();
    expect(member.errors![0]!.extensions).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('runs into a space in the target language, then translates only the page a merge changed', async () => {
    const { createSpace } = await ok(CREATE_SPACE, { title: 'Field guide' });
    const space = createSpace.space;
    await ok(SET_NO_RULES, { id: space.id });
    const [setup, usage] = await mergeEdit(space.id, [
      { insertPage: { markdown: '# Setup\n\nInstall the agent on the server.\n\n```sh\nagent install --now\n```\n' } },
      { insertPage: { markdown: '# Usage\n\nStart the agent and open the dashboard.\n' } },
    ]);

    const created = await ok(
      `mutation ($space: ID!) {
      createTranslation(input: { organizationId: "polyglot", language: FR, source: { spaceId: $space, language: EN }, instructions: { text: "Keep the word agent." } }) {
        translation { ${TRANSLATION} } userErrors { code }
      }
    }`,
      { space: space.id },
    );
    const translation = created.createTranslation.translation;
    expect(translation).toMatchObject({
      status: 'PENDING',
      result: null,
      instructions: { text: 'Keep the word agent.' },
      stats: { runs: 0 },
    });

    const started = await ok(
      `mutation ($id: ID!) { runTranslation(input: { translationId: $id }) { translation { status } userErrors { code } } }`,
      { id: translation.id },
    );
    // The run is in the background: queued, running, or (the offline translator is quick) already done.
    expect(['PENDING', 'RUNNING', 'COMPLETED']).toContain(started.runTranslation.translation.status);
    await g.platform.app.jobs.drain();

    const first = (
      await ok(`query ($id: ID!) { node(id: $id) { ... on Translation { ${TRANSLATION} } } }`, { id: translation.id })
    ).node;
    expect(first).toMatchObject({
      status: 'COMPLETED',
      result: { language: 'FR', space: { language: 'fr' } },
      stats: { runs: 1, latestPages: 2, totalPages: 2 },
    });
    expect(first.result.space.title).toContain('Field guide');
    const translated = await pagesOf(first.result.spaceId);
    expect(translated).toHaveLength(2);
    // Pseudo-localized: not the source text, accented look-alikes; code stays as written.
    expect(translated[0]!.title).not.toBe('Setup');
    expect(translated[0]!.title).toMatch(/[À-ÿ]/);
    expect(translated[0]!.markdown).toContain('agent install --now');
    expect(translated[0]!.markdown).not.toContain('Install the agent on the server.');

    // Edit one page of the source and merge: the merge runs the translation, which touches that page only.
    await mergeEdit(space.id, [
      { updatePage: { pageId: setup, markdown: '# Setup\n\nInstall the agent on every server.\n' } },
    ]);
    await g.platform.app.jobs.drain();
    const second = (
      await ok(`query ($id: ID!) { node(id: $id) { ... on Translation { ${TRANSLATION} } } }`, { id: translation.id })
    ).node;
    expect(second.stats).toMatchObject({ runs: 2, latestPages: 1, totalPages: 2 });
    expect(second.result.revision.platformId).not.toBe(first.result.revision.platformId);
    const after = await pagesOf(first.result.spaceId);
    expect(after[0]!.markdown).not.toBe(translated[0]!.markdown);
    expect(after[1]).toEqual(translated[1]);
    expect(usage).toBeDefined();
  });

  it('refuses duplicates, the source language, non-admins, and changes and deletes', async () => {
    const gettingStarted = g.platform.spaceId('Getting started');
    const duplicate = await g.gql<any>(
      `mutation ($space: ID!) { createTranslation(input: { organizationId: "polyglot", language: FR, source: { spaceId: $space, language: EN } }) { translation { id } userErrors { code upstreamStatus } } }`,
      { space: gettingStarted },
    );
    expect(duplicate.data.createTranslation.userErrors).toEqual([{ code: 'CONFLICT', upstreamStatus: 409 }]);
    const same = await g.gql<any>(
      `mutation ($space: ID!) { createTranslation(input: { organizationId: "polyglot", language: EN, source: { spaceId: $space, language: EN } }) { userErrors { code field } } }`,
      { space: gettingStarted },
    );
    expect(same.upstream).toBe(0);
    expect(same.data.createTranslation.userErrors).toEqual([{ code: 'BAD_USER_INPUT', field: ['language'] }]);
    const unknown = await g.gql<any>(
      `mutation ($space: ID!) { createTranslation(input: { organizationId: "polyglot", language: XX, source: { spaceId: $space, language: EN } }) { userErrors { code field } } }`,
      { space: gettingStarted },
    );
    // Not a language the enum has: refused by GraphQL validation, before any request.
    expect([unknown.errors?.[0]?.extensions?.code, unknown.upstream]).toEqual(['BAD_USER_INPUT', 0]);
    const member = await g.gql<any>(
      `mutation ($space: ID!) { createTranslation(input: { organizationId: "polyglot", language: DE, source: { spaceId: $space, language: EN } }) { userErrors { code } } }`,
      { space: gettingStarted },
      { token: org.token('ben') },
    );
    expect(member.data.createTranslation.userErrors).toEqual([{ code: 'FORBIDDEN' }]);

    const created = await ok(
      `mutation ($space: ID!) { createTranslation(input: { organizationId: "polyglot", language: DE, source: { spaceId: $space, language: EN } }) { translation { id platformId } userErrors { code } } }`,
      { space: gettingStarted },
    );
    const { id, platformId } = created.createTranslation.translation;
    const updated = await ok(
      `mutation ($org: ID!, $id: ID!) { updateTranslation(input: { organizationId: $org, translationId: $id, instructions: { text: "Formal tone." } }) { translation { instructions { text } } userErrors { code } } }`,
      { org: 'polyglot', id: platformId },
    );
    expect(updated.updateTranslation.translation.instructions.text).toBe('Formal tone.');
    const noOrg = await g.gql<any>(
      `mutation ($id: ID!) { deleteTranslation(input: { translationId: $id }) { userErrors { code field } } }`,
      { id: platformId },
    );
    expect(noOrg.data.deleteTranslation.userErrors).toEqual([{ code: 'BAD_USER_INPUT', field: ['organizationId'] }]);
    const deleted = await ok(
      `mutation ($id: ID!) { deleteTranslation(input: { translationId: $id }) { deleted userErrors { code } } }`,
      { id },
    );
    expect(deleted.deleteTranslation.deleted).toBe(true);
    const again = await ok(
      `mutation ($id: ID!) { deleteTranslation(input: { translationId: $id }) { deleted userErrors { code } } }`,
      { id },
    );
    expect(again.deleteTranslation.deleted).toBe(false);
  });

  it('passes on why the last run failed, read, listed and written, where the platform says', async () => {
    const db = g.platform.db;
    db.prepare("UPDATE translations SET last_error = ?, last_error_at = ? WHERE org_id = 'polyglot'").run(
      'The translator answered 500',
      '2026-01-02T03:04:05.000Z',
    );
    try {
      const error = { message: 'The translator answered 500', failedAt: '2026-01-02T03:04:05.000Z' };
      const listed = await ok(
        `{ organization(id: "polyglot") { translations { nodes { id lastRunError { message failedAt } } } } }`,
      );
      const nodes = listed.organization.translations.nodes;
      expect(nodes.length).toBeGreaterThan(0);
      for (const one of nodes) expect(one.lastRunError).toEqual(error);
      const [node] = nodes;
      const read = await ok(`query ($id: ID!) { node(id: $id) { ... on Translation { lastRunError { message } } } }`, {
        id: node.id,
      });
      expect(read.node.lastRunError).toEqual({ message: error.message });
      const written = await ok(
        `mutation ($id: ID!) { updateTranslation(input: { translationId: $id, instructions: { text: "Plain words." } }) { translation { lastRunError { failedAt } } userErrors { code } } }`,
        { id: node.id },
      );
      expect(written.updateTranslation.translation.lastRunError).toEqual({ failedAt: error.failedAt });
    } finally {
      db.prepare("UPDATE translations SET last_error = NULL, last_error_at = NULL WHERE org_id = 'polyglot'").run();
    }
  });
});
