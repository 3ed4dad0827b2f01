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
 * Bodies of pages: the JSON document (one request per page, by document id), its text (computed
 * here from the JSON, for free) and its markdown (the page read with `format=markdown`).
 */

/** The body of a page that has none. */
const EMPTY_DOCUMENT = { object: 'document' as const, data: {}, nodes: [] };

/** The page each document handed out belongs to, so `Document.markdown` knows what to ask. */
const documentPages = new WeakMap<object, PageHeld>();

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

type Node = { object?: string; type?: string; text?: unknown; leaves?: Node[]; nodes?: Node[]; fragments?: Node[] };

/** The text of inline content: its leaves, concatenated. */
function inlineText(node: Node): string {
  if (Array.isArray(node.leaves)) return node.leaves.map((leaf) => (typeof leaf.text === 'string' ? leaf.text : '')).join('');
  return Array.isArray(node.nodes) ? node.nodes.map(inlineText).join('') : '';
}

/**
 * The plain text of a JSON document: the leaves of each block of text, blocks separated by a
 * blank line (the lines of a code block by a line break); void blocks have none.
 */
export function plainText(document: { nodes?: unknown }): string {
  const blocks: string[] = [];
  const block = (node: Node) => {
    const children = Array.isArray(node.nodes) ? node.nodes : [];
    if (node.type === 'code') {
      blocks.push(children.map(inlineText).join('\n'));
    } else if (children.some((child) => child.object === 'text' || child.object === 'inline')) {
      const text = children.map(inlineText).join('');
      if (text.trim() !== '') blocks.push(text);
    } else {
      children.forEach(block);
    }
    if (Array.isArray(node.fragments)) node.fragments.forEach(block);
  };
  if (Array.isArray(document.nodes)) (document.nodes as Node[]).forEach(block);
  return blocks.join('\n\n');
}

/**
 * A content document as the `Document` type holds it: an object of its own for each page (or
 * reusable content) it is the body of, so that `Document.markdown` knows which page to ask.
 */
export function heldDocument(document: JsonDocument, page?: PageHeld): JsonDocument {
  const held = { ...document };
  // `Document.text` (shared with other documents) returns a `text` property when the object has
  // one. Set here, hidden from the JSON: the leaves of each block, blocks separated by a blank line.
  Object.defineProperty(held, 'text', { enumerable: false, get: () => plainText(document) });
  if (page) documentPages.set(held, page);
  return held;
}

/** The document of a page. */
async function pageDocument(ctx: GatewayContext, page: PageHeld): Promise<JsonDocument> {
  const documentId = (page.page as RevisionPage).documentId;
  return heldDocument(documentId ? await readDocument(ctx, page.spaceId, documentId) : EMPTY_DOCUMENT, page);
}

builder.objectFields(DocumentType, (t) => ({
  markdown: t.string({
    description:
      'The document in markdown, as the platform writes it (links relative to the page). Available for the documents of pages: one request per page; other documents fail with BAD_USER_INPUT.',
    extensions: upstream.fetch(1),
    resolve: (document, _args, ctx) => {
      const page = documentPages.get(document);
      if (!page) throw new GatewayError('BAD_USER_INPUT', 'Markdown is available for the documents of pages only');
      return readPageMarkdown(ctx, page);
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
