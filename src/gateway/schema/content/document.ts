import type { GatewayContext } from '../../context.js';
import { upstream } from '../../cost.js';
import { GatewayError } from '../../errors.js';
import { compositeKey } from '../../ids.js';
import { route } from '../../rest/client.js';
import { jsonDocument, markdownPage, type RevisionPage } from '../../rest/shapes/content.js';
import type { JsonDocument } from '../../rest/shapes/common.js';
import { builder } from '../builder.js';
import { DocumentType } from '../shared.js';
import { DocumentPageNode } from './page.js';
import { readOnce, type PageHeld } from './revision.js';

/**
 * Bodies of pages: the JSON document (one request per page, by document id); its text and its
 * markdown are computed here from the JSON, at no cost; the page's own markdown (title, front
 * matter, relative links) is the page read with `format=markdown`.
 */

/** The body of a page that has none. */
const EMPTY_DOCUMENT = { object: 'document' as const, data: {}, nodes: [] };

/** A document of a space by id: documents are stored by content, so one id always names the same document. */
export function readDocument(ctx: GatewayContext, spaceId: string, documentId: string): Promise<JsonDocument> {
  return readOnce(ctx, `document:${compositeKey(spaceId, documentId)}`, () =>
    ctx.api.get(route`/spaces/${spaceId}/documents/${documentId}`, jsonDocument),
  );
}

/** The markdown of a page of a revision (`…/page/{pageId}?format=markdown`), once per request. */
export function readPageMarkdown(ctx: GatewayContext, page: Pick<PageHeld, 'spaceId' | 'revisionId' | 'id'>): Promise<string> {
  return readOnce(ctx, `markdown:${compositeKey(page.spaceId, page.revisionId, page.id)}`, async () => {
    const answer = await ctx.api.get(
      route`/spaces/${page.spaceId}/revisions/${page.revisionId}/page/${page.id}`,
      markdownPage,
      { format: 'markdown' },
    );
    return answer.markdown;
  });
}

/** The document of a page. */
async function pageDocument(ctx: GatewayContext, page: PageHeld): Promise<JsonDocument> {
  const documentId = (page.page as RevisionPage).documentId;
  return documentId ? readDocument(ctx, page.spaceId, documentId) : EMPTY_DOCUMENT;
}

builder.objectFields(DocumentType, (t) => ({
  markdown: t.string({
    description:
      "The document in the platform's markdown (GFM with its block tags: hints, tabs, code titles, files, embeds, content references), references written as stable ids (`/pages/<id>`, `/files/<id>`). Converted here, at no upstream cost; a page's own markdown, with its title, front matter and relative links, is `DocumentPage.markdown`.",
    extensions: upstream.free,
    resolve: async (document) => {
      // Loaded with the first document converted: the converter and its emoji table stay out of
      // the gateway's start and idle memory.
      const [{ documentToMarkdown }, { parseDocument }] = await Promise.all([
        import('../../../platform/content/markdown.js'),
        import('../../../platform/content/document.js'),
      ]);
      let parsed;
      try {
        parsed = parseDocument(document);
      } catch (error) {
        throw new GatewayError('UPSTREAM_INVALID_RESPONSE', `The platform answered a document that cannot be converted to markdown: ${(error as Error).message}`);
      }
      return documentToMarkdown(parsed);
    },
  }),
}));

builder.objectFields(DocumentPageNode, (t) => ({
  document: t.field({
    type: DocumentType,
    nullable: true,
    description: 'The body of the page as a JSON document (empty for a page without a body): one request per page.',
    extensions: upstream.fetch(1),
    resolve: (page, _args, ctx) => pageDocument(ctx, page),
  }),
  markdown: t.string({
    nullable: true,
    description: 'The body of the page in markdown, as the platform writes it (links relative to the page): one request per page.',
    extensions: upstream.fetch(1),
    resolve: (page, _args, ctx) => readPageMarkdown(ctx, page),
  }),
}));
