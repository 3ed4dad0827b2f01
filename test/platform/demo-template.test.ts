import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeDemoTemplate, writeDemoTemplate } from '../../src/platform/demo-template.js';
import { startPlatform } from '../../src/platform/server.js';
import { openDatabase } from '../../src/platform/store/db.js';

let work: string;
let template: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'demo-template-test-'));
  template = join(work, 'template', 'platform.sqlite');
  writeDemoTemplate(template);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The demo tokens a database holds, by e-mail. */
function tokensIn(file: string): Record<string, string> {
  const db = openDatabase({ file });
  try {
    const rows = db
      .prepare('SELECT u.email, t.token FROM api_tokens t JOIN users u ON u.id = t.user_id ORDER BY u.email')
      .all() as Array<{ email: string; token: string }>;
    return Object.fromEntries(rows.map((row) => [row.email, row.token]));
  } finally {
    db.close();
  }
}

describe('the demo template', () => {
  it('is one standalone file: a seeded database with no journal beside it', () => {
    expect(existsSync(`${template}-wal`)).toBe(false);
    expect(Object.keys(tokensIn(join(work, 'template', 'platform.sqlite')))).toContain('ada@acme.test');
  });

  it('starts an empty data folder as a seed would: its tokens, their file and the demo repository', async () => {
    const dataDir = join(work, 'fresh');
    const platform = await startPlatform({ dataDir, port: 0, demoTemplate: template });
    try {
      const written = JSON.parse(readFileSync(join(dataDir, 'demo-tokens.json'), 'utf8')) as Record<string, string>;
      expect(written).toEqual(platform.tokens);
      const [email, token] = Object.entries(platform.tokens)[0]!;
      const answer = await fetch(`${platform.url}/user`, { headers: { authorization: `Bearer ${token}` } });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { email: string }).email).toBe(email);
      // The repository is made for this folder, and the handbook linked to it.
      const handbook = platform.db
        .prepare("SELECT git_sync FROM spaces WHERE title = 'Company handbook'")
        .pluck(true)
        .get();
      const bare = join(dataDir, 'demo-repos', 'handbook.git');
      expect(existsSync(join(bare, 'HEAD'))).toBe(true);
      expect(JSON.parse(handbook as string)).toMatchObject({ url: `file://${bare}` });
    } finally {
      await platform.close();
    }
  });

  it('never replaces a database that is there, and is skipped when there is no template', () => {
    const dataDir = mkdtempSync(join(work, 'kept-'));
    const database = join(dataDir, 'platform.sqlite');
    writeFileSync(database, 'not replaced');
    expect(placeDemoTemplate(database, template)).toBe(false);
    expect(readFileSync(database, 'utf8')).toBe('not replaced');
    expect(placeDemoTemplate(join(dataDir, 'other.sqlite'), join(work, 'missing.sqlite'))).toBe(false);
    expect(existsSync(join(dataDir, 'other.sqlite'))).toBe(false);
    expect(placeDemoTemplate(join(dataDir, 'copy.sqlite'), template)).toBe(true);
    expect(readFileSync(join(dataDir, 'copy.sqlite')).equals(readFileSync(template))).toBe(true);
  });
});
