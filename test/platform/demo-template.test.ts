import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { DEFAULT_GIT_AUTHOR } from '../../src/platform/app.js';
import { placeDemoTemplate, writeDemoRepository, writeDemoTemplate } from '../../src/platform/demo-template.js';
import { startPlatform } from '../../src/platform/server.js';
import { openDatabase } from '../../src/platform/store/db.js';

let work: string;
let template: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'demo-template-test-'));
  template = join(work, 'template', 'platform.sqlite');
  writeDemoTemplate(template);
  await writeDemoRepository(template, DEFAULT_GIT_AUTHOR);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A template with no repository beside it (git was missing when it was made): a start makes one. */
function bareTemplate(): string {
  const file = join(work, 'bare-template', 'platform.sqlite');
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    copyFileSync(template, file);
  }
  return file;
}

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

  it.each([
    ['with the repository beside it', () => template],
    ['without', () => bareTemplate()],
  ])(
    'starts an empty data folder as a seed would, %s: its tokens, their file and the demo repository',
    async (_, made) => {
      const dataDir = mkdtempSync(join(work, 'fresh-'));
      const platform = await startPlatform({ dataDir, port: 0, demoTemplate: made() });
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
        const sync = JSON.parse(handbook as string) as { url: string; lastCommit: string };
        expect(sync).toMatchObject({ url: `file://${bare}` });
        const git = (...args: string[]) =>
          execFileSync('git', ['--git-dir', bare, ...args], { encoding: 'utf8' }).trim();
        expect(git('rev-parse', 'refs/heads/main')).toBe(sync.lastCommit);
        // Every revision links its commit, in this folder's repository.
        const links = platform.db
          .prepare(
            "SELECT git FROM revisions WHERE git IS NOT NULL AND space_id = (SELECT id FROM spaces WHERE title = 'Company handbook')",
          )
          .pluck(true)
          .all()
          .map((json) => JSON.parse(json as string) as { oid: string; url: string });
        expect(links.length).toBeGreaterThan(1);
        for (const link of links) {
          expect(link.url).toBe(`file://${bare}`);
          expect(git('cat-file', '-t', link.oid)).toBe('commit');
        }
      } finally {
        await platform.close();
      }
    },
  );

  it('makes its own repository when the platform signs commits with another author than the template', async () => {
    const dataDir = mkdtempSync(join(work, 'author-'));
    const gitAuthor = { name: 'Release bot', email: 'release-bot@acme.test' };
    const platform = await startPlatform({ dataDir, port: 0, demoTemplate: template, gitAuthor });
    try {
      const bare = join(dataDir, 'demo-repos', 'handbook.git');
      const log = execFileSync('git', ['--git-dir', bare, 'log', '--format=%an <%ae>'], { encoding: 'utf8' });
      expect(new Set(log.trim().split('\n'))).toEqual(new Set([`${gitAuthor.name} <${gitAuthor.email}>`]));
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
