import { execFileSync } from 'node:child_process';
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { configEnv, git, GitError } from '../../src/platform/git/command.js';
import { openRemote, refProblem, remoteFailure, repositoryProblem } from '../../src/platform/git/remote.js';
import {
  fetchUrl,
  isPrivateAddress,
  OutboundError,
  postUrl,
  publicAddresses,
  RESOLVE_TIMEOUT_MS,
  type Resolver,
  storedHttpUrlProblem,
} from '../../src/platform/outbound.js';
import { PRIVATE_URLS } from '../fixtures/private-urls.js';

/** A resolver answering from a table, counting the names it was asked. */
function table(answers: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (host: string): Promise<LookupAddress[]> => {
    asked.push(host);
    const found = answers[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
}

describe('the address guard', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'shared address space'],
    ['0.0.0.0', 'this network'],
    ['192.0.2.1', 'documentation'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local with a zone'],
    ['fec0::1', 'site-local'],
    ['fd00::1', 'unique local'],
    ['ff02::1', 'multicast'],
    ['100::1', 'discard'],
    ['::7f00:1', 'IPv4-compatible'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
    ['64:ff9b:1::808:808', 'local-use NAT64'],
    ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
    ['2002:a9fe:a9fe::', '6to4 of 169.254.169.254'],
    ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
    ['2001:0:7f00:1::', 'Teredo with a loopback server'],
    ['2001:0:808:808:0:0:f5ff:fffe', 'Teredo with client 10.0.0.1 (stored inverted)'],
    ['2001:0:808:808:0:0:80ff:fffe', 'Teredo with client 127.0.0.1 (stored inverted)'],
    ['2001:2::1', 'benchmarking'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['5f00::1', 'segment routing'],
    ['not-an-address', 'a name'],
  ])('refuses %s (%s)', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    ['8.8.8.8'],
    ['93.184.216.34'],
    ['2606:4700:4700::1111'],
    ['::ffff:8.8.8.8'],
    ['64:ff9b::808:808'],
    ['2002:808:808::1'],
    ['2001:0:808:808:0:0:f7f7:f7f7'],
  ])('lets %s through', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('checks every address a name resolves to, and says the same of a name that does not resolve', async () => {
    const resolve = table({
      'public.example': ['93.184.216.34', '2606:2800:220:1::1'],
      'internal.example': ['10.0.0.5'],
      'mixed.example': ['93.184.216.34', '127.0.0.1'],
      'mapped.example': ['::ffff:169.254.169.254'],
      'sixtofour.example': ['2002:a00:1::1'],
    });
    expect((await publicAddresses('public.example', resolve)).map((entry) => entry.address)).toEqual([
      '93.184.216.34',
      '2606:2800:220:1::1',
    ]);
    for (const host of [
      'internal.example',
      'mixed.example',
      'mapped.example',
      'sixtofour.example',
      'missing.example',
    ]) {
      await expect(publicAddresses(host, resolve)).rejects.toThrow(
        new OutboundError(`${host} does not resolve to public addresses only`),
      );
    }
    await expect(publicAddresses('::ffff:7f00:1', resolve)).rejects.toThrow(
      '::ffff:7f00:1 is a private or reserved address',
    );
    // Loopback names are refused without asking a resolver.
    for (const host of ['localhost', 'LOCALHOST.', 'api.localhost', 'localhost..']) {
      await expect(publicAddresses(host, resolve)).rejects.toThrow(`${host} is a loopback name`);
    }
    expect(resolve.asked).toEqual([
      'public.example',
      'internal.example',
      'mixed.example',
      'mapped.example',
      'sixtofour.example',
      'missing.example',
    ]);
  });

  it('gives a name RESOLVE_TIMEOUT_MS to resolve', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const silent: Resolver = () => new Promise(() => undefined);
      const refused = publicAddresses('slow.example', silent).catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(RESOLVE_TIMEOUT_MS - 1);
      expect(vi.getTimerCount()).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(await refused).toEqual(new OutboundError('slow.example does not resolve to public addresses only'));
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('URLs checked when they are stored', () => {
  it('says why of every private form, in the words of the fetch-time guard, without asking a resolver for an address', async () => {
    const resolve = table({});
    for (const [url, form, guard] of PRIVATE_URLS) {
      const expected = guard === 'scheme' ? expect.any(String) : `must be on a public address (${guard})`;
      expect([form, await storedHttpUrlProblem(url, false, resolve)]).toEqual([form, expected]);
    }
    for (const url of ['file:///etc/passwd', 'gopher://127.0.0.1:6379/_INFO', 'jar:http://127.0.0.1/a.jar!/b']) {
      expect(await storedHttpUrlProblem(url, false, resolve)).toBe('must be an http or https URL');
    }
    expect(resolve.asked).toEqual(['no-such-host.invalid']);
  });

  it('resolves a name and checks every address, takes http and https only, and takes anything well formed when private targets are allowed', async () => {
    const resolve = table({
      'public.example': ['93.184.216.34', '2606:2800:220:1::1'],
      'internal.example': ['10.0.0.5'],
      'mixed.example': ['93.184.216.34', '127.0.0.1'],
      'mapped.example': ['::ffff:169.254.169.254'],
    });
    expect(await storedHttpUrlProblem('https://user:pw@public.example/spec.yaml', false, resolve)).toBeUndefined();
    for (const host of ['internal.example', 'mixed.example', 'mapped.example']) {
      expect(await storedHttpUrlProblem(`https://${host}/spec.yaml`, false, resolve)).toBe(
        `must be on a public address (${host} does not resolve to public addresses only)`,
      );
    }
    expect(await storedHttpUrlProblem('ftp://public.example/spec.yaml', false, resolve)).toBe(
      'must be an http or https URL',
    );
    expect(await storedHttpUrlProblem('not a url', true, resolve)).toBe('is not a valid URL');
    expect(await storedHttpUrlProblem('http://127.0.0.1:4010/spec.yaml', true, resolve)).toBeUndefined();
    expect(resolve.asked).toEqual(['public.example', 'internal.example', 'mixed.example', 'mapped.example']);
  });
});

describe('HTTP requests behind the guard', () => {
  let target: Server;
  let redirector: HttpServer;
  let connections = 0;
  let redirectorUrl: string;
  beforeAll(async () => {
    target = createServer((socket) => {
      connections += 1;
      socket.on('error', () => undefined).end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const targetPort = (target.address() as { port: number }).port;
    redirector = createHttpServer((_request, response) =>
      response.writeHead(302, { location: `http://127.0.0.1:${targetPort}/inside` }).end(),
    );
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    redirectorUrl = `http://127.0.0.1:${(redirector.address() as { port: number }).port}/`;
  });
  afterAll(async () => {
    redirector.closeAllConnections();
    await Promise.all([
      new Promise((resolve) => target.close(resolve)),
      new Promise((resolve) => redirector.close(resolve)),
    ]);
  });

  it('follows no redirect, and refuses a name that resolves to a private address when connecting', async () => {
    // Loopback allowed for the first hop, as in tests: the redirect is an answer, not followed.
    await expect(fetchUrl(redirectorUrl, { allowPrivate: true, maxBytes: 100 })).rejects.toThrow(
      `${redirectorUrl} answered 302`,
    );
    expect(await postUrl(redirectorUrl, { allowPrivate: true, headers: {}, body: Buffer.from('{}') })).toEqual({
      status: 302,
    });
    const port = (target.address() as { port: number }).port;
    for (const url of [
      `http://localhost.:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://[2002:7f00:1::]:${port}/`,
    ]) {
      await expect(fetchUrl(url, { allowPrivate: false, maxBytes: 100 })).rejects.toBeInstanceOf(OutboundError);
      await expect(postUrl(url, { allowPrivate: false, headers: {}, body: Buffer.from('{}') })).rejects.toBeInstanceOf(
        OutboundError,
      );
    }
    // The machine's own name resolves to one of its addresses: checked when connecting.
    const machine = hostname();
    const own = await lookup(machine, { all: true }).catch(() => []);
    if (own.length > 0 && own.every((entry) => isPrivateAddress(entry.address))) {
      await expect(fetchUrl(`http://${machine}:${port}/`, { allowPrivate: false, maxBytes: 100 })).rejects.toThrow(
        `http://${machine.toLowerCase()}:${port}/ does not resolve to public addresses only`,
      );
    }
    expect(connections).toBe(0);
  });
});

describe('Git remotes behind the guard', () => {
  it('pins git to the addresses checked, follows no redirect and speaks https only', async () => {
    const resolve = table({
      'git.example': ['93.184.216.34', '2606:2800:220:1::1'],
      'inside.example': ['192.168.0.10'],
    });
    // The URL's credentials go to a header setting, never on git's command line.
    expect(await openRemote('https://bot:t0ken@git.example/acme/docs.git', false, resolve)).toEqual({
      url: 'https://git.example/acme/docs.git',
      config: [
        'protocol.allow=never',
        'protocol.https.allow=always',
        'http.followRedirects=false',
        'http.curloptResolve=git.example:443:93.184.216.34,[2606:2800:220:1::1]',
        `http.extraHeader=Authorization: Basic ${Buffer.from('bot:t0ken').toString('base64')}`,
      ],
    });
    // A literal address is what git connects to: checked, not pinned. A numeric host is given in its dotted form.
    expect(
      await openRemote(`https://${173 * 2 ** 24 + 194 * 2 ** 16 + 1 * 2 ** 8 + 34}:8443/r.git`, false, resolve),
    ).toEqual({
      url: 'https://173.194.1.34:8443/r.git',
      config: ['protocol.allow=never', 'protocol.https.allow=always', 'http.followRedirects=false'],
    });
    await expect(openRemote('https://inside.example/r.git', false, resolve)).rejects.toThrow(
      new GitError(
        'the repository is not on a public address (inside.example does not resolve to public addresses only)',
      ),
    );
    await expect(openRemote('https://2130706433/r.git', false, resolve)).rejects.toThrow(
      '127.0.0.1 is a private or reserved address',
    );
    await expect(openRemote('http://git.example/r.git', false, resolve)).rejects.toThrow('must be an https:// URL');
    // Local demos and tests: as given.
    expect(await openRemote('/srv/repo.git', true, resolve)).toEqual({ url: 'file:///srv/repo.git', config: [] });
    expect(await openRemote('http://u%40x:p%3Aw@127.0.0.1:9/r.git', true, resolve)).toEqual({
      url: 'http://127.0.0.1:9/r.git',
      config: [`http.extraHeader=Authorization: Basic ${Buffer.from('u@x:p:w').toString('base64')}`],
    });
    expect(await repositoryProblem('https://u:pw@inside.example/r.git', false, resolve)).toBe(
      'must be on a public address (inside.example does not resolve to public addresses only)',
    );
    expect(await repositoryProblem('https://git.example/r.git', false, resolve)).toBeUndefined();
  });

  it('gives git its settings in its environment, not on its command line', () => {
    expect(configEnv(['http.extraHeader=Authorization: Basic eD15', 'core.hooksPath=/dev/null'])).toEqual({
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'http.extraHeader',
      GIT_CONFIG_VALUE_0: 'Authorization: Basic eD15',
      GIT_CONFIG_KEY_1: 'core.hooksPath',
      GIT_CONFIG_VALUE_1: '/dev/null',
    });
  });

  describe('what the git on this machine does with those settings', () => {
    let listener: Server;
    let port: number;
    let connections = 0;
    const sockets = new Set<Socket>();
    let work: string;
    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), 'outbound-git-'));
      // Counts connections; answers each with a redirect to itself, so a redirect followed is one more.
      listener = createServer((socket) => {
        connections += 1;
        sockets.add(socket.on('close', () => sockets.delete(socket)));
        socket.end(
          `HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:${port}/elsewhere.git/info/refs?service=git-upload-pack\r\nContent-Length: 0\r\n\r\n`,
        );
      });
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      port = (listener.address() as { port: number }).port;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => listener.close(resolve));
      rmSync(work, { recursive: true, force: true });
    });

    it('connects a pinned name to the pinned address (http.curloptResolve), and follows no redirect (http.followRedirects)', async () => {
      // http.curloptResolve came with git 2.37.
      expect(execFileSync('git', ['--version']).toString()).toMatch(/^git version (2\.(3[7-9]|[4-9]\d)|[3-9])/);
      const lsRemote = (config: string[]) =>
        git(['ls-remote', `http://repo.example.test:${port}/r.git`], { cwd: work, config }).catch(
          (error: unknown) => error,
        );
      const pin = `http.curloptResolve=repo.example.test:${port}:127.0.0.1`;
      // repo.example.test does not resolve: the connection went to the pinned address, once.
      expect(await lsRemote(['http.followRedirects=false', pin])).toBeInstanceOf(GitError);
      expect(connections).toBe(1);
      // Git's default follows the first redirect: the setting is what stops it.
      connections = 0;
      expect(await lsRemote([pin])).toBeInstanceOf(GitError);
      expect(connections).toBeGreaterThan(1);
    });
  });

  it('says the same of every failure that is not about the repository itself, and never shows credentials', () => {
    const said = (printed: string) => remoteFailure(new GitError(printed), 'read');
    const unreachable = 'could not read the repository: it could not be reached, or did not answer as a Git server';
    for (const printed of [
      "unable to access 'https://***@127.0.0.1:1/r.git/': Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server",
      "unable to access 'https://127.0.0.1:4722/r.git/': gnutls_handshake() failed: An unexpected TLS packet was received.",
      "unable to access 'https://git.example/r.git/': SSL certificate problem: self-signed certificate",
      "unable to access 'https://nope.invalid/r.git/': Could not resolve host: nope.invalid",
      "unable to access 'https://git.example/r.git/': The requested URL returned error: 500",
      "unable to access 'https://git.example/r.git/': Recv failure: Connection reset by peer",
    ]) {
      expect(said(printed)).toBe(unreachable);
    }
    expect(said("Authentication failed for 'https://***@git.example/r.git/'")).toBe(
      'could not read the repository: authentication failed: check the credentials in the URL',
    );
    expect(said("repository 'https://git.example/r.git/' not found")).toBe(
      'could not read the repository: repository not found',
    );
    expect(remoteFailure(new GitError('! [rejected]        HEAD -> main (non-fast-forward)'), 'push to')).toBe(
      'could not push to the repository: the repository refused the push',
    );
  });
});

