import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SignJWT } from 'jose';
import { markdownToDocument } from '../src/document/markdown.js';
import { loadRevision, putDocument, type ContentPage } from '../src/platform/content/revisions.js';
import { DEMO } from '../src/platform/demo-data.js';
import { DEMO_SITE_SECRETS } from '../src/platform/sites/demo.js';
import { startPlatform } from '../src/platform/server.js';
import { commitContent } from '../test/fixtures/content.js';
import { addVisitorContent, MARKERS, VISITOR_CLAIMS } from '../test/fixtures/visitor-content.js';

/**
 * `npx tsx bench/hardening-visitors.ts`: what a site visitor's view costs, and that it holds.
 *
 * The demo's visitor-auth space ("API reference") gets BENCH_VISITOR_PAGES pages (default 2000,
 * three sections each), one in twenty with a block hidden from the visitor, plus the test
 * fixture's hidden page and block. A visitor (`plan: "pro"`, `betaAccess: true`) then reads:
 * 1. search for each hidden marker (hits found: must be 0) and for the visible one (must be 1);
 * 2. the content (page tree, files) and search: the first request of a view (which computes it,
 *    and for search indexes it), then warm p50/p99; a member's search for comparison;
 * 3. the first search of a visitor with other claims that hide the same things (shared index),
 *    and the latency of a member's concurrent read while a new view's first search runs;
 * 4. the visitor's search after a one-page edit (their view's index is updated, not rebuilt);
 * 5. RSS after each phase and the peak.
 */
const PAGES = Number(process.env.BENCH_VISITOR_PAGES ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 50);

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const rss = () => process.memoryUsage().rss;

