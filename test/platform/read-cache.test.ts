import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

/**
 * Lists keep the tree order of an organization and the rows they read until the next write
 * (`treeOrder`, `rowsById`): every write, through the API or straight into the database by
 * another connection, must show in the next list.
 */
let p: TestPlatform;

beforeAll(async () => {
  p = await startTestPlatform();
});

afterAll(async () => {
  await p.destroy();
});

interface SpaceItem {
  id: string;
  title: string;
  parent?: string;
}

async function listSpaces(): Promise<SpaceItem[]> {
  const answer = await p.api('GET', '/orgs/acme/spaces', { query: { limit: 1000 } });
  expect(answer.status).toBe(200);
  return (answer.body as { items: SpaceItem[] }).items;
}

describe('lists after writes', () => {
  it('show a title changed through the API', async () => {
    const [first] = await listSpaces();
    await listSpaces();
    const renamed = await p.api('PATCH', `/spaces/${first!.id}`, { body: { title: 'Renamed through the API' } });
    expect(renamed.status).toBe(200);
    expect((await listSpaces()).find((space) => space.id === first!.id)?.title).toBe('Renamed through the API');
  });

  it('show a space created, moved and deleted, in tree order', async () => {
    const created = await p.api('POST', '/orgs/acme/spaces', { body: { title: 'Cache probe' } });
    expect(created.status).toBe(201);
    const id = (created.body as SpaceItem).id;
    const afterCreate = await listSpaces();
    expect(afterCreate.at(-1)?.id).toBe(id);

    const first = afterCreate.find((space) => !space.parent)!;
    const moved = await p.api('POST', `/spaces/${id}/move`, {
      body: { position: { before: { type: 'space', space: first.id } } },
    });
    expect(moved.status).toBe(200);
    const afterMove = await listSpaces();
    expect(afterMove.findIndex((space) => space.id === id)).toBe(
      afterMove.findIndex((space) => space.id === first.id) - 1,
    );

    expect((await p.api('DELETE', `/spaces/${id}`)).status).toBe(205);
    expect((await listSpaces()).some((space) => space.id === id)).toBe(false);
  });

  it('show a row changed by another connection to the database', async () => {
    const [first] = await listSpaces();
    const other = new Database(join(p.dataDir, 'platform.sqlite'));
    try {
      other.prepare('UPDATE spaces SET title = ? WHERE id = ?').run('Renamed by another connection', first!.id);
    } finally {
      other.close();
    }
    expect((await listSpaces()).find((space) => space.id === first!.id)?.title).toBe('Renamed by another connection');
  });
});