describe('branch refs', () => {
  /** What `git check-ref-format` says of a ref. */
  const gitAccepts = (ref: string) => {
    try {
      execFileSync('git', ['check-ref-format', ref], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };

  it('accepts and refuses branch refs as git check-ref-format does', () => {
    const refs = [
      'refs/heads/main',
      'refs/heads/feature/new-docs',
      'refs/heads/v1.2',
      'refs/heads/été',
      'refs/heads/a-b_c+d',
      'refs/heads/../../etc',
      'refs/heads/a..b',
      'refs/heads/a@{1}',
      'refs/heads/x.lock',
      'refs/heads/x.lock/y',
      'refs/heads/.hidden',
      'refs/heads/a/.b',
      'refs/heads/a//b',
      'refs/heads/a/',
      'refs/heads/a.',
      'refs/heads/a b',
      'refs/heads/a\tb',
      'refs/heads/a\u0001b',
      'refs/heads/a\u007fb',
      'refs/heads/a~1',
      'refs/heads/a^',
      'refs/heads/a:b',
      'refs/heads/a?',
      'refs/heads/a*',
      'refs/heads/a[b',
      'refs/heads/a\\b',
    ];
    for (const ref of refs) expect([ref, refProblem(ref) === undefined]).toEqual([ref, gitAccepts(ref)]);
  });

  it('asks for a branch (refs/heads/…) whose name does not look like an option, within a length', () => {
    for (const ref of [
      'main',
      'refs/tags/v1',
      'refs/heads/',
      'refs/heads/-delete',
      'refs/heads/@',
      `refs/heads/${'a'.repeat(250)}`,
    ]) {
      expect([ref, refProblem(ref)]).toEqual([ref, expect.any(String)]);
    }
    expect(refProblem(`refs/heads/${'a'.repeat(250)}`)).toBe('must be at most 255 characters, not 261');
    expect(refProblem('refs/heads/../../etc')).toBe('must not contain ".."');
  });
});