const dataDir = mkdtempSync(join(tmpdir(), 'bench-visitors-'));
const platform = await startPlatform({ dataDir, port: 0 });
try {
  const admin = Object.values(platform.tokens)[0]!;
  const space = platform.db
    .prepare('SELECT id FROM spaces WHERE title = ? ORDER BY created_at LIMIT 1')
    .pluck(true)
    .get(DEMO.spaces.visitorAuth) as string;
  const seeded = addVisitorContent(platform.db, space);

  // A large space: three sections a page, one page in twenty with a block the visitor does not see.
  const started = performance.now();
  const current = loadRevision(platform.db, space, seeded.revision)!.content;
  const words = 'request token limit window retry header version resource cursor webhook'.split(' ');
  const pages: ContentPage[] = [];
  for (let i = 0; i < PAGES; i += 1) {
    const section = (n: number) =>
      `## Part ${n}\n\n${Array.from({ length: 40 }, (_, w) => words[(i + n + w) % words.length]).join(' ')} page${i}.`;
    const hidden =
      i % 20 === 0
        ? `\n\n{% if visitor.claims.betaAccess == false %}\nThe ${MARKERS.hiddenBlock} note of page ${i}.\n{% endif %}`
        : '';
    const documentId = putDocument(
      platform.db,
      space,
      markdownToDocument(`${section(1)}\n\n${section(2)}${hidden}\n\n${section(3)}\n`).document,
    );
    pages.push({
      id: `pg-bench-${i}`,
      type: 'document',
      title: `Bench page ${i}`,
      slug: `bench-${i}`,
      documentId,
      pages: [],
    });
  }
  commitContent(platform.db, space, { ...current, pages: [...current.pages, ...pages] });
  console.log(`setup: ${PAGES} pages in ${((performance.now() - started) / 1000).toFixed(1)} s, RSS ${mb(rss())}`);

  const resolve = async (claims: Record<string, unknown>) => {
    const jwtToken = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(DEMO_SITE_SECRETS.visitorSigningKey));
    const response = await fetch(`${platform.url}/urls/published`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `https://api.acme-docs.test/${seeded.visible.path}`, visitor: { jwtToken } }),
    });
    const body = (await response.json()) as { apiToken: string; space: string };
    assert.equal(body.space, space);
    return body.apiToken;
  };
  const get = async (path: string, token: string) => {
    const at = performance.now();
    const response = await fetch(`${platform.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await response.json()) as Record<string, any>;
    assert.equal(response.status, 200, `${path}: ${JSON.stringify(body)}`);
    return { body, ms: performance.now() - at };
  };
  const timed = async (path: string, token: string) => {
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i += 1) times.push((await get(path, token)).ms);
    return `p50 ${quantile(times, 0.5).toFixed(1)} ms, p99 ${quantile(times, 0.99).toFixed(1)} ms`;
  };
  const search = (query: string) => `/spaces/${space}/search?query=${encodeURIComponent(query)}`;

  const visitor = await resolve({ ...VISITOR_CLAIMS });
  const rssBefore = rss();
  const firstContent = await get(`/spaces/${space}/content`, visitor);
  console.log(
    `visitor content, first (view computed): ${firstContent.ms.toFixed(0)} ms; warm: ${await timed(`/spaces/${space}/content`, visitor)}`,
  );
  const firstSearch = await get(search('token window'), visitor);
  console.log(
    `visitor search, first (view indexed): ${firstSearch.ms.toFixed(0)} ms; warm: ${await timed(search('token window'), visitor)}`,
  );
  console.log(
    `member search: ${await timed(search('token window'), admin)}; member content: ${await timed(`/spaces/${space}/content`, admin)}`,
  );
  console.log(`RSS after the view and its index: ${mb(rss())} (was ${mb(rssBefore)})`);

  // Another visitor whose claims differ but hide the same things shares the view's index.
  const alike = await resolve({ plan: 'free', betaAccess: true, email: 'someone@example.com' });
  console.log(
    `another visitor hidden the same things, first search: ${(await get(search('retry header'), alike)).ms.toFixed(0)} ms`,
  );
  // A member's reads while the first search of a visitor who sees the enterprise page (a new view) runs.
  const other = await resolve({ plan: 'enterprise', betaAccess: true });
  const cold = get(search('retry header'), other);
  const concurrent = await Promise.all(
    Array.from({ length: 10 }, () => get(`/spaces/${space}`, admin).then((answer) => answer.ms)),
  );
  console.log(
    `concurrent member reads during a new view's first search: max ${Math.max(...concurrent).toFixed(0)} ms (that search: ${(await cold).ms.toFixed(0)} ms)`,
  );

  // A one-page edit: the view and its index follow the new revision, rewriting that page alone.
  const edited = loadRevision(
    platform.db,
    space,
    platform.db.prepare('SELECT revision FROM spaces WHERE id = ?').pluck(true).get(space) as string,
  )!.content;
  const editedDocument = putDocument(
    platform.db,
    space,
    markdownToDocument('## Edited\n\nThe token window was edited.\n').document,
  );
  commitContent(platform.db, space, {
    ...edited,
    pages: edited.pages.map((page) => (page.id === 'pg-bench-7' ? { ...page, documentId: editedDocument } : page)),
  });
  const afterEdit = await get(search('token window'), visitor);
  console.log(`visitor search after a one-page edit (view recomputed, index updated): ${afterEdit.ms.toFixed(0)} ms`);

  const hits: Record<string, number> = {};
  for (const marker of [MARKERS.hiddenPage, MARKERS.hiddenBlock, MARKERS.visible])
    hits[marker] = (await get(search(marker), visitor)).body.count as number;
  const memberHits = (await get(search(MARKERS.hiddenBlock), admin)).body.count as number;
  console.log(`visitor search hits: ${JSON.stringify(hits)}; member hits for ${MARKERS.hiddenBlock}: ${memberHits}`);
  console.log(`peak RSS: ${mb(process.resourceUsage().maxRSS * 1024)}`);

  assert.equal(hits[MARKERS.hiddenPage], 0, 'the visitor found the page their claims hide');
  assert.equal(hits[MARKERS.hiddenBlock], 0, 'the visitor found a block their claims hide');
  assert.equal(hits[MARKERS.visible], 1);
  assert.equal(memberHits, PAGES / 20 + 1);
  assert.ok((firstContent.body.pages as Array<{ id: string }>).some((page) => page.id === seeded.visible.page));
  assert.ok(!(firstContent.body.pages as Array<{ id: string }>).some((page) => page.id === seeded.hidden.page));
} finally {
  await platform.close();
  rmSync(dataDir, { recursive: true, force: true });
}
