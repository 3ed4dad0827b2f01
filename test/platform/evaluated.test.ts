import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateDocument, evaluateForVisitor } from '../../src/platform/adaptive/evaluate-document.js';
import { markdownToDocument } from '../../src/document/markdown.js';
import { putDocument } from '../../src/platform/content/revisions.js';
import { commitContent } from '../fixtures/content.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

let p: TestPlatform;
let spaceId: string;
let revisionId: string;

const MARKDOWN = [
  'Welcome to <code class="expression">space.vars.product</code> <code class="expression">page.vars.edition</code>.',
  '',
  '{% if space.vars.tier == "pro" %}',
  'Pro features.',
  '{% endif %}',
  '',
  '{% if space.vars.tier == "free" %}',
  'Upgrade!',
  '{% endif %}',
  '',
  '{% if visitor.claims.unsigned.beta %}',
  'Beta only.',
  '{% endif %}',
  '',
].join('\n');

beforeAll(async () => {
  p = await startTestPlatform();
  spaceId = (await p.api('POST', '/orgs/acme/spaces', { body: { title: 'Evaluated' } })).body.id;
  const documentId = putDocument(p.db, spaceId, markdownToDocument(MARKDOWN).document);
  revisionId = commitContent(p.db, spaceId, {
    pages: [
      {
        id: 'pg-eval',
        type: 'document',
        title: 'Home',
        slug: 'home',
        documentId,
        variables: { edition: '2026' },
        pages: [],
      },
    ],
    files: [],
    reusableContents: [],
    variables: { product: 'Acme Docs', tier: 'pro' },
  });
});

afterAll(async () => {
  await p?.destroy();
});

const texts = (document: any): string[] =>
  document.nodes.map((node: any) =>
    node.type === 'if'
      ? `if(${node.data.expression})`
      : node.nodes
          .map((child: any) => child.leaves?.map((leaf: any) => leaf.text).join('') ?? `{${child.type}}`)
          .join(''),
  );

describe('evaluated page documents', () => {
  it('resolves conditional blocks and expressions against the variables, keeping what depends on the visitor with deterministic-only', async () => {
    const raw = await p.api('GET', `/spaces/${spaceId}/content/page/pg-eval`, { query: { format: 'document' } });
    expect(texts(raw.body.document)).toEqual([
      'Welcome to {expression} {expression}.',
      'if(space.vars.tier == "pro")',
      'if(space.vars.tier == "free")',
      'if(visitor.claims.unsigned.beta)',
    ]);
    const deterministic = await p.api('GET', `/spaces/${spaceId}/content/page/pg-eval`, {
      query: { format: 'document', evaluated: 'deterministic-only' },
    });
    expect(texts(deterministic.body.document)).toEqual([
      'Welcome to Acme Docs 2026.',
      'Pro features.',
      'if(visitor.claims.unsigned.beta)',
    ]);
    const all = await p.api('GET', `/spaces/${spaceId}/revisions/${revisionId}/page/pg-eval/document`, {
      query: { evaluated: 'true' },
    });
    // An API reader is a visitor without claims: the beta block is not shown.
    expect(texts(all.body)).toEqual(['Welcome to Acme Docs 2026.', 'Pro features.']);
    const markdown = await p.api('GET', `/spaces/${spaceId}/content/page/pg-eval`, {
      query: { format: 'markdown', evaluated: 'true' },
    });
    expect(markdown.body.markdown).toContain('Welcome to Acme Docs 2026.\n\nPro features.\n');
    expect(markdown.body.markdown).not.toContain('Upgrade!');
  });

  it('leaves expressions it cannot parse as they are', () => {
    const document = markdownToDocument('{% if visitor.claims.list.includes("x") %}\nKept\n{% endif %}\n').document;
    const evaluated = evaluateDocument(document, 'true', {
      space: { vars: {} },
      page: { vars: {} },
      visitor: { claims: {} },
    });
    expect(evaluated.nodes.map((node) => node.type)).toEqual(['if']);
  });

  it('answers a document already evaluated for a site visitor as it is, without walking it again', () => {
    const context = {
      space: { vars: { product: 'Docs', tier: 'pro' } },
      page: { vars: { edition: 'Enterprise' } },
      visitor: { claims: { unsigned: { beta: true } } },
    };
    const seen = evaluateForVisitor(markdownToDocument(MARKDOWN).document, context).document;
    expect(evaluateDocument(seen, 'true', context)).toBe(seen);
    expect(evaluateDocument(seen, 'deterministic-only', context)).toBe(seen);
    // What a second walk would answer: the same document.
    expect(evaluateDocument(structuredClone(seen), 'true', context)).toEqual(seen);
  });
});
