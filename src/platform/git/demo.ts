import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { SpaceRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { getBlob } from '../content/blobs.js';
import type { JSONDocument } from '../../document/model.js';
import { getDocument, loadRevision } from '../content/revisions.js';
import { git, scratchRepository } from './command.js';
import { contentFiles } from './layout.js';
import type { GitSyncStored } from '../spaces/git-sync.js';

/** The demo space kept in a local repository, as the demo data describes it (`demo-content/git.json`). */
export interface DemoRepository {
  /** The title of the space (the first of that title). */
  space: string;
  /** The repository's name on its provider, as Git Sync shows it (`acme/handbook`). */
  repoName: string;
  provider: 'github' | 'gitlab';
  branch: string;
  /** The message of the first commit, and of the later ones (`{n}`: the revision's number). */
  messages: { first: string; next: string };
}

/**
 * Creates the demo repository under `dataDir` (`demo-repos/handbook.git`, a bare repository): one
 * commit per revision of the demo handbook, dated as the revision, and links the space to it. Git
 * Sync of the demo uses it when the platform runs with `GIT_ALLOW_LOCAL=1`. Returns its path.
 */
export async function seedDemoRepository(
  db: Db,
  dataDir: string,
  author: { name: string; email: string },
  repository: DemoRepository,
): Promise<string> {
  const space = demoSpace(db, repository);
  if (!space) throw new Error(`No demo space "${repository.space}"`);
  const ref = `refs/heads/${repository.branch}`;
  // Absolute: git runs in `dataDir`, where a relative path (the default `.data`) would be taken twice.
  const bare = demoRepositoryIn(dataDir);
  rmSync(bare, { recursive: true, force: true });
  mkdirSync(dirname(bare), { recursive: true });
  await git(['init', '--quiet', '--bare', `--initial-branch=${repository.branch}`, bare], { cwd: dataDir });
  const revisions = db
    .prepare(
      "SELECT id, created_at FROM revisions WHERE space_id = ? AND root IS NOT NULL AND type = 'edits' ORDER BY created_at, rowid",
    )
    .all(space.id) as Array<{ id: string; created_at: string }>;
  const scratch = await scratchRepository();
  let commit = '';
  try {
    for (const [index, row] of revisions.entries()) {
      const revision = loadRevision(db, space.id, row.id)!;
      const files = contentFiles(revision.content, {
        document: (id) => getDocument<JSONDocument>(db, space.id, id),
        file: (file) => getBlob(db, file.hash) ?? Buffer.alloc(0),
      });
      await git(['rm', '-r', '-q', '--ignore-unmatch', '.'], { cwd: scratch.dir });
      for (const [path, bytes] of files) {
        mkdirSync(dirname(join(scratch.dir, path)), { recursive: true });
        writeFileSync(join(scratch.dir, path), bytes);
      }
      await git(['add', '--all'], { cwd: scratch.dir });
      const message =
        index === 0 ? repository.messages.first : repository.messages.next.replaceAll('{n}', String(index + 1));
      await git(['commit', '--quiet', '--allow-empty', '-m', message], {
        cwd: scratch.dir,
        author,
        date: row.created_at,
      });
      commit = (await git(['rev-parse', 'HEAD'], { cwd: scratch.dir })).trim();
      db.prepare('UPDATE revisions SET git = ? WHERE id = ?').run(
        JSON.stringify({ oid: commit, message, createdByGitBook: true, url: `file://${bare}`, ref }),
        row.id,
      );
    }
    await git(['push', '--quiet', `file://${bare}`, `HEAD:${ref}`], { cwd: scratch.dir });
  } finally {
    scratch.dispose();
  }
  const state: GitSyncStored = {
    repoName: repository.repoName,
    installationProvider: repository.provider,
    url: `file://${bare}`,
    ref,
    repoProjectDirectory: '',
    lastCommit: commit,
    lastRevision: space.revision,
    updatedAt: new Date().toISOString(),
  };
  db.prepare('UPDATE spaces SET git_sync = ? WHERE id = ?').run(JSON.stringify(state), space.id);
  return bare;
}

/** The demo space kept in the repository: the first of its title. */
function demoSpace(db: Db, repository: DemoRepository): SpaceRow | undefined {
  return db.prepare('SELECT * FROM spaces WHERE title = ? ORDER BY created_at LIMIT 1').get(repository.space) as
    | SpaceRow
    | undefined;
}

/** Where a data folder keeps the demo repository. */
export function demoRepositoryIn(dataDir: string): string {
  return resolve(dataDir, 'demo-repos', 'handbook.git');
}

/**
 * What `seedDemoRepository` wrote to the database, to be written again to a copy of the database
 * it started from, with a copy of the repository elsewhere: `url` is where the repository was.
 */
export interface DemoRepositoryRecord {
  url: string;
  /** Who its commits are by: a platform with another author makes its own. */
  author: { name: string; email: string };
  spaceId: string;
  gitSync: string;
  revisions: Array<{ id: string; git: string }>;
}

/** Reads what `seedDemoRepository` wrote to `db`, for `applyDemoRepository`. */
export function recordDemoRepository(
  db: Db,
  bare: string,
  author: DemoRepositoryRecord['author'],
  repository: DemoRepository,
): DemoRepositoryRecord {
  const space = demoSpace(db, repository)!;
  const revisions = db
    .prepare('SELECT id, git FROM revisions WHERE space_id = ? AND git IS NOT NULL ORDER BY rowid')
    .all(space.id) as Array<{ id: string; git: string }>;
  return { url: `file://${bare}`, author, spaceId: space.id, gitSync: space.git_sync!, revisions };
}

/**
 * Writes a recorded demo repository's links into `db`, for its copy at `bare` (the commits are the
 * same wherever the repository is; only its URL changes).
 */
export function applyDemoRepository(db: Db, record: DemoRepositoryRecord, bare: string): void {
  // Replaced as JSON strings, so that only the whole URL is.
  const moved = (json: string) => json.replaceAll(JSON.stringify(record.url), JSON.stringify(`file://${bare}`));
  db.transaction(() => {
    const revision = db.prepare('UPDATE revisions SET git = ? WHERE id = ? AND space_id = ?');
    for (const { id, git } of record.revisions) revision.run(moved(git), id, record.spaceId);
    db.prepare('UPDATE spaces SET git_sync = ? WHERE id = ?').run(moved(record.gitSync), record.spaceId);
  })();
}
