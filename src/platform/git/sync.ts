import { newSecret } from '../http.js';
import { PermanentJobError, type JobQueue } from '../jobs.js';
import { timeSlices, writeInSlices } from '../slices.js';
import type { SpaceRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { prepareDocument, setCurrentRevision, stageIndex } from '../content/current.js';
import type { JSONDocument } from '../../document/model.js';
import { storeFile } from '../content/files.js';
import { getBlob } from '../content/blobs.js';
import {
  getDocument,
  loadRevision,
  putDocument,
  type PreparedDocument,
  storeRevision,
  writeContentAhead,
  type ContentFile,
  type ContentPage,
} from '../content/revisions.js';
import { recordSpaceEvents } from '../integrations/events.js';
import {
  type Direction,
  type GitOperation,
  type GitSyncStored,
  maskUrl,
  type Stage,
  storedGitSync,
} from '../spaces/git-sync.js';
import { git, GitError, scratchRepository, type Scratch } from './command.js';
import { commitWriter, readBlobs } from './objects.js';
import { openRemote, remoteFailure, type Remote } from './remote.js';
import { contentFiles, filesToContent, isExportedPath, LayoutError, type RepoFile } from './layout.js';

/**
 * Git Sync of a space: import (repository → a revision of the space) and export (the space's
 * current content → a commit pushed to the repository), each a job of the queue, one at a time per
 * space in the order asked. The state users see (`git/info`, the space's `gitSync`) is kept on
 * the space: the repository (its URL without credentials), the ref and project directory, the
 * last operation with its stage, and what was last synchronized. Credentials in a URL are used
 * for that operation only: they are kept in memory, never written anywhere, so an operation that a
 * restart interrupts (or that waited across one) fails and asks to be run again.
 */

export const GIT_JOB = 'git-sync';
/** Largest file an import reads. */
export const MAX_GIT_FILE_BYTES = 100 * 1024 * 1024;

export interface GitJob {
  spaceId: string;
  direction: Direction;
  /** The URL without credentials. */
  url: string;
  /** Key of the URL with its credentials in `secrets`, when it has some. */
  secret?: string;
  ref: string;
  directory: string;
  force: boolean;
  standalone: boolean;
  timestamp?: string;
  commitMessage?: string;
}

/** URLs with credentials of queued operations, by key: in memory only. */
const secrets = new Map<string, string>();

/** Options of Git Sync on this platform. */
export interface GitSyncOptions {
  /** Author and committer of exported commits. */
  author: { name: string; email: string };
  /** Certificates (PEM) trusted for https remotes besides the system's. */
  caFile?: string | undefined;
  /** Accept `file://`, `http://` URLs, local paths and private addresses (demo and test runs). */
  allowLocal: boolean;
}

function writeState(db: Db, spaceId: string, change: (state: GitSyncStored) => GitSyncStored): void {
  const row = db.prepare('SELECT git_sync FROM spaces WHERE id = ?').get(spaceId) as
    | Pick<SpaceRow, 'git_sync'>
    | undefined;
  if (!row) return;
  db.prepare('UPDATE spaces SET git_sync = ? WHERE id = ?').run(JSON.stringify(change(storedGitSync(row))), spaceId);
}

/** Provider and repository name shown for a URL. */
function describe(url: string): { installationProvider: string; repoName: string } {
  const path = url
    .replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '')
    .replace(/\.git$/, '')
    .replace(/^\/+|\/+$/g, '');
  return {
    installationProvider: /gitlab/i.test(url) ? 'gitlab' : 'github',
    repoName: path.split('/').slice(-2).join('/') || path,
  };
}

/**
 * Records a new operation on the space (running, at its first stage) and queues it. Call inside
 * the transaction of the request that asks for it.
 */
export function queueOperation(db: Db, queue: JobQueue, job: Omit<GitJob, 'url' | 'secret'> & { url: string }): void {
  const masked = maskUrl(job.url);
  let secret: string | undefined;
  if (masked !== job.url) {
    secret = newSecret();
    secrets.set(secret, job.url);
  }
  const at = new Date().toISOString();
  writeState(db, job.spaceId, (state) => ({
    ...state,
    // A standalone operation (a snapshot) does not link the space to its repository.
    ...(job.standalone && state.url
      ? {}
      : { ...describe(masked), url: masked, ref: job.ref, repoProjectDirectory: job.directory }),
    operation: { state: 'running', direction: job.direction, stage: 'repo_fetch', startedAt: at, updatedAt: at },
    updatedAt: at,
  }));
  queue.enqueue(GIT_JOB, { ...job, url: masked, ...(secret ? { secret } : {}) } satisfies GitJob, {
    key: `space:${job.spaceId}`,
  });
}

