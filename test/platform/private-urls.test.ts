import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { PRIVATE_URLS } from '../fixtures/private-urls.js';

/**
 * The other features that take a URL the platform reaches on a caller's behalf (OpenAPI sources
 * have their own test in openapi.test.ts): integration endpoints and Git Sync remotes, checked when
 * they are stored, and files inserted by URL, fetched while the request runs. Each refuses every
 * private form of the corpus with a 400 naming its field, outside demo and test runs.
 */
describe('private URLs outside demo and test runs (PLATFORM_ALLOW_PRIVATE_URLS and GIT_ALLOW_LOCAL off)', () => {
  let p: TestPlatform;
  let org: TestOrg;
  beforeAll(async () => {
    p = await startTestPlatform({ seed: false, allowPrivateUrls: false, gitAllowLocal: false });
    org = addOrg(p, { id: 'guarded', members: { owner: 'admin' } });
  });
  afterAll(async () => {
    await p?.destroy();
  });

  it('refuses every form as an integration endpoint, a Git remote and a file to insert, naming the field, and keeps nothing', async () => {
    const spaceId = await org.space('Handbook');
    const request = (await p.api('POST', `/spaces/${spaceId}/change-requests`, { body: { subject: 'Files' } })).body;
    const publication = (endpoint: string) => ({
      organization: org.id,
      title: 'Guarded hooks',
      description: 'Receives events',
      script: 'export default {};',
      scopes: ['space:content:read'],
      endpoint,
    });
    const files = async () =>
      (await p.api('GET', `/spaces/${spaceId}/change-requests/${request.id}/content/files`)).body.items;
    const filesBefore = await files();
    const answers: unknown[] = [];
    for (const [url, form] of PRIVATE_URLS) {
      // Endpoints and remotes are https only: the form is tried in https.
      const https = url.replace(/^http:/, 'https:');
      for (const [path, body, field] of [
        ['/integrations/guarded', publication(https), 'endpoint'],
        [`/spaces/${spaceId}/git/import`, { url: https, ref: 'refs/heads/main' }, 'url'],
        [`/spaces/${spaceId}/git/export`, { url: https, ref: 'refs/heads/main', commitMessage: 'Out' }, 'url'],
        [
          `/spaces/${spaceId}/change-requests/${request.id}/content`,
          { changes: [{ operation: 'insert_files', files: [{ name: 'a.png', url }] }] },
          'changes.0.files.0.url',
        ],
      ] as const) {
        const answer = await p.api('POST', path, { body });
        answers.push(answer.body);
        expect([form, path, answer.status, answer.body?.error?.message]).toEqual([
          form,
          path,
          400,
          expect.stringMatching(new RegExp(`^Invalid body field "${RegExp.escape(field)}": `)),
        ]);
      }
    }
    await p.app.jobs.drain();
    expect((await p.api('GET', '/integrations/guarded')).status).toBe(404);
    expect(p.db.prepare("SELECT count(*) FROM jobs WHERE kind = 'git-sync'").pluck().get()).toBe(0);
    expect(await files()).toEqual(filesBefore);
    expect(JSON.stringify(answers)).not.toContain('s3cret');
  });
});
