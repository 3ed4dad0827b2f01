import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

/** Conditional reads: an ETag on the reads clients poll, 304 while nothing was written. */
let p: TestPlatform;
let spaceId: string;

beforeAll(async () => {
  p = await startTestPlatform();
  spaceId = p.spaceId('Getting started');
});
afterAll(async () => {
  await p.destroy();
});

/** GET `path` with `If-None-Match: tag` (when given): the status, the body's length and the ETag. */
async function read(path: string, tag?: string, token: string | null = p.adminToken) {
  const headers: Record<string, string> = tag ? { 'if-none-match': tag } : {};
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${p.url}${path}`, { headers });
  return { status: response.status, length: (await response.text()).length, etag: response.headers.get('etag') };
}

describe('conditional reads', () => {
  it('answer 304 without a body while nothing was written, and the new body once something was', async () => {
    const first = await read(`/spaces/${spaceId}`);
    expect(first).toMatchObject({ status: 200, etag: expect.stringMatching(/^W\/"[\w-]+"$/) });
    expect(await read(`/spaces/${spaceId}`, first.etag!)).toEqual({ status: 304, length: 0, etag: first.etag });
    // A list of tags, and the tag without its weak prefix, match too.
    expect((await read(`/spaces/${spaceId}`, `W/"other", ${first.etag!.slice(2)}`)).status).toBe(304);

    await p.api('PATCH', `/spaces/${spaceId}`, { body: { title: 'Getting started, again' } });
    const changed = await read(`/spaces/${spaceId}`, first.etag!);
    expect(changed.status).toBe(200);
    expect(changed.etag).not.toBe(first.etag);
    expect((await p.api('GET', `/spaces/${spaceId}`)).body.title).toBe('Getting started, again');
    expect((await read(`/spaces/${spaceId}`, changed.etag!)).status).toBe(304);
  });

  it('give each caller its own tag, and never answer 304 to a token that no longer holds or for a deleted resource', async () => {
    const reader = p.token('ben@acme.test');
    const asAdmin = await read(`/spaces/${spaceId}`);
    const asReader = await read(`/spaces/${spaceId}`, undefined, reader);
    expect(asReader.etag).not.toBe(asAdmin.etag);
    // The admin's tag is no match for another caller.
    expect((await read(`/spaces/${spaceId}`, asAdmin.etag!, reader)).status).toBe(asReader.status);

    p.db.prepare('DELETE FROM api_tokens WHERE token = ?').run(reader);
    expect((await read(`/spaces/${spaceId}`, asReader.etag!, reader)).status).toBe(401);

    // A deleted space reads as deleted (its `deletedAt` set), never as the copy the client holds.
    const doomed = (await p.api('POST', '/orgs/acme/spaces', { body: { title: 'Short-lived' } })).body.id as string;
    const tag = (await read(`/spaces/${doomed}`)).etag!;
    await p.api('DELETE', `/spaces/${doomed}`);
    const gone = await read(`/spaces/${doomed}`, tag);
    expect(gone.status).not.toBe(304);
    expect(gone.etag).not.toBe(tag);
  });

  it('tag every read a subscription polls, and no other', async () => {
    const first = async (path: string) => (await p.api('GET', path, { query: { limit: 1 } })).body.items[0];
    const changeRequest = p.db.prepare('SELECT id, space_id FROM change_requests LIMIT 1').get() as {
      id: string;
      space_id: string;
    };
    const translation = await first('/orgs/acme/translations');
    const spec = await first('/orgs/acme/openapi');
    const site = await first('/orgs/acme/sites');
    const polled = [
      `/spaces/${spaceId}`,
      `/spaces/${changeRequest.space_id}/change-requests/${changeRequest.id}`,
      `/orgs/acme/translations/${translation.id}`,
      `/orgs/acme/openapi/${spec.slug}`,
      `/orgs/acme/sites/${site.id}`,
      `/orgs/acme/sites/${site.id}/structure`,
    ];
    for (const path of polled) {
      const answer = await read(path);
      expect({ path, status: answer.status, tagged: answer.etag !== null }).toEqual({
        path,
        status: 200,
        tagged: true,
      });
      expect({ path, status: (await read(path, answer.etag!)).status }).toEqual({ path, status: 304 });
    }
    const list = await read('/orgs/acme/spaces', '*');
    expect({ status: list.status, etag: list.etag }).toEqual({ status: 200, etag: null });
  });
});