/** Registers the Git Sync job on the queue. */
export function registerGitSync(queue: JobQueue, options: GitSyncOptions): void {
  queue.register<GitJob>(GIT_JOB, {
    interrupted: 'fail',
    run: (job, { db }) => runOperation(db, job, options),
    failed(job, reason, { db }) {
      if (job.secret) secrets.delete(job.secret);
      const at = new Date().toISOString();
      writeState(db, job.spaceId, (state) => ({
        ...state,
        operation: {
          ...(state.operation ?? { direction: job.direction, stage: 'repo_fetch', startedAt: at }),
          state: 'failure',
          updatedAt: at,
          endedAt: at,
          error: reason,
        } as GitOperation,
      }));
      // The commit of a failed operation is not kept: the event names none.
      const revision = db.prepare('SELECT revision FROM spaces WHERE id = ?').pluck(true).get(job.spaceId) as
        | string
        | undefined;
      if (revision)
        recordSpaceEvents(db, job.spaceId, {
          type: 'space_gitsync_completed',
          state: 'failure',
          revisionId: revision,
          commitId: '',
        });
    },
  });
}

async function runOperation(db: Db, job: GitJob, options: GitSyncOptions): Promise<void> {
  const url = job.secret ? secrets.get(job.secret) : job.url;
  if (!url)
    throw new PermanentJobError(
      'the platform restarted before the operation ran, and credentials are never kept: run it again',
    );
  const space = db.prepare('SELECT * FROM spaces WHERE id = ?').get(job.spaceId) as SpaceRow | undefined;
  if (!space || space.deleted_at) throw new PermanentJobError('the space no longer exists');
  const state = storedGitSync(space);
  if (job.timestamp && state.lastTimestamp && job.timestamp < state.lastTimestamp) {
    throw new PermanentJobError(
      `skipped: its timestamp ${job.timestamp} is older than that of the last operation applied (${state.lastTimestamp})`,
    );
  }
  const stage = (next: Stage) => {
    const at = new Date().toISOString();
    writeState(db, job.spaceId, (current) => ({
      ...current,
      operation: { ...current.operation!, stage: next, updatedAt: at },
    }));
  };
  const scratch = await scratchRepository();
  try {
    // Checked again now, and pinned: the name may resolve elsewhere than when it was asked for.
    const remote = await openRemote(url, options.allowLocal);
    const outcome =
      job.direction === 'import'
        ? await importRepository({ db, space, state, job, remote, scratch, stage, options })
        : await exportSpace({ db, space, state, job, remote, scratch, stage, options });
    const at = new Date().toISOString();
    db.transaction(() => {
      writeState(db, job.spaceId, (current) => ({
        ...current,
        operation: {
          ...current.operation!,
          state: 'success',
          stage: 'finalize',
          updatedAt: at,
          completedAt: at,
          endedAt: at,
        },
        ...(job.timestamp && (!current.lastTimestamp || job.timestamp > current.lastTimestamp)
          ? { lastTimestamp: job.timestamp }
          : {}),
        ...(job.standalone ? {} : { lastCommit: outcome.commit, lastRevision: outcome.revision }),
      }));
      recordSpaceEvents(db, job.spaceId, {
        type: 'space_gitsync_completed',
        state: 'success',
        revisionId: outcome.revision,
        commitId: outcome.commit,
      });
    })();
  } catch (error) {
    if (error instanceof GitError || error instanceof LayoutError) throw new PermanentJobError(error.message);
    throw error;
  } finally {
    scratch.dispose();
    if (job.secret) secrets.delete(job.secret);
  }
}

/**
 * Records `space_gitsync_started` for the integrations installed on the space, once the branch
 * was read: with the commit imported (or the tip an export commits onto, '' for a new branch)
 * and the space's current revision.
 */
function gitSyncStarted(db: Db, space: SpaceRow, commit: string): void {
  db.transaction(() =>
    recordSpaceEvents(db, space.id, { type: 'space_gitsync_started', revisionId: space.revision, commitId: commit }),
  )();
}

