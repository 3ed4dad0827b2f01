import { setCurrentRevision } from '../content/current.js';
import { storeFile } from '../content/files.js';
import { markdownToDocument } from '../../document/markdown.js';
import { pageIndex } from '../content/pages.js';
import { relativeRefs } from '../content/page-markdown.js';
import { putDocument, storeRevision, type ContentPage, type RevisionContent } from '../content/revisions.js';
import type { Db } from '../store/db.js';
import { type DemoPage, type DemoSpaceContent, loadDemoContent, slugOf } from './load.js';

/**
 * Seeds the demo documentation (`content`, read from the data files by `load.ts`): for each space, its revisions (up to three:
 * pages that came later, a renamed page, changed variables), each stored as any content is, the
 * last made current (and indexed for search). Markdown is converted with the platform's
 * converter, its relative links resolved against the revision's own page tree.
 */
export function seedDemoContent(
  db: Db,
  spaceIds: ReadonlyMap<string, string>,
  ago: (days: number) => string,
  content: readonly DemoSpaceContent[] = loadDemoContent(),
): void {
  for (const space of content) {
    const spaceId = spaceIds.get(space.space);
    if (!spaceId) throw new Error(`Demo content for "${space.space}", which is no demo space`);
    seedSpace(db, spaceId, space, spaceIds, ago);
  }
}

function seedSpace(
  db: Db,
  spaceId: string,
  space: DemoSpaceContent,
  spaceIds: ReadonlyMap<string, string>,
  ago: (days: number) => string,
): void {
  const files = space.files.map((file) =>
    storeFile(db, { id: file.id, name: file.name, contentType: file.contentType, bytes: file.bytes }),
  );
  const expand = (markdown: string) =>
    markdown
      .replace(/\{\{space:([^}]+)\}\}/g, (_, title: string) => {
        const id = spaceIds.get(title);
        if (!id) throw new Error(`Demo content links to the space "${title}", which is no demo space`);
        return `/spaces/${id}`;
      })
      .replace(/\{\{reusable:([^}]+)\}\}/g, (_, id: string) => `/reusable-content/${id}`);
  let parent = db.prepare('SELECT revision FROM spaces WHERE id = ?').pluck(true).get(spaceId) as string;
  const last = space.revisionDaysAgo.length;
  for (let revision = 1; revision <= last; revision += 1) {
    const content: RevisionContent = {
      pages: tree(space.pages, revision, last),
      files,
      reusableContents: space.reusableContents.map((item) => ({ id: item.id, title: item.title })),
      variables: revision < last && space.formerVariables ? space.formerVariables : space.variables,
    };
    // Documents are converted once the tree is known, so that relative links resolve.
    const index = pageIndex(content);
    const documents = new Map<string, string>();
    const authored = new Map(flatten(space.pages).map((page) => [page.id, page]));
    for (const placed of index.ordered) {
      const markdown = authored.get(placed.page.id)?.markdown;
      if (placed.page.type !== 'document' || markdown === undefined) continue;
      const { document } = markdownToDocument(expand(markdown), { refs: relativeRefs(index, content, placed) });
      documents.set(placed.page.id, putDocument(db, spaceId, document));
    }
    const reusableContents = space.reusableContents.map((item) => ({
      id: item.id,
      title: item.title,
      documentId: putDocument(db, spaceId, markdownToDocument(expand(item.markdown)).document),
    }));
    const withDocuments: RevisionContent = { ...content, pages: attach(content.pages, documents), reusableContents };
    parent = storeRevision(db, {
      spaceId,
      type: 'edits',
      parents: [parent],
      content: withDocuments,
      createdAt: ago(space.revisionDaysAgo[revision - 1]!),
    });
  }
  setCurrentRevision(db, spaceId, parent);
}

/** The pages of a revision (of `last`): those there by then, with the titles they had. */
function tree(pages: readonly DemoPage[], revision: number, last: number): ContentPage[] {
  return pages
    .filter((page) => (page.since ?? 1) <= revision)
    .map((page) => {
      const title = revision < last && page.formerTitle ? page.formerTitle : page.title;
      const kind = page.kind ?? 'document';
      const base: ContentPage = { id: page.id, type: kind, title, pages: tree(page.pages, revision, last) };
      if (kind === 'link')
        return { ...base, target: { kind: 'url', url: page.href ?? '' }, ...(page.href ? { href: page.href } : {}) };
      return {
        ...base,
        slug: page.slug ?? slugOf(page.title),
        ...(page.description ? { description: page.description } : {}),
        ...(page.emoji ? { emoji: page.emoji } : {}),
        ...(page.hidden ? { hidden: true } : {}),
        ...(page.noIndex ? { noIndex: true } : {}),
      };
    });
}

function attach(pages: readonly ContentPage[], documents: ReadonlyMap<string, string>): ContentPage[] {
  return pages.map((page) => {
    const documentId = documents.get(page.id);
    return { ...page, ...(documentId ? { documentId } : {}), pages: attach(page.pages, documents) };
  });
}

function flatten(pages: readonly DemoPage[]): DemoPage[] {
  return pages.flatMap((page) => [page, ...flatten(page.pages)]);
}
