import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The system `git`, run with arguments (never through a shell) in throwaway repositories. System
 * git rather than a JavaScript implementation: it speaks every transport (smart HTTP, file, SSH)
 * the way users' servers expect, handles large repositories, and is what `git http-backend` in the
 * tests serves. Nothing it prints reaches a client without `redact`: URLs may carry credentials.
 */

/** Removes credentials from any text git printed (URLs with user info). */
export function redact(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, '$1***@');
}

/** A failed git command, its message redacted and cut to something readable. */
export class GitError extends Error {
  override readonly name = 'GitError';
}

/** A URL git can fetch from: local paths become `file://` URLs. */
export function fetchableUrl(url: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `file://${resolve(url)}`;
}

export interface GitOptions {
  cwd: string;
  /** @default 120000 */
  timeoutMs?: number;
  /** Author and committer of commits. */
  author?: { name: string; email: string };
  /** Date of commits (ISO 8601); now when left out. */
  date?: string;
  /** Certificates (PEM) trusted for https remotes besides the system's: a private CA. */
  caFile?: string | undefined;
  /** More `key=value` settings, given last (they win): those of a `Remote`. */
  config?: readonly string[];
}

/**
 * Settings as git reads them from its environment (`GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_<n>`,
 * `GIT_CONFIG_VALUE_<n>`), with the precedence of `-c`: unlike arguments, the environment of a
 * process is not shown to other users of the machine (`ps`), and settings may hold credentials.
 */
export function configEnv(settings: readonly string[]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { GIT_CONFIG_COUNT: String(settings.length) };
  settings.forEach((setting, index) => {
    const equals = setting.indexOf('=');
    env[`GIT_CONFIG_KEY_${index}`] = setting.slice(0, equals);
    env[`GIT_CONFIG_VALUE_${index}`] = setting.slice(equals + 1);
  });
  return env;
}

/**
 * The environment every git process runs in: the platform's settings (no hooks, no credential
 * helper, the private CA), then those of `options.config`, no prompt for credentials, no user or
 * system configuration, and the author and date of commits when given.
 */
export function gitEnv(options: GitOptions): NodeJS.ProcessEnv {
  const settings = [
    'core.hooksPath=/dev/null',
    'protocol.allow=always',
    'credential.helper=',
    ...(options.caFile ? [`http.sslCAInfo=${options.caFile}`] : []),
    ...(options.config ?? []),
  ];
  return {
    ...configEnv(settings),
    PATH: process.env.PATH,
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: 'echo',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    HOME: options.cwd,
    LANG: 'C',
    ...(options.author
      ? {
          GIT_AUTHOR_NAME: options.author.name,
          GIT_AUTHOR_EMAIL: options.author.email,
          GIT_COMMITTER_NAME: options.author.name,
          GIT_COMMITTER_EMAIL: options.author.email,
        }
      : {}),
    ...(options.date ? { GIT_AUTHOR_DATE: options.date, GIT_COMMITTER_DATE: options.date } : {}),
  };
}

/** A failed git process as a `GitError`: the last line it printed on stderr (else `fallback`), redacted and cut. */
export function gitFailure(stderr: string, fallback: string): GitError {
  const printed = redact(stderr).trim().split('\n').filter(Boolean);
  return new GitError((printed.at(-1) ?? redact(fallback)).replace(/^fatal: /, '').slice(0, 500));
}

/** Runs `git <args>` and returns what it printed on stdout. */
export function git(args: readonly string[], options: GitOptions): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      'git',
      args,
      {
        cwd: options.cwd,
        env: gitEnv(options),
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'buffer',
      },
      (error, stdout, stderr) => {
        if (!error) resolvePromise(Buffer.from(stdout).toString('utf8'));
        else if ((error as { killed?: boolean }).killed) reject(new GitError('git did not finish in time'));
        else reject(gitFailure(Buffer.from(stderr).toString('utf8'), error.message));
      },
    );
  });
}

/** A scratch repository, removed by `dispose`. */
export interface Scratch {
  dir: string;
  dispose(): void;
}

/** An empty repository in a temporary folder. */
export async function scratchRepository(): Promise<Scratch> {
  const dir = mkdtempSync(join(tmpdir(), 'git-sync-'));
  await git(['init', '--quiet', '--initial-branch=main', dir], { cwd: dir });
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
