import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { git, gitEnv, GitError, gitFailure } from './command.js';

/*
 * Git Sync's traffic with git's object store, streamed through one git process each way: files
 * an export writes go in through `git fast-import`, files an import reads come out through
 * `git cat-file --batch`. No work tree is written or read.
 */

/**
 * A commit written through `git fast-import`: files are streamed to git as they are made, into
 * the object store, with no work tree. An export of thousands of pages so writes no file to disk,
 * checks nothing out, lets no `git add` hash everything again, and keeps in memory only the files
 * git has not read yet (writes wait while its input is full).
 */
export interface CommitWriter {
  /** Removes `path` from the tree the commit starts from. */
  remove(path: string): Promise<void>;
  /** Puts `bytes` at `path` (a regular file). */
  write(path: string, bytes: Buffer): Promise<void>;
  /** Ends the commit; resolves to its id, once git has written it. */
  finish(): Promise<string>;
  /** Gives the commit up (git is stopped, nothing is written to the ref). */
  abort(): void;
}

export interface CommitOptions {
  /** The folder of the repository. */
  cwd: string;
  /** The branch written, e.g. `refs/heads/sync`. */
  ref: string;
  /** The parent commit, whose tree the commit starts from; none for a first commit. */
  from?: string | undefined;
  author: { name: string; email: string };
  message: string;
}

/** A path in fast-import's C-style quotes (any path may be quoted; some must be). */
const quoted = (path: string) => `"${path.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}"`;

/** A name or e-mail as an identity line allows it: no angle brackets, no line breaks. */
const identity = (text: string) => text.replace(/[<>\n]/g, '').trim();

/** A git process streamed through its standard input and output. */
interface GitProcess {
  child: ChildProcess;
  /** Resolves to the exit code once the process ended (-1 when it could not start). */
  exited: Promise<number | null>;
  /** Why it failed, by the last line it printed on stderr. */
  failure(): GitError;
}

/** Starts `git <args>` in `cwd`, in the environment of every git command, its stderr kept for `failure`. */
function startGit(args: readonly string[], cwd: string, stdout: 'pipe' | 'ignore'): GitProcess {
  const child = spawn('git', args, { cwd, env: gitEnv({ cwd }), stdio: ['pipe', stdout, 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 4096) stderr += chunk;
  });
  // A write after git died fails (EPIPE): the exit tells why.
  child.stdin!.on('error', () => undefined);
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', (error) => {
      stderr += error.message;
      resolve(-1);
    });
    child.once('close', resolve);
  });
  return { child, exited, failure: () => gitFailure(stderr, `git ${args[0]} failed`) };
}

/** Starts a commit on `ref`; write its files, then `finish` it. */
export function commitWriter(options: CommitOptions): CommitWriter {
  const { child, exited, failure } = startGit(['fast-import', '--quiet', '--date-format=raw'], options.cwd, 'ignore');

  const send = async (...parts: Array<string | Buffer>): Promise<void> => {
    if (child.exitCode !== null || child.killed) throw failure();
    let full = false;
    for (const part of parts) full = !child.stdin!.write(part) || full;
    if (full) await Promise.race([once(child.stdin!, 'drain'), exited]);
  };
  const data = (bytes: Buffer | string) => {
    const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
    return [`data ${buffer.length}\n`, buffer, '\n'];
  };

  const who = `${identity(options.author.name)} <${identity(options.author.email)}> ${Math.floor(Date.now() / 1000)} +0000`;
  const started = send(
    `commit ${options.ref}\n`,
    `author ${who}\n`,
    `committer ${who}\n`,
    ...data(options.message),
    ...(options.from ? [`from ${options.from}\n`] : []),
  );
  // Awaited by every step; a failure here is theirs to report.
  started.catch(() => undefined);

  return {
    async remove(path) {
      await started;
      await send(`D ${quoted(path)}\n`);
    },
    async write(path, bytes) {
      await started;
      await send(`M 100644 inline ${quoted(path)}\n`, ...data(bytes));
    },
    async finish() {
      await started;
      child.stdin!.end('\n');
      if ((await exited) !== 0) throw failure();
      return (await git(['rev-parse', options.ref], { cwd: options.cwd })).trim();
    },
    abort() {
      child.kill();
    },
  };
}

/**
 * The bytes of blobs of the repository in `cwd`, by id, read through one `git cat-file --batch`:
 * nothing is checked out or written to disk. Reading waits while git's output is not consumed, and
 * the caller's event loop runs between the chunks git sends.
 */
export async function readBlobs(cwd: string, oids: readonly string[]): Promise<Map<string, Buffer>> {
  const blobs = new Map<string, Buffer>();
  const wanted = [...new Set(oids)];
  if (wanted.length === 0) return blobs;
  const { child, exited, failure } = startGit(['cat-file', '--batch'], cwd, 'pipe');
  // Ids are written as git reads them; its answers are read meanwhile, so neither side blocks.
  void (async () => {
    for (const oid of wanted)
      if (!child.stdin!.write(`${oid}\n`)) await Promise.race([once(child.stdin!, 'drain'), exited]);
    child.stdin!.end();
  })();
  let pending: Buffer = Buffer.alloc(0);
  let index = 0;
  for await (const chunk of child.stdout! as AsyncIterable<Buffer>) {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    for (;;) {
      const eol = pending.indexOf(10);
      if (eol < 0) break;
      const header = pending.subarray(0, eol).toString('utf8');
      const match = /^([0-9a-f]+) blob (\d+)$/.exec(header);
      if (!match)
        throw new GitError(`git cat-file answered "${header.slice(0, 100)}" for ${wanted[index] ?? 'nothing asked'}`);
      const size = Number(match[2]);
      if (pending.length < eol + 1 + size + 1) break;
      blobs.set(match[1]!, Buffer.from(pending.subarray(eol + 1, eol + 1 + size)));
      pending = pending.subarray(eol + 1 + size + 1);
      index += 1;
    }
  }
  if ((await exited) !== 0 || index !== wanted.length) throw failure();
  return blobs;
}
