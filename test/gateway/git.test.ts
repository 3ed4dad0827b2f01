import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { commitContent, sampleContent } from '../fixtures/content.js';
import { gitHttpServer } from '../fixtures/git-server.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';

let g: TestGateway;
let work: string;
/** Admin alice, finn (`read`). */
let org: TestOrg;

/** A space of the organization with the sample documentation tree (pages, a link, files) as its content. */
async function documentedSpace(title: string): Promise<string> {
  const id = await org.space(title);
  commitContent(g.platform.db, id, sampleContent(g.platform.db, id).content);
  return id;
}

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  org = addOrg(g.platform, { id: 'gitorg', members: { alice: 'admin', finn: 'read' } });
  work = mkdtempSync(join(tmpdir(), 'gateway-git-'));
});
afterAll(async () => {
  await g.destroy();
  rmSync(work, { recursive: true, force: true });
});

let count = 0;
function bareRepository(): string {
  count += 1;
  const path = join(work, `repo-${count}.git`);
  execFileSync('git', ['init', '--bare', '--quiet', '--initial-branch=main', path]);
  return path;
}

const EXPORT = `mutation ($space: ID!, $url: String!) {
  exportToGit(input: { spaceId: $space, url: $url, ref: "refs/heads/main", commitMessage: "From the graph" }) {
    space { id } operation { state direction } userErrors { message code field }
  }
}`;
const IMPORT = `mutation ($space: ID!, $url: String!) {
  importFromGit(input: { spaceId: $space, url: $url, ref: "refs/heads/main", timestamp: "2026-03-01T10:00:00Z" }) {
    operation { state direction } userErrors { message code field }
  }
}`;
const INFO = `query ($space: ID!) {
  space(id: $space) {
    gitSync { repoName url operation { state direction } }
    gitInfo { repoName installationStatus url operation { state direction stage error endedAt } }
    content { git { oid message createdByGitBook ref } pages { title } }
  }
}`;

