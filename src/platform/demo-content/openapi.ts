import { setCurrentRevision } from '../content/current.js';
import { putDocument, type ContentPage, storeRevision } from '../content/revisions.js';
import { markdownToDocument } from '../../document/markdown.js';
import { laterThan, newId } from '../http.js';
import { DEMO_SPEC_SLUG, DEMO_SPEC_SPACE, seedDemoSpec } from '../openapi/demo.js';
import type { Db } from '../store/db.js';
import { type DemoOpenAPI, loadDemoOpenAPI } from './load.js';

const DAY = 24 * 60 * 60 * 1000;

/**
 * Seeds the demo OpenAPI specification (`openapi/acme-petstore.json`: its versions, each some days after the first)
 * and the content of the space computing its reference, in one revision dated as the last version.
 */
export function seedDemoOpenAPI(
  db: Db,
  spaceIds: ReadonlyMap<string, string>,
  ago: (days: number) => string,
  data: DemoOpenAPI = loadDemoOpenAPI(),
): void {
  if (data.slug !== DEMO_SPEC_SLUG || data.space !== DEMO_SPEC_SPACE)
    throw new Error(
      `The demo specification is not "${DEMO_SPEC_SLUG}" in "${DEMO_SPEC_SPACE}" (DEMO_SPEC_SLUG, DEMO_SPEC_SPACE)`,
    );
  const spaceId = spaceIds.get(data.space);
  if (!spaceId) throw new Error(`No demo space "${data.space}"`);
  const createdAt = ago(data.createdDaysAgo);
  const versions = data.versions.map(({ text, daysAfterFirst }) => ({
    text,
    at:
      daysAfterFirst === 0
        ? createdAt
        : laterThan(new Date(Date.parse(createdAt) + daysAfterFirst * DAY).toISOString()),
  }));
  seedDemoSpec(db, data.org, { slug: data.slug, visibility: data.visibility, versions });

  const parent = db.prepare('SELECT revision FROM spaces WHERE id = ?').pluck(true).get(spaceId) as string;
  const pages = data.pages.map((page): ContentPage => {
    const id = newId();
    if ('markdown' in page) {
      const documentId = putDocument(db, spaceId, markdownToDocument(page.markdown).document);
      return { id, type: 'document', title: page.title, slug: page.slug, documentId, pages: [] };
    }
    return { id, type: 'computed', title: page.title, computed: page.computed as ContentPage['computed'], pages: [] };
  });
  const content = { pages, files: [], reusableContents: [], variables: {} };
  const at = versions[versions.length - 1]!.at;
  setCurrentRevision(
    db,
    spaceId,
    storeRevision(db, { spaceId, type: 'edits', parents: [parent], content, createdAt: at }),
  );
}
