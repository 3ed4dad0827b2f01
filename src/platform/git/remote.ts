import { isAbsolute } from 'node:path';
import { checkOutboundUrl, hostOf, outboundUrlProblem, type Resolver, takeBasicCredentials } from '../outbound.js';
import { fetchableUrl, GitError } from './command.js';

/**
 * The repository a Git Sync operation talks to, behind the platform's outbound guard. Unless
 * local repositories are allowed (demo and test runs), a repository is an `https://` URL whose
 * host is not a loopback name and stands for public addresses only; git (curl underneath) is
 * pinned to the addresses checked (`http.curloptResolve`), follows no redirect, and speaks https
 * only, so what git connects to is what was checked. What a failed operation says of the remote
 * never tells a closed port from an open one, and never shows the URL's credentials.
 */

/** Longest branch ref accepted. */
export const MAX_REF_LENGTH = 255;

/** Where a repository is, checked: `https://` always; `http://`, `file://` and local paths only when local repositories are allowed. */
export function checkRepositoryUrl(url: string, allowLocal: boolean): string | undefined {
  if (/^https:\/\//i.test(url)) return URL.canParse(url) ? undefined : 'is not a valid URL';
  if (!allowLocal) return 'must be an https:// URL';
  if (/^(http|file):\/\//i.test(url)) return undefined;
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return 'must be an https://, http://, file:// URL or a local path';
  if (!isAbsolute(url)) return 'a local path must be absolute';
  return undefined;
}

/**
 * `checkRepositoryUrl`, then (unless local repositories are allowed) the addresses of the URL's
 * host, checked by the outbound guard: why the platform may not use this repository, or undefined.
 */
export function repositoryProblem(url: string, allowLocal: boolean, resolve?: Resolver): Promise<string | undefined> {
  return outboundUrlProblem(url, checkRepositoryUrl(url, allowLocal), allowLocal, resolve);
}

/** A repository as git is to reach it. */
export interface Remote {
  /** The URL git is given (without credentials: those are in `config`). */
  url: string;
  /** `key=value` settings git runs with (`-c`) to reach it. */
  config: string[];
}

/**
 * The remote of an operation: with local repositories allowed, the URL as given (local paths as
 * `file://`); otherwise the URL checked again now (its host resolved, every address checked) and
 * git pinned to those addresses, with redirects off and https the only protocol. A `GitError`
 * when the URL is refused.
 */
export async function openRemote(raw: string, allowLocal: boolean, resolve?: Resolver): Promise<Remote> {
  const remote = await checkedRemote(raw, allowLocal, resolve);
  return withCredentialsApart(remote);
}

/**
 * The remote with the credentials of its URL moved into a setting (an `Authorization` header git
 * sends): git's command line, which other users of the machine see, never holds them, and what
 * git prints never shows them.
 */
function withCredentialsApart(remote: Remote): Remote {
  if (!/^https?:/i.test(remote.url)) return remote;
  const url = new URL(remote.url);
  const authorization = takeBasicCredentials(url);
  if (!authorization) return remote;
  return { url: url.href, config: [...remote.config, `http.extraHeader=Authorization: ${authorization}`] };
}

async function checkedRemote(raw: string, allowLocal: boolean, resolve?: Resolver): Promise<Remote> {
  if (allowLocal) return { url: fetchableUrl(raw), config: [] };
  const check = await checkOutboundUrl(raw, checkRepositoryUrl(raw, false), false, resolve);
  if (check.problem !== undefined) {
    throw new GitError(
      check.ofAddress
        ? `the repository is not on a public address (${check.problem})`
        : `the repository URL ${check.problem}`,
    );
  }
  const { addresses } = check;
  const url = new URL(raw);
  const host = hostOf(url);
  const port = url.port || '443';
  const pinned = addresses.map(({ address, family }) => (family === 6 ? `[${address}]` : address)).join(',');
  return {
    // The URL as it was checked (a numeric host such as 2130706433 in its dotted form).
    url: url.href,
    config: [
      'protocol.allow=never',
      'protocol.https.allow=always',
      'http.followRedirects=false',
      // A literal address is connected to as it is; a name only to the addresses checked.
      ...(addresses[0]!.address === host ? [] : [`http.curloptResolve=${url.hostname}:${port}:${pinned}`]),
    ],
  };
}

/**
 * Why `ref` is not a branch ref git accepts, or undefined: `refs/heads/<name>` by the rules of
 * `git check-ref-format` (no `..`, `@{`, `//`, control characters, space, `~ ^ : ? * [ \`, no
 * component starting with `.` or ending with `.lock`, no trailing `/` or `.`), a name not starting
 * with `-`, at most `MAX_REF_LENGTH` characters.
 */
export function refProblem(ref: string): string | undefined {
  if (ref.length > MAX_REF_LENGTH) return `must be at most ${MAX_REF_LENGTH} characters, not ${ref.length}`;
  if (!ref.startsWith('refs/heads/') || ref.length === 'refs/heads/'.length)
    return 'must be a branch ref such as refs/heads/main';
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(ref))
    return 'must not contain spaces, control characters or any of ~ ^ : ? * [ \\';
  if (ref.includes('..')) return 'must not contain ".."';
  if (ref.includes('@{')) return 'must not contain "@{"';
  if (ref.endsWith('/') || ref.endsWith('.')) return 'must not end with "/" or "."';
  const name = ref.slice('refs/heads/'.length);
  if (name.startsWith('-')) return 'must not name a branch starting with "-"';
  if (name === '@') return 'must not name the branch "@"';
  for (const component of name.split('/')) {
    if (component === '') return 'must not contain "//"';
    if (component.startsWith('.')) return 'must not have a part starting with "."';
    if (component.endsWith('.lock')) return 'must not have a part ending with ".lock"';
  }
  return undefined;
}

/** What a failed fetch or push says, by what git printed, when it is about the repository itself. */
const REPOSITORY_FAILURES: ReadonlyArray<[RegExp, string]> = [
  [
    /authentication failed|could not read (username|password)|returned error: 40[13]\b/i,
    'authentication failed: check the credentials in the URL',
  ],
  [
    /repository .* not found|returned error: 404\b|does not appear to be a git repository|not a git repository/i,
    'repository not found',
  ],
  [/\[(remote )?rejected\]|non-fast-forward|pre-receive hook declined/i, 'the repository refused the push'],
  [/did not finish in time/, 'git did not finish in time'],
];

/**
 * What an operation may say of a failed fetch or push: authentication failed, repository not
 * found, push refused or timed out, else one sentence for every other failure (name not
 * resolved, connection refused, TLS failure, an HTTP error), so that the answer does not tell
 * whether a port is open. Never the URL or its credentials.
 */
export function remoteFailure(error: GitError, action: 'read' | 'push to'): string {
  const known = REPOSITORY_FAILURES.find(([pattern]) => pattern.test(error.message));
  return `could not ${action} the repository: ${known ? known[1] : 'it could not be reached, or did not answer as a Git server'}`;
}
