import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardEdge } from '../../src/platform/edge.js';
import { validateRequests } from '../../src/platform/validation.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

let p: TestPlatform;
/** An organization with more spaces than the page of two the query test asks for. */
let org: TestOrg;

beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  org = addOrg(p, { id: 'gated', members: { admin: 'admin' } });
  for (const title of ['Handbook', 'Runbooks', 'Reference']) await org.space(title);
});

afterAll(async () => {
  await p?.destroy();
});

describe("the API description's gate in front of the routes", () => {
  it('refuses a body the description refuses, naming the field, before the route reads it', async () => {
    // `hostname` is typed by the description alone: the route's own check knows no such field.
    const answer = await p.api('PATCH', `/orgs/${org.id}`, { body: { hostname: 42 } });
    expect(answer).toEqual({
      status: 400,
      body: { error: { code: 400, message: 'Invalid body field "hostname": must be a string' } },
    });
    const role = await p.api('PATCH', `/orgs/${org.id}`, { body: { defaultRole: 'owner' } });
    expect(role.body.error).toEqual({
      code: 400,
      message: 'Invalid body field "defaultRole": must be one of admin, create, edit, review, comment, read or null',
    });
  });

  it('refuses a query the description refuses, coercing text as its types say', async () => {
    const spaces = `/orgs/${org.id}/spaces`;
    expect((await p.api('GET', spaces, { query: { limit: '2' } })).body.items).toHaveLength(2);
    const answer = await p.api('GET', `/orgs/${org.id}/members`, { query: { role: 'owner' } });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toEqual({
      code: 400,
      message: 'Invalid query field "role": must be one of admin, create, edit, review, comment, read, guest',
    });
  });

  it('refuses a path parameter of the wrong type, and a route without an operation at startup', async () => {
    const app = Fastify();
    guardEdge(app);
    app.register(
      async (v1) => {
        validateRequests(v1);
        // The description types the project of a GitLab installation as a number.
        v1.get('/git/installations/:installationId/gitlab/projects/:project/branches', async (request) => ({
          params: request.params,
        }));
      },
      { prefix: '/v1' },
    );
    const wrong = await app.inject({ method: 'GET', url: '/v1/git/installations/i1/gitlab/projects/abc/branches' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toEqual({
      error: { code: 400, message: 'Invalid path parameter "projectId": must be a number' },
    });
    const right = await app.inject({ method: 'GET', url: '/v1/git/installations/i1/gitlab/projects/12/branches' });
    // The route reads its parameters as the router gave them: the gate coerces a copy.
    expect(right.json()).toEqual({ params: { installationId: 'i1', project: '12' } });
    await app.close();

    const unknown = Fastify();
    unknown.register(
      async (v1) => {
        validateRequests(v1);
        v1.get('/no/such/operation', async () => ({}));
      },
      { prefix: '/v1' },
    );
    await expect(unknown.ready()).rejects.toThrow('The route GET /v1/no/such/operation is no operation');
  });
});