/** Fetches `ref`; undefined when the repository has no such branch. */
async function fetchRef(
  scratch: Scratch,
  remote: Remote,
  ref: string,
  caFile: string | undefined,
): Promise<string | undefined> {
  try {
    await git(['fetch', '--quiet', '--no-tags', '--depth=1', remote.url, `${ref}:refs/sync/tip`], {
      cwd: scratch.dir,
      caFile,
      config: remote.config,
    });
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    if (/couldn't find remote ref/i.test(error.message)) return undefined;
    throw new GitError(remoteFailure(error, 'read'));
  }
  return (await git(['rev-parse', 'refs/sync/tip'], { cwd: scratch.dir })).trim();
}

/** The files of a commit under `directory`, by path relative to it. */
async function readTree(scratch: Scratch, commit: string, directory: string): Promise<Map<string, RepoFile>> {
  const listing = await git(['ls-tree', '-r', '-l', '-z', commit], { cwd: scratch.dir });
  const prefix = directory ? `${directory}/` : '';
  const entries: Array<{ oid: string; size: number; path: string }> = [];
  for (const line of listing.split('\0')) {
    const match = /^\d+ blob ([0-9a-f]+)\s+(\d+|-)\t(.*)$/s.exec(line);
    if (!match) continue;
    const [, oid, size, path] = match as unknown as [string, string, string, string];
    if (!path.startsWith(prefix)) continue;
    if (Number(size) > MAX_GIT_FILE_BYTES) throw new LayoutError(`${path} is larger than 100 MB`);
    entries.push({ oid, size: Number(size), path: path.slice(prefix.length) });
  }
  const blobs = await readBlobs(
    scratch.dir,
    entries.map((entry) => entry.oid),
  );
  const files = new Map<string, RepoFile>();
  for (const entry of entries) files.set(entry.path, { oid: entry.oid, bytes: blobs.get(entry.oid)! });
  return files;
}

/** What an import or an export works with. */
interface Operation {
  db: Db;
  space: SpaceRow;
  /** The space's Git Sync as it was when the operation started. */
  state: GitSyncStored;
  job: GitJob;
  /** The repository, with the credentials of its URL, if it has some. */
  remote: Remote;
  scratch: Scratch;
  /** Records the stage the operation reached. */
  stage: (stage: Stage) => void;
  options: GitSyncOptions;
}

async function importRepository(operation: Operation): Promise<{ commit: string; revision: string }> {
  const { db, space, state, job, remote, scratch, stage, options } = operation;
  const commit = await fetchRef(scratch, remote, job.ref, options.caFile);
  if (!commit) throw new LayoutError(`the repository has no branch ${job.ref}`);
  gitSyncStarted(db, space, commit);
  stage('config_check');
  const files = await readTree(scratch, commit, job.directory);
  const message = (await git(['log', '-1', '--format=%B', commit], { cwd: scratch.dir })).trim();
  stage('content_process');
  const current = loadRevision(db, space.id, space.revision)!;
  const imported = await filesToContent(
    files,
    current.content,
    (id) => getDocument<JSONDocument>(db, space.id, id),
    timeSlices(),
  );
  // What costs in storing the documents (validating, serializing, the search sections) is done
  // here, in slices: the transaction below only writes.
  const slice = timeSlices();
  const documents = new Map<string, PreparedDocument>();
  for (const [id, document] of imported.documents) {
    documents.set(id, prepareDocument(db, space.id, document));
    // Only the prepared text is kept from here on.
    imported.documents.delete(id);
    await slice();
  }
  // Pages point at their documents by id, which the prepared documents know before they are stored.
  const withDocuments = (pages: ContentPage[]): ContentPage[] =>
    pages.map((page) => {
      const document = documents.get(page.id);
      const { documentId: _old, ...rest } = page;
      return { ...rest, ...(document ? { documentId: document.id } : {}), pages: withDocuments(page.pages) };
    });
  const pages = withDocuments(imported.content.pages);
  if (!job.standalone) await stageIndex(db, space.id, { ...imported.content, pages });
  // Documents and files are stored by their hash, so they are written ahead, a slice at a time:
  // nothing reads them until the revision below points at them.
  await writeInSlices(db, documents.values(), (document) => putDocument(db, space.id, document));
  const storedFiles: ContentFile[] = [];
  await writeInSlices(db, imported.content.files, (file) => {
    const bytes =
      files.get(file.git!.path.slice(job.directory ? job.directory.length + 1 : 0))?.bytes ?? Buffer.alloc(0);
    storedFiles.push({
      ...storeFile(db, { id: file.id, name: file.name, contentType: file.contentType, bytes }),
      git: file.git!,
    });
  });
  const content = await writeContentAhead(db, {
    pages,
    files: storedFiles,
    reusableContents: imported.content.reusableContents.map((item) => {
      const document = documents.get(item.id);
      return { ...item, ...(document ? { documentId: document.id } : {}) };
    }),
    variables: imported.content.variables,
  });
  stage('finalize');
  return db.transaction(() => {
    // Read again: the space may have changed while the repository was read.
    const now = db.prepare('SELECT * FROM spaces WHERE id = ?').get(space.id) as SpaceRow;
    const edited =
      !job.force && !job.standalone && state.lastRevision !== undefined && now.revision !== state.lastRevision;
    if (edited) {
      throw new PermanentJobError(
        'the space changed since its last sync: export it first, or import with force to replace its content',
      );
    }
    const revision = storeRevision(db, {
      spaceId: space.id,
      type: 'edits',
      parents: [now.revision],
      content,
      createdAt: new Date().toISOString(),
      git: { oid: commit, message, createdByGitBook: false, url: job.url, ref: job.ref },
    });
    if (!job.standalone) setCurrentRevision(db, space.id, revision);
    return { commit, revision };
  })();
}

async function exportSpace(operation: Operation): Promise<{ commit: string; revision: string }> {
  const { db, space, state, job, remote, scratch, stage, options } = operation;
  const tip = await fetchRef(scratch, remote, job.ref, options.caFile);
  gitSyncStarted(db, space, tip ?? '');
  const tipFiles = tip ? await projectFiles(scratch, tip, job.directory) : [];
  // The repository moved since the last sync: exporting over it would drop what was committed there.
  if (tip && !job.force && state.lastCommit !== tip && tipFiles.length > 0) {
    throw new PermanentJobError(
      'the branch changed since the last sync: import it first, or export with force to overwrite it',
    );
  }
  stage('content_process');
  const revision = loadRevision(db, space.id, space.revision)!;
  const inProject = (path: string) => (job.directory ? `${job.directory}/${path}` : path);
  const message = job.commitMessage?.trim() || 'Update from the docs platform';
  const writer = commitWriter({ cwd: scratch.dir, ref: SYNC_REF, from: tip, author: options.author, message });
  let commit: string;
  try {
    // The commit starts from the branch's tree: what the export owns goes, the rest stays.
    for (const { path, exported } of tipFiles) if (exported) await writer.remove(inProject(path));
    const slice = timeSlices();
    const files = contentFiles(revision.content, {
      document: (id) => getDocument<JSONDocument>(db, space.id, id),
      file: (file) => getBlob(db, file.hash) ?? Buffer.alloc(0),
    });
    for (const [path, bytes] of files) {
      await writer.write(inProject(path), bytes);
      await slice();
    }
    stage('finalize');
    commit = await writer.finish();
  } catch (error) {
    writer.abort();
    throw error;
  }
  if (tip && (await sameTree(scratch, commit, tip))) return { commit: tip, revision: revision.id };
  try {
    await git(['push', '--quiet', ...(job.force ? ['--force'] : []), remote.url, `${SYNC_REF}:${job.ref}`], {
      cwd: scratch.dir,
      caFile: options.caFile,
      config: remote.config,
    });
  } catch (error) {
    throw error instanceof GitError ? new GitError(remoteFailure(error, 'push to')) : error;
  }
  db.prepare('UPDATE revisions SET git = ? WHERE id = ? AND git IS NULL').run(
    JSON.stringify({ oid: commit, message, createdByGitBook: true, url: job.url, ref: job.ref }),
    revision.id,
  );
  return { commit, revision: revision.id };
}

/** The branch of the scratch repository an export commits on. */
const SYNC_REF = 'refs/heads/sync';

/**
 * The files of a commit in the project directory, relative to it, with whether an export replaces
 * them (`isExportedPath`): the tip's tree is listed once, for the check that the branch moved and
 * for the files the export's commit removes.
 */
async function projectFiles(
  scratch: Scratch,
  commit: string,
  directory: string,
): Promise<Array<{ path: string; exported: boolean }>> {
  const listing = await git(['ls-tree', '-r', '-z', '--full-tree', commit, ...(directory ? ['--', directory] : [])], {
    cwd: scratch.dir,
  });
  const prefix = directory ? `${directory}/` : '';
  const files: Array<{ path: string; exported: boolean }> = [];
  for (const entry of listing.split('\0')) {
    const match = /^\d+ (\w+) [0-9a-f]+\t(.*)$/s.exec(entry);
    if (!match || !match[2]!.startsWith(prefix)) continue;
    const path = match[2]!.slice(prefix.length);
    files.push({ path, exported: match[1] === 'blob' && isExportedPath(path) });
  }
  return files;
}

/** True when two commits hold the same tree. */
async function sameTree(scratch: Scratch, a: string, b: string): Promise<boolean> {
  const [treeA, treeB] = (await git(['rev-parse', `${a}^{tree}`, `${b}^{tree}`], { cwd: scratch.dir }))
    .trim()
    .split('\n');
  return treeA === treeB;
}

/** The last operation with its stage (`GitSyncSpaceOperation`), for the space's `gitSync`. */
export function storedOperation(space: SpaceRow): GitOperation | undefined {
  return storedGitSync(space).operation;
}
