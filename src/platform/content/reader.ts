import type { PageOfResults, PageWindow } from '../http.js';
import type { Db } from '../store/db.js';
import type { JSONDocument } from '../../document/model.js';
import { getDocument, getDocumentText, loadRevision, type ContentPage, type Revision } from './revisions.js';
import { searchSpace, type SearchPageHit } from './search.js';

/**
 * What one caller may read of a space's content. Routes read revisions, documents and search
 * through the reader of their request (`request.ctx.content`), never through the store, so a
 * site visitor's request can only ever get the visitor's view (`sites/visitor-view.ts`): pages
 * their claims hide are not in its revisions, conditional blocks are resolved in its documents,
 * and its search finds only what they can read.
 */
export interface ContentReader {
  /** A revision of the space as the caller sees it; undefined when there is none. */
  revision(spaceId: string, revisionId: string): Revision | undefined;
  /**
   * A document of a revision the caller got from `revision`, as they see it (evaluated for the
   * `page` it is the body of, if given); undefined when the caller cannot read it.
   */
  document(revision: Revision, documentId: string, page?: ContentPage): JSONDocument | undefined;
  /**
   * The stored JSON text of a document of a revision the caller got from `revision`, when they
   * read documents as they are stored (a view that changes them has none): sent as it is, a
   * large document costs no parse and no serialization.
   */
  storedText(revision: Revision, documentId: string): Buffer | undefined;
  /** A document made rather than stored (a computed page's body), as the caller sees it. */
  shown(revision: Revision, document: JSONDocument, page?: ContentPage): JSONDocument;
  /** Full-text search of the space's current revision, over what the caller can read. */
  search(
    space: { id: string; revision: string },
    query: string,
    window: PageWindow,
  ): Promise<PageOfResults<SearchPageHit>>;
  /**
   * What a signed URL made for the caller (a PDF export) carries so that it serves their view
   * later, without their token: nothing for a member, who reads the stored content.
   */
  readonly signedView: string | undefined;
}

/** The reader of members and API readers: revisions and documents as they are stored. */
export function storedContentReader(db: Db): ContentReader {
  return {
    revision: (spaceId, revisionId) => loadRevision(db, spaceId, revisionId),
    document: (revision, documentId) => getDocument<JSONDocument>(db, revision.spaceId, documentId),
    storedText: (revision, documentId) => getDocumentText(db, revision.spaceId, documentId),
    shown: (_revision, document) => document,
    search: async (space, query, window) => searchSpace(db, space.id, query, window),
    signedView: undefined,
  };
}
