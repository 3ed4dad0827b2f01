import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import {
  enableIntegration,
  installIntegration,
  publishIntegration,
  publishVideoBlock,
} from '../fixtures/integrations.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';

/**
 * `Space.integrationBlocks` end to end: the blocks of the integrations installed on the space (enabled on it, or on
 * every space of its organization), each linked to its integration, and nothing for those who cannot read it.
 */

let g: TestGateway;
let org: TestOrg;
let outsider: string;
const spaces = {} as Record<'handbook' | 'notes', string>;

/** Contoso (ada admin): VIDEO enabled on Handbook alone, DIAGRAMS on every space, PLAIN (no block) everywhere. */
beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  org = addOrg(g.platform, { id: 'contoso', members: { ada: 'admin' } });
  outsider = addOrg(g.platform, { id: 'elsewhere', members: { hana: 'admin' } }).token('hana');
  spaces.handbook = await org.space('Handbook');
  spaces.notes = await org.space('Notes');
  await publishVideoBlock(org, 'video', { domain: 'videos.test' });
  const video = await installIntegration(org, 'video', { configuration: { channel: 'contoso' } });
  await enableIntegration(org, 'video', video, { space: spaces.handbook });
  await publishIntegration(org, 'diagrams', {
    target: 'space',
    blocks: [
      { id: 'flow', title: 'Flowchart' },
      { id: 'sequence', title: 'Sequence', description: 'A sequence diagram' },
    ],
  });
  await publishIntegration(org, 'plain', { target: 'space' });
  for (const name of ['diagrams', 'plain']) {
    const id = await installIntegration(org, name);
    await g.platform.api('PATCH', `/integrations/${name}/installations/${id}`, { body: { space_selection: 'all' } });
  }
  // Declares a block but is installed nowhere.
  await publishIntegration(org, 'unused', { blocks: [{ id: 'x', title: 'Unused' }] });
});
afterAll(() => g.destroy());

const QUERY = `query($id: ID!) { space(id: $id) { integrationBlocks { blockId title description integration { id } } } }`;
const gid = (name: string) => Buffer.from(`Integration:${name}`).toString('base64');

describe('Space.integrationBlocks', () => {
  it('lists the blocks of the integrations installed on the space, linked to them', async () => {
    const handbook = await g.gql(QUERY, { id: spaces.handbook });
    expect(handbook.errors).toBeUndefined();
    expect(handbook.data?.space.integrationBlocks).toEqual([
      { blockId: 'flow', title: 'Flowchart', description: null, integration: { id: gid('diagrams') } },
      {
        blockId: 'sequence',
        title: 'Sequence',
        description: 'A sequence diagram',
        integration: { id: gid('diagrams') },
      },
      { blockId: 'video', title: 'Video', description: 'A video player', integration: { id: gid('video') } },
    ]);
    // The space, its blocks; the links' ids cost nothing.
    expect(handbook.upstreamRequests).toEqual([
      `GET /v1/spaces/${spaces.handbook}`,
      `GET /v1/spaces/${spaces.handbook}/integration-blocks`,
    ]);

    const notes = await g.gql(
      `query($id: ID!) { space(id: $id) { integrationBlocks { id integration { name title } } } }`,
      { id: spaces.notes },
    );
    expect(notes.data?.space.integrationBlocks).toEqual([
      {
        id: Buffer.from('IntegrationBlock:diagrams/flow').toString('base64'),
        integration: { name: 'diagrams', title: 'Test hooks' },
      },
      {
        id: Buffer.from('IntegrationBlock:diagrams/sequence').toString('base64'),
        integration: { name: 'diagrams', title: 'Test hooks' },
      },
    ]);
    // One read of the integration for both of its blocks.
    expect(notes.upstream).toBe(3);
  });

  it('is null with NOT_FOUND for those who cannot read the space', async () => {
    const result = await g.gql(
      `query($id: ID!) { node(id: $id) { ... on Space { integrationBlocks { blockId } } } }`,
      { id: Buffer.from(`Space:${spaces.handbook}`).toString('base64') },
      { token: outsider },
    );
    expect(result.errors?.map((error) => error.extensions?.code)).toEqual(['NOT_FOUND']);
  });
});
