import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyOverlay, loadDescription, operationsOf } from '../../src/contract/description.js';
import { contractFiles, staleFiles } from '../../src/contract/generate.js';
import { OVERLAY } from '../../src/contract/overlay.js';
import * as records from '../../src/gateway/upstream/contract/operations.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

describe('the generated contract', () => {
  it('is what the description and the overlay give (npm run contract writes it)', () => {
    expect(staleFiles(contractFiles())).toEqual([]);
  });

  it('has one record per operation of the description, the overlay included', () => {
    const operations = operationsOf(loadDescription(OVERLAY));
    expect(records.OPERATIONS.map((record) => `${record.method} ${record.path}`)).toEqual(
      operations.map((operation) => `${operation.method} ${operation.path}`),
    );
    // Added by the overlay: the API documentation lists it, the description does not.
    expect(records.transferSpace).toMatchObject({
      method: 'POST',
      path: '/spaces/{spaceId}/transfer',
      pathParams: ['spaceId'],
    });
    expect(records.listSpaceLinks.queryParams).toEqual(['page', 'limit']);
  });
});

describe('the overlay', () => {
  const base = () => loadDescription([]);

  it('refuses an entry whose place the description no longer has, or that changes nothing', () => {
    expect(() =>
      applyOverlay(base(), [{ pointer: '/components/schemas/NoSuchSchema/properties/x', value: {}, reason: 'test' }]),
    ).toThrow('Overlay: nothing at /components/schemas/NoSuchSchema/properties/x to change (test)');
    expect(() =>
      applyOverlay(base(), [{ pointer: '/components/schemas/Space/properties/nothing', remove: true, reason: 'test' }]),
    ).toThrow('nothing at /components/schemas/Space/properties/nothing to remove');
    const title = base().components.schemas.Space!.properties as Record<string, unknown>;
    expect(() =>
      applyOverlay(base(), [
        { pointer: '/components/schemas/Space/properties/title', value: title.title, reason: 'test' },
      ]),
    ).toThrow('already says this');
  });

  it('names why for every entry', () => {
    for (const entry of OVERLAY) expect(entry.reason.length, entry.pointer).toBeGreaterThan(20);
  });
});

describe('the records', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.destroy());

  it('parse what the platform answers, and refuse an answer of the wrong shape', async () => {
    const spaceId = platform.spaceId('Getting started');
    const space = await platform.api('GET', `/spaces/${spaceId}`, { token: platform.adminToken });
    const parsed = records.getSpaceById.answers[200]!.parse(space.body);
    expect(parsed).toMatchObject({ object: 'space', id: spaceId, title: 'Getting started' });

    const organizationId = parsed.organization;
    const page = await platform.api('GET', `/orgs/${organizationId}/spaces`, { token: platform.adminToken });
    const spaces = records.listSpacesInOrganizationById.answers[200]!.parse(page.body);
    expect(spaces.items.map((item) => item.id)).toContain(spaceId);

    const { title: _, ...untitled } = space.body as Record<string, unknown>;
    expect(records.getSpaceById.answers[200]!.safeParse(untitled).success).toBe(false);
    // Lenient where a gateway must be: an optional field may be null, unknown keys are dropped.
    const lenient = records.getSpaceById.answers[200]!.parse({ ...(space.body as object), parent: null, extra: 1 });
    expect(lenient).not.toHaveProperty('extra');
  });
});
