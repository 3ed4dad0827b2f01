import type { GatewayContext } from '../../context.js';
import { upstream } from '../kit/upstream-cost.js';
import { compositeKey } from '../kit/ids.js';
import { getDocument, getPageDocument, getPageMarkdown } from '../../upstream/content.js';
import type { PageOfAnyType as RevisionPage } from '../../upstream/content.js';
import { builder } from '../kit/builder.js';
import { DocumentType, type DocumentValue } from '../kit/document.js';
import { SpaceNode } from '../spaces.js';
import { DocumentPageNode } from './page.js';
import { readDocumentOnce, readOnce, type PageHeld } from './revision.js';

/**
 * Bodies of pages: the JSON document (one request per page, by document id); its text and its
 * markdown are converted here from the JSON, without an upstream request, each once per request
 * and charged as the gateway's own work (see `RequestConversions`); the page's own markdown
 * (title, front matter, relative links) is the page read with `format=markdown`.
 */

/**
 * A document of a space by id: documents are stored by content, so one id always names the same
 * document, and its conversions are kept across requests.
 */
export function readDocument(ctx: GatewayContext, spaceId: string, documentId: string): Promise<DocumentValue> {
  return readDocumentOnce(ctx, `document:${compositeKey(spaceId, documentId)}`, () =>
    getDocument(ctx.api, spaceId, documentId),
  );
}

/**
 * The markdown of a page (`…/page/{pageId}?format=markdown`: under the current content for a
 * page reached through it, else under its revision), once per request.
 */
export function readPageMarkdown(
  ctx: GatewayContext,
  page: Pick<PageHeld, 'spaceId' | 'revisionId' | 'id' | 'revision'>,
): Promise<string> {
  return readOnce(ctx, `markdown:${compositeKey(page.spaceId, page.revisionId, page.id)}`, async () => {
    const revision = { spaceId: page.spaceId, id: page.revisionId, current: page.revision?.current ?? false };
    const answer = await getPageMarkdown(ctx.api, revision, page.id);
    return answer.markdown;
  });
}

/**
 * The document of a page: by its id (documents are shared between revisions, so one id is read
 * once), or, for a page that names none, by the page (`…/page/{pageId}/document`).
 */
function pageDocument(ctx: GatewayContext, page: PageHeld): Promise<DocumentValue> {
  const documentId = (page.page as RevisionPage).documentId;
  if (documentId) return readDocument(ctx, page.spaceId, documentId);
  // Read under its revision's id: it never changes.
  return readDocumentOnce(ctx, `page-document:${compositeKey(page.spaceId, page.revisionId, page.id)}`, () =>
    getPageDocument(ctx.api, page),
  );
}

builder.objectFields(DocumentType, (t) => ({
  markdown: t.string({
    description:
      "The document in the platform's markdown (GFM with its block tags: hints, tabs, code titles, files, embeds, content references), references written as stable ids (`/pages/<id>`, `/files/<id>`). Converted here, without an upstream request: once per document however many fields ask, charged in `gatewayPoints` by the document's size (a point per started 64 KiB of JSON), and free when this document's markdown was converted before (documents read by id or under a revision never change). A page's own markdown, with its title, front matter and relative links, is `DocumentPage.markdown`.",
    extensions: upstream.free,
    resolve: (document, _args, ctx) => ctx.conversions.convert('markdown', document),
  }),
}));

/** How conditional blocks and expressions of a document are resolved when it is read. */
const EvaluationEnum = builder.enumType('DocumentEvaluation', {
  description: 'How conditional blocks (`if`) and expressions of a document are resolved when it is read.',
  values: {
    NONE: { value: 'false', description: 'Not at all: the document as written.' },
    DETERMINISTIC_ONLY: {
      value: 'deterministic-only',
      description:
        'Those that read only variables of the space and the page; those that read the visitor stay as written.',
    },
    ALL: {
      value: 'true',
      description:
        'All of them, for the reader: a visitor with the claims of their token (the `apiToken` of a resolved URL), else a visitor without claims.',
    },
  } as const,
});

builder.objectFields(DocumentPageNode, (t) => ({
  document: t.field({
    type: DocumentType,
    nullable: true,
    description:
      'The body of the page as a JSON document (empty for a page without a body): one request per page, by the document id it names (shared by every page and revision naming the same document). With `evaluated`, read from the page with its conditions and expressions resolved.',
    args: {
      evaluated: t.arg({
        type: EvaluationEnum,
        description: 'Resolve conditional blocks and expressions (default NONE).',
      }),
    },
    extensions: upstream.fetch(1),
    resolve: (page, args, ctx) => {
      if (!args.evaluated || args.evaluated === 'false') return pageDocument(ctx, page);
      return readOnce(
        ctx,
        `page-document:${args.evaluated}:${compositeKey(page.spaceId, page.revisionId, page.id)}`,
        () => getPageDocument(ctx.api, page, { evaluated: args.evaluated ?? undefined }),
      );
    },
  }),
  markdown: t.string({
    nullable: true,
    description:
      'The body of the page in markdown, as the platform writes it (links relative to the page): one request per page.',
    extensions: upstream.fetch(1),
    resolve: (page, _args, ctx) => readPageMarkdown(ctx, page),
  }),
}));

builder.objectFields(SpaceNode, (t) => ({
  document: t.field({
    type: DocumentType,
    nullable: true,
    description:
      'A document of the space by id (as `DocumentPage` and the `document` attributes of revision changes name them); null with NOT_FOUND when the space holds no such document. One request, shared by every field asking the same id.',
    args: { id: t.arg.id({ required: true, description: 'Id of the document on the platform.' }) },
    extensions: upstream.fetch(1),
    resolve: (space, args, ctx) => readDocument(ctx, space.id, String(args.id)),
  }),
}));