describe('Git Sync through the graph', () => {
  it('exports a space, imports it into another, and reports each operation', async () => {
    const source = await documentedSpace('Guide');
    const bare = bareRepository();
    const before = await g.gql(INFO, { space: source });
    expect(before.data.space.gitInfo).toBeNull();

    const exported = await g.gql(EXPORT, { space: source, url: bare });
    expect(exported.errors).toBeUndefined();
    expect(exported.data.exportToGit).toMatchObject({
      operation: { state: 'RUNNING', direction: 'EXPORT' },
      userErrors: [],
    });
    // The write, then the state right after it.
    expect(exported.upstream).toBe(2);
    await g.platform.app.jobs.drain();
    const afterExport = await g.gql(INFO, { space: source });
    expect(afterExport.data.space.gitInfo).toMatchObject({
      installationStatus: 'ACTIVE',
      operation: { state: 'SUCCESS', direction: 'EXPORT', stage: 'FINALIZE', error: null },
    });
    expect(afterExport.data.space.gitSync.operation).toEqual({ state: 'SUCCESS', direction: 'EXPORT' });
    expect(afterExport.data.space.content.git).toMatchObject({
      createdByGitBook: true,
      message: 'From the graph',
      ref: 'refs/heads/main',
    });

    const created = await g.gql(
      `mutation { createSpace(input: { organizationId: "gitorg", title: "From Git" }) { space { id } } }`,
    );
    const target = created.data.createSpace.space.id;
    const imported = await g.gql(IMPORT, { space: target, url: bare });
    expect(imported.data.importFromGit).toMatchObject({
      operation: { state: 'RUNNING', direction: 'IMPORT' },
      userErrors: [],
    });
    await g.platform.app.jobs.drain();
    const afterImport = await g.gql(INFO, { space: target });
    expect(afterImport.data.space.gitInfo.operation).toMatchObject({ state: 'SUCCESS', direction: 'IMPORT' });
    expect(afterImport.data.space.content.git).toMatchObject({ createdByGitBook: false, message: 'From the graph' });
    expect(afterImport.data.space.content.pages.map((page: { title: string }) => page.title)).toEqual(
      afterExport.data.space.content.pages.map((page: { title: string }) => page.title),
    );
    const pageGit = await g.gql(
      `query ($space: ID!) { space(id: $space) { content { pages { title ... on DocumentPage { git { path } } } files { nodes { name git { path } } } } } }`,
      { space: target },
    );
    const api = pageGit.data.space.content.pages.find((page: { title: string }) => page.title === 'API reference');
    expect(api.git).toEqual({ path: 'api.md' });
    expect(pageGit.data.space.content.files.nodes[0].git.path).toMatch(/^\.gitbook\/assets\//);

    const removed = await g.gql(
      `mutation ($space: ID!) { removeLegacyGitInstallation(input: { spaceId: $space }) { deleted userErrors { code } } }`,
      { space: target },
    );
    expect(removed.data.removeLegacyGitInstallation).toEqual({ deleted: true, userErrors: [] });
    expect((await g.gql(INFO, { space: target })).data.space.gitInfo).toBeNull();
  });

  it('reports a failure readably, refuses bad input as user errors, and never shows credentials', async () => {
    const created = await g.gql(
      `mutation { createSpace(input: { organizationId: "gitorg", title: "Git failures" }) { space { id } } }`,
    );
    const space = created.data.createSpace.space.id;
    const secret = 'ghp_v3ryS3cretT0ken';
    const missing = `file://bot:${secret}@${join(work, 'missing.git')}`;
    const queued = await g.gql(IMPORT, { space, url: missing });
    expect(queued.data.importFromGit.userErrors).toEqual([]);
    await g.platform.app.jobs.drain();
    const info = await g.gql(INFO, { space });
    expect(info.data.space.gitInfo.operation).toMatchObject({
      state: 'FAILURE',
      error: expect.stringMatching(/could not read the repository/),
    });
    const badRef = await g.gql(
      `mutation ($space: ID!) { importFromGit(input: { spaceId: $space, url: "https://x.test/r.git", ref: "main" }) { operation { state } userErrors { code field } } }`,
      { space },
    );
    expect(badRef.data.importFromGit.userErrors).toEqual([{ code: 'BAD_USER_INPUT', field: ['ref'] }]);
    expect(badRef.upstream).toBe(0);
    const escaping = await g.gql(
      `mutation ($space: ID!) { importFromGit(input: { spaceId: $space, url: "https://x.test/r.git", ref: "refs/heads/main", repoProjectDirectory: "../up" }) { userErrors { code field upstreamStatus } } }`,
      { space },
    );
    expect(escaping.data.importFromGit.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', field: ['repoProjectDirectory'], upstreamStatus: 400 },
    ]);
    // Refs are checked as git check-ref-format does, by the platform.
    const dotted = await g.gql(
      `mutation ($space: ID!) { importFromGit(input: { spaceId: $space, url: "https://x.test/r.git", ref: "refs/heads/../../etc" }) { userErrors { message code field upstreamStatus } } }`,
      { space },
    );
    expect(dotted.data.importFromGit.userErrors).toEqual([
      {
        message: 'Invalid input field "ref": must not contain ".."',
        code: 'BAD_USER_INPUT',
        field: ['ref'],
        upstreamStatus: 400,
      },
    ]);
    const reader = await g.gql(
      EXPORT,
      { space, url: `https://bot:${secret}@x.test/r.git` },
      { token: org.token('finn') },
    );
    expect(reader.data.exportToGit.userErrors[0]).toMatchObject({ code: 'FORBIDDEN' });
    // A variable of the wrong type is echoed in the error: without its credentials.
    const wrongType = await g.gql(
      `mutation ($space: ID!, $url: Int) { importFromGit(input: { spaceId: $space, url: $url, ref: "refs/heads/main" }) { userErrors { code } } }`,
      {
        space,
        url: `https://bot:${secret}@x.test/r.git`,
      },
    );
    expect(wrongType.errors?.length).toBeGreaterThan(0);
    expect(JSON.stringify([queued, info, badRef, escaping, reader, wrongType])).not.toContain(secret);
  });

  it('imports from and exports to an https repository with credentials, which appear nowhere', async () => {
    const bare = bareRepository();
    const secret = 'gl-pat-S3cret';
    const server = await gitHttpServer(work, 'deploy', secret);
    const url = `https://deploy:${secret}@127.0.0.1:${(server.address() as AddressInfo).port}/${bare.split('/').at(-1)}`;
    try {
      const source = await documentedSpace('Reference');
      const exported = await g.gql(EXPORT, { space: source, url });
      await g.platform.app.jobs.drain();
      const created = await g.gql(
        `mutation { createSpace(input: { organizationId: "gitorg", title: "Over https" }) { space { id } } }`,
      );
      const target = created.data.createSpace.space.id;
      const imported = await g.gql(IMPORT, { space: target, url });
      await g.platform.app.jobs.drain();
      const info = await g.gql(INFO, { space: target });
      expect(info.data.space.gitInfo).toMatchObject({
        url: `https://***@127.0.0.1:${(server.address() as AddressInfo).port}/${bare.split('/').at(-1)}`,
        operation: { state: 'SUCCESS', direction: 'IMPORT' },
      });
      const sourceInfo = await g.gql(INFO, { space: source });
      expect(sourceInfo.data.space.gitInfo.operation).toMatchObject({ state: 'SUCCESS', direction: 'EXPORT' });
      expect(info.data.space.content.pages.map((page: { title: string }) => page.title)).toEqual(
        sourceInfo.data.space.content.pages.map((page: { title: string }) => page.title),
      );
      expect(JSON.stringify([exported, imported, info, sourceInfo])).not.toContain(secret);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
