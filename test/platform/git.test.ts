import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { hostname as osHostname, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/platform/outbound.js';
import { gitHttpServer } from '../fixtures/git-server.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

let p: TestPlatform;
let work: string;

beforeAll(async () => {
  p = await startTestPlatform();
  work = mkdtempSync(join(tmpdir(), 'git-test-'));
});

afterAll(async () => {
  await p?.destroy();
  rmSync(work, { recursive: true, force: true });
});

const run = (args: string[], cwd?: string) =>
  execFileSync('git', args, {
    cwd,
    env: {
      PATH: process.env.PATH,
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: work,
      GIT_AUTHOR_NAME: 'Tester',
      GIT_AUTHOR_EMAIL: 't@test',
      GIT_COMMITTER_NAME: 'Tester',
      GIT_COMMITTER_EMAIL: 't@test',
    },
  }).toString();

let repos = 0;
function bareRepository(): string {
  repos += 1;
  const path = join(work, `repo-${repos}.git`);
  run(['init', '--bare', '--quiet', '--initial-branch=main', path]);
  return path;
}

/** A repository with these files committed on `main`; returns its bare path. */
function repositoryWith(files: Record<string, string | Buffer>, message = 'Docs'): string {
  const bare = bareRepository();
  const tree = join(work, `tree-${repos}`);
  mkdirSync(tree);
  run(['init', '--quiet', '--initial-branch=main'], tree);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), content);
  }
  run(['add', '--all'], tree);
  run(['commit', '--quiet', '-m', message], tree);
  run(['push', '--quiet', bare, 'main'], tree);
  return bare;
}

const show = (bare: string, path: string, ref = 'main') => run(['--git-dir', bare, 'show', `${ref}:${path}`]);
const listFiles = (bare: string, ref = 'main') =>
  run(['--git-dir', bare, 'ls-tree', '-r', '--name-only', ref]).trim().split('\n');

async function newSpace(title: string): Promise<string> {
  return (await p.api('POST', '/orgs/acme/spaces', { body: { title } })).body.id as string;
}

async function sync(spaceId: string, direction: 'import' | 'export', body: Record<string, unknown>) {
  const answer = await p.api('POST', `/spaces/${spaceId}/git/${direction}`, { body });
  expect(answer.status, JSON.stringify(answer.body)).toBe(204);
  await p.app.jobs.drain();
  return (await p.api('GET', `/spaces/${spaceId}/git/info`)).body;
}

/** A page tree as types, titles, slugs and children. */
const shape = (pages: any[]): unknown =>
  pages.map((page) => [page.type, page.title, page.slug ?? page.href ?? null, shape(page.pages ?? [])]);

/**
 * The documents of a space by page path, without keys and anchors, and with the ids of pages,
 * files and reusable contents of the space replaced by their paths, names and titles (another
 * space has other ids): what a round trip must keep block for block.
 */
async function allDocuments(spaceId: string): Promise<Record<string, unknown>> {
  const content = (await p.api('GET', `/spaces/${spaceId}/content`)).body;
  const names = new Map<string, string>();
  const pages: Array<{ id: string; path: string }> = [];
  const index = (list: any[], prefix: string) => {
    for (const page of list) {
      const path = `${prefix}/${page.slug ?? page.title}`;
      names.set(page.id, `page:${path}`);
      if (page.type === 'document') pages.push({ id: page.id, path });
      index(page.pages ?? [], path);
    }
  };
  index(content.pages, '');
  for (const file of content.files) names.set(file.id, `file:${file.name}`);
  for (const item of content.reusableContents) names.set(item.id, `reusable:${item.title}`);
  const found: Record<string, unknown> = {};
  for (const page of pages) {
    const document = (
      await p.api('GET', `/spaces/${spaceId}/content/page/${page.id}`, { query: { format: 'document' } })
    ).body.document;
    found[page.path] = JSON.parse(JSON.stringify(document), (key, value) => {
      if (key === 'key' || key === 'meta') return undefined;
      if ((key === 'page' || key === 'file' || key === 'reusableContent') && typeof value === 'string')
        return names.get(value) ?? value;
      return value;
    });
  }
  return found;
}

describe('Git sync', () => {
  it('exports a demo space and imports it back into an empty space: the same tree, documents, files, reusable contents and variables', async () => {
    const source = p.spaceId('Getting started');
    const bare = bareRepository();
    const exported = await sync(source, 'export', {
      url: `file://${bare}`,
      ref: 'refs/heads/docs',
      commitMessage: 'Export the guide',
    });
    expect(exported.operation).toMatchObject({ state: 'success', direction: 'export' });
    // The branch did not exist: the export created it.
    expect(listFiles(bare, 'docs')).toEqual(
      expect.arrayContaining([
        'SUMMARY.md',
        '.gitbook.yaml',
        '.gitbook/vars.yaml',
        'installation/README.md',
        'installation/self-hosted/docker.md',
      ]),
    );
    expect(run(['--git-dir', bare, 'log', '-1', '--format=%an <%ae>%n%s', 'docs']).trim()).toBe(
      'Docs platform <docs-platform@localhost>\nExport the guide',
    );
    expect(show(bare, 'SUMMARY.md', 'docs')).toContain('## Guides <a href="#guides" id="guides"></a>');
    const live = (await p.api('GET', `/spaces/${source}/content`)).body;
    expect(live.git).toMatchObject({ createdByGitBook: true, ref: 'refs/heads/docs', message: 'Export the guide' });

    const target = await newSpace('Imported guide');
    const imported = await sync(target, 'import', { url: bare, ref: 'refs/heads/docs' });
    expect(imported.operation).toMatchObject({ state: 'success', direction: 'import' });
    const before = live;
    const after = (await p.api('GET', `/spaces/${target}/content`)).body;
    expect(shape(after.pages)).toEqual(shape(before.pages));
    expect(after.git).toMatchObject({
      createdByGitBook: false,
      ref: 'refs/heads/docs',
      message: 'Export the guide',
      oid: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect(after.pages[0].git).toEqual({ oid: expect.stringMatching(/^[0-9a-f]{40}$/), path: 'welcome.md' });
    expect(after.variables).toEqual(before.variables);
    expect(after.reusableContents.map((item: any) => item.title)).toEqual(
      before.reusableContents.map((item: any) => item.title),
    );
    expect(await allDocuments(target)).toEqual(await allDocuments(source));
    for (const file of before.files) {
      const copy = after.files.find((item: any) => item.name === file.name);
      expect(copy, file.name).toMatchObject({ contentType: file.contentType, size: file.size });
      const [a, b] = await Promise.all([fetch(file.downloadURL), fetch(copy.downloadURL)]);
      expect(Buffer.from(await b.arrayBuffer()).equals(Buffer.from(await a.arrayBuffer()))).toBe(true);
    }
    // Searchable at once: the import moved the current revision with its index.
    const search = await p.api('GET', `/spaces/${target}/search`, { query: { query: 'kubernetes' } });
    expect(search.body.items.length).toBeGreaterThan(0);
  });

  it('imports a hand-written repository with every markdown extension; its export is the normalized form, which imports identically', async () => {
    const bare = repositoryWith({
      'docs/.gitbook.yaml': 'root: ./\nstructure:\n  readme: intro.md\n  summary: SUMMARY.md\n',
      'docs/SUMMARY.md': [
        '# Summary',
        '',
        '* [Introduction](intro.md)',
        '* [Blocks](blocks.md "All blocks")',
        '  * [Nested](blocks/nested.md)',
        '',
        '## Reference',
        '',
        '* [API](reference/api.md)',
        '* [Status page](https://status.example.test)',
        '',
      ].join('\n'),
      'docs/intro.md':
        '---\ndescription: Start here\nif: visitor.claims.unsigned.beta\ncover: .gitbook/assets/diagram.png\ncoverY: 12\nlayout:\n  width: wide\n  title:\n    visible: false\n---\n\n# Introduction\n\nSee the [blocks](blocks.md) and the [API](reference/api.md).\n',
      'docs/blocks.md': [
        '# Blocks',
        '',
        '{% hint style="warning" %}',
        'Careful **now**.',
        '{% endhint %}',
        '',
        '{% tabs %}',
        '{% tab title="Linux" %}',
        '```bash',
        'apt install acme',
        '```',
        '{% endtab %}',
        '',
        '{% tab title="macOS" %}',
        'Use _Homebrew_.',
        '{% endtab %}',
        '{% endtabs %}',
        '',
        '<details>',
        '',
        '<summary>More</summary>',
        '',
        'Hidden text.',
        '',
        '</details>',
        '',
        '{% embed url="https://video.example.test/v/1" %}',
        '',
        '{% file src=".gitbook/assets/notes.txt" %}',
        'The notes',
        '{% endfile %}',
        '',
        '{% content-ref url="reference/api.md" %}',
        '[api.md](reference/api.md)',
        '{% endcontent-ref %}',
        '',
        '{% include ".gitbook/includes/support.md" %}',
        '',
        '| Name | Value |',
        '| --- | --- |',
        '| a | 1 |',
        '',
        '$$',
        'e = mc^2',
        '$$',
        '',
        '* one',
        '* two',
        '',
        '- [x] done',
        '- [ ] todo',
        '',
        '> A quote',
        '',
        '***',
        '',
        '![A diagram](.gitbook/assets/diagram.png)',
        '',
        '{% code title="install.sh" lineNumbers="true" %}',
        '```bash',
        'curl -fsSL https://get.example.test | sh',
        '```',
        '{% endcode %}',
        '',
        '## Details <a href="#details" id="details"></a>',
        '',
        'Press <kbd>K</kbd>, see <mark style="color:orange;">this</mark>, :tada: and $$x^2$$.',
        '',
        'Install <code class="expression">space.vars.product</code> <i class="fa-check">:check:</i>, then <a href="https://app.example.test" class="button primary" data-icon="rocket">Open the app</a>.',
        '',
        'Read [api.md](reference/api.md "mention") next.',
        '',
        '<div data-with-frame="true"><figure><img src=".gitbook/assets/diagram.png" alt="Framed"><figcaption><p>In a frame</p></figcaption></figure></div>',
        '',
        '<img src=".gitbook/assets/sketch.drawing.svg" class="gitbook-drawing">',
        '',
        '<table data-view="cards"><thead><tr><th>Name</th><th data-hidden data-card-target data-type="content-ref"></th></tr></thead><tbody><tr><td>The API</td><td><a href="reference/api.md">reference/api.md</a></td></tr></tbody></table>',
        '',
        '{% stepper %}',
        '{% step %}',
        'First step',
        '{% endstep %}',
        '{% endstepper %}',
        '',
        '{% columns %}',
        '{% column %}',
        'Left column',
        '{% endcolumn %}',
        '{% endcolumns %}',
        '',
        '{% updates format="full" %}',
        '{% update date="2026-01-01" %}',
        'First update',
        '{% endupdate %}',
        '{% endupdates %}',
        '',
        '{% if visitor.claims.unsigned.beta %}',
        'Beta only',
        '{% endif %}',
        '',
        '{% openapi-operation spec="petstore" path="/pet" method="post" %}',
        'OpenAPI petstore',
        '{% endopenapi-operation %}',
        '',
      ].join('\n'),
      'docs/blocks/nested.md': '# Nested\n\nDeep page.\n',
      'docs/reference/api.md': '# API\n\n## Endpoints\n\nBack to the [introduction](../intro.md).\n',
      'docs/.gitbook/assets/notes.txt': 'notes',
      'docs/.gitbook/assets/sketch.drawing.svg':
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>',
      'docs/.gitbook/assets/diagram.png': Buffer.from(
        '89504e470d0a1a0a0000000d4948445200000001000000010806000000',
        'hex',
      ),
      'docs/.gitbook/includes/support.md': '---\ntitle: Support\n---\n\nWrite to support.\n',
      'docs/.gitbook/vars.yaml': 'product: Acme\nversion: 3\n',
      'README.md': 'The repository readme, outside the project directory.\n',
    });
    const first = await newSpace('Hand written');
    const imported = await sync(first, 'import', { url: bare, ref: 'refs/heads/main', repoProjectDirectory: 'docs' });
    expect(imported.operation, JSON.stringify(imported)).toMatchObject({ state: 'success' });
    const content = (await p.api('GET', `/spaces/${first}/content`)).body;
    expect(shape(content.pages)).toEqual([
      ['document', 'Introduction', 'intro', []],
      ['document', 'Blocks', 'blocks', [['document', 'Nested', 'nested', []]]],
      [
        'group',
        'Reference',
        'reference',
        [
          ['document', 'API', 'api', []],
          ['link', 'Status page', 'https://status.example.test', []],
        ],
      ],
    ]);
    expect(content.pages[1].linkTitle).toBe('All blocks');
    expect(content.pages[0].description).toBe('Start here');
    const diagram = content.files.find((file: { name: string }) => file.name === 'diagram.png');
    expect(content.pages[0].cover).toEqual({ ref: { kind: 'file', file: diagram.id }, yPos: 12 });
    expect(content.pages[0].layout).toMatchObject({ width: 'wide', title: false, description: true });
    expect(content.pages[0].condition).toBe('visitor.claims.unsigned.beta');
    expect(content.variables).toEqual({ product: 'Acme', version: 3 });
    expect(content.reusableContents).toMatchObject([{ title: 'Support' }]);
    const types = (
      await p.api('GET', `/spaces/${first}/content/page/${content.pages[1].id}`, { query: { format: 'document' } })
    ).body.document.nodes.map((node: any) => node.type);
    expect(types).toEqual([
      'hint',
      'tabs',
      'expandable',
      'embed',
      'file',
      'content-ref',
      'reusable-content',
      'table',
      'math',
      'list-unordered',
      'list-tasks',
      'blockquote',
      'divider',
      'images',
      'code',
      'heading-1',
      'paragraph',
      'paragraph',
      'paragraph',
      'images',
      'drawing',
      'table',
      'stepper',
      'columns',
      'updates',
      'if',
      'openapi-operation',
    ]);
    const blocksPage = (
      await p.api('GET', `/spaces/${first}/content/page/${content.pages[1].id}`, { query: { format: 'document' } })
    ).body.document;
    const inlineTypes = blocksPage.nodes[17].nodes
      .filter((node: any) => node.object === 'inline')
      .map((node: any) => node.type);
    expect(inlineTypes).toEqual(['expression', 'icon', 'button']);
    expect(blocksPage.nodes[18].nodes.find((node: any) => node.object === 'inline')).toMatchObject({
      type: 'mention',
      data: { ref: { kind: 'page', page: content.pages[2].pages[0].id } },
    });
    const intro = (
      await p.api('GET', `/spaces/${first}/content/page/${content.pages[0].id}`, { query: { format: 'document' } })
    ).body.document;
    expect(JSON.stringify(intro)).toContain(JSON.stringify({ kind: 'page', page: content.pages[1].id }));

    const exportTo = bareRepository();
    await sync(first, 'export', { url: exportTo, ref: 'refs/heads/main', commitMessage: 'Normalized' });
    expect(show(exportTo, 'intro.md')).toContain(
      'if: visitor.claims.unsigned.beta\ncover: .gitbook/assets/diagram.png\ncoverY: 12\nlayout:\n  width: wide',
    );
    const normalized = show(exportTo, 'blocks.md');
    expect(normalized).toContain('{% hint style="warning" %}\nCareful **now**.\n{% endhint %}');
    expect(normalized).toContain('{% include ".gitbook/includes/');
    expect(normalized).toContain('* one\n* two');
    expect(normalized).toContain('{% if visitor.claims.unsigned.beta %}\nBeta only\n{% endif %}');
    expect(normalized).toContain('{% code title="install.sh" lineNumbers="true" %}');
    expect(normalized).toContain('<code class="expression">space.vars.product</code> <i class="fa-check">:check:</i>');
    expect(normalized).toContain(
      '<a href="https://app.example.test" class="button primary" data-icon="rocket">Open the app</a>',
    );
    expect(normalized).toContain(
      '<div data-with-frame="true"><figure><img src=".gitbook/assets/diagram.png" alt="Framed">',
    );
    expect(normalized).toContain('<img src=".gitbook/assets/sketch.drawing.svg" class="gitbook-drawing">');
    expect(normalized).toContain('<table data-view="cards">');
    const second = await newSpace('Hand written, again');
    await sync(second, 'import', { url: exportTo, ref: 'refs/heads/main' });
    expect(await allDocuments(second)).toEqual(await allDocuments(first));
    const again = (await p.api('GET', `/spaces/${second}/content`)).body;
    expect(shape(again.pages)).toEqual(shape(content.pages));
    // Exporting what was imported from the export writes the same files.
    const exportAgain = bareRepository();
    await sync(second, 'export', { url: exportAgain, ref: 'refs/heads/main', commitMessage: 'Again' });
    for (const path of listFiles(exportTo)) expect(show(exportAgain, path), path).toBe(show(exportTo, path));
  });

  it('ends in failure with a readable error, and changes nothing, for a repository it cannot read or a bad configuration', async () => {
    const spaceId = await newSpace('Stays as it is');
    const revision = (await p.api('GET', `/spaces/${spaceId}`)).body.revision;
    const missing = await sync(spaceId, 'import', { url: join(work, 'nothing-here.git'), ref: 'refs/heads/main' });
    expect(missing.operation).toMatchObject({
      state: 'failure',
      direction: 'import',
      error: expect.stringMatching(/could not read the repository/),
    });
    const noBranch = await sync(spaceId, 'import', {
      url: repositoryWith({ 'README.md': '# Hi\n' }),
      ref: 'refs/heads/nope',
    });
    expect(noBranch.operation.error).toBe('the repository has no branch refs/heads/nope');
    const badYaml = await sync(spaceId, 'import', {
      url: repositoryWith({ '.gitbook.yaml': 'root: [unclosed\n', 'README.md': '# Hi\n' }),
      ref: 'refs/heads/main',
    });
    expect(badYaml.operation.error).toMatch(/^\.gitbook\.yaml is not valid YAML/);
    const escaping = await sync(spaceId, 'import', {
      url: repositoryWith({ '.gitbook.yaml': 'root: ../../etc\n', 'README.md': '# Hi\n' }),
      ref: 'refs/heads/main',
    });
    expect(escaping.operation.error).toBe('.gitbook.yaml: root leaves the project directory');
    // A summary is read within the budgets of a page's markdown, like the pages it lists.
    const hugeSummary = `# Summary\n\n${'* [Page](README.md)\n'.repeat(60_000)}`;
    const summary = await sync(spaceId, 'import', {
      url: repositoryWith({ 'SUMMARY.md': hugeSummary, 'README.md': '# Hi\n' }),
      ref: 'refs/heads/main',
    });
    expect(summary.operation.error).toBe(
      `SUMMARY.md: the markdown has ${Buffer.byteLength(hugeSummary)} bytes, the limit is 1048576`,
    );
    expect((await p.api('GET', `/spaces/${spaceId}`)).body.revision).toBe(revision);

    const refused = await p.api('POST', `/spaces/${spaceId}/git/import`, {
      body: { url: join(work, 'any.git'), ref: 'refs/heads/main', repoProjectDirectory: '../outside' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/"repoProjectDirectory"/);
    expect(
      (
        await p.api('POST', `/spaces/${spaceId}/git/import`, {
          body: { url: 'ssh://host/x.git', ref: 'refs/heads/main' },
        })
      ).status,
    ).toBe(400);
    expect(
      (await p.api('POST', `/spaces/${spaceId}/git/import`, { body: { url: 'https://h/x.git', ref: 'main' } })).status,
    ).toBe(400);
  });

  it('refuses to export over a branch that changed since the last sync unless forced, and skips an older timestamp', async () => {
    const spaceId = await newSpace('Diverging');
    const bare = repositoryWith({
      'README.md': '# Home\n\nWritten in Git.\n',
      'SUMMARY.md': '# Summary\n\n* [Home](README.md)\n',
    });
    expect(
      (await sync(spaceId, 'import', { url: bare, ref: 'refs/heads/main', timestamp: '2026-01-02T00:00:00Z' }))
        .operation.state,
    ).toBe('success');
    // Someone commits in Git; the space has not seen it.
    const clone = join(work, 'diverging-clone');
    run(['clone', '--quiet', bare, clone]);
    writeFileSync(join(clone, 'README.md'), '# Home\n\nChanged in Git.\n');
    run(['commit', '--quiet', '-am', 'Edit in Git'], clone);
    run(['push', '--quiet'], clone);
    const refused = await sync(spaceId, 'export', { url: bare, ref: 'refs/heads/main', commitMessage: 'Over it' });
    expect(refused.operation).toMatchObject({
      state: 'failure',
      error: expect.stringMatching(/changed since the last sync/),
    });
    expect(show(bare, 'README.md')).toContain('Changed in Git.');
    const stale = await sync(spaceId, 'import', {
      url: bare,
      ref: 'refs/heads/main',
      timestamp: '2026-01-01T00:00:00Z',
    });
    expect(stale.operation.error).toMatch(/^skipped: its timestamp 2026-01-01T00:00:00.000Z is older/);
    const forced = await sync(spaceId, 'export', {
      url: bare,
      ref: 'refs/heads/main',
      commitMessage: 'Forced',
      force: true,
    });
    expect(forced.operation.state).toBe('success');
    expect(show(bare, 'README.md')).toContain('Written in Git.');
  });

  it('exports into a project directory: replaces its markdown and .gitbook/, keeps every other file, and commits nothing when nothing changed', async () => {
    const spaceId = await newSpace('Project directory');
    const source = repositoryWith({
      'docs/README.md': '# Welcome\n\nHello.\n',
      'docs/guide.md': '# Guide\n\nSteps.\n',
    });
    expect(
      (await sync(spaceId, 'import', { url: source, ref: 'refs/heads/main', repoProjectDirectory: 'docs' })).operation
        .state,
    ).toBe('success');
    const logo = Buffer.from('89504e470d0a1a0a', 'hex');
    const target = repositoryWith({
      'README.md': 'Outside the project directory.\n',
      'docs/old.md': '# Old\n\nGone after the export.\n',
      'docs/.gitbook/includes/old.md': 'Gone too.\n',
      'docs/img/logo.png': logo,
      'docs/nested/kept.txt': 'Not markdown: kept.\n',
    });
    const exported = await sync(spaceId, 'export', {
      url: target,
      ref: 'refs/heads/main',
      repoProjectDirectory: 'docs',
      force: true,
      commitMessage: 'Into docs',
    });
    expect(exported.operation.state).toBe('success');
    expect(listFiles(target).sort()).toEqual([
      'README.md',
      'docs/.gitbook.yaml',
      'docs/README.md',
      'docs/SUMMARY.md',
      'docs/guide.md',
      'docs/img/logo.png',
      'docs/nested/kept.txt',
    ]);
    expect(show(target, 'docs/guide.md')).toContain('# Guide\n\nSteps.');
    expect(run(['--git-dir', target, 'rev-parse', 'main:docs/img/logo.png'])).toBe(
      run(['--git-dir', target, 'rev-parse', 'main~1:docs/img/logo.png']),
    );
    const tip = run(['--git-dir', target, 'rev-parse', 'main']).trim();
    expect(run(['--git-dir', target, 'log', '-1', '--format=%s', 'main']).trim()).toBe('Into docs');

    // Nothing changed since: the export succeeds without a commit.
    const again = await sync(spaceId, 'export', {
      url: target,
      ref: 'refs/heads/main',
      repoProjectDirectory: 'docs',
      commitMessage: 'Nothing new',
    });
    expect(again.operation.state).toBe('success');
    expect(run(['--git-dir', target, 'rev-parse', 'main']).trim()).toBe(tip);
  });

  it('never stores, shows or logs the credentials of a URL (smart HTTP over https, with basic auth)', async () => {
    const bare = repositoryWith({ 'README.md': '# Private\n\nBehind a password.\n' });
    const secret = 's3cr3t-t0ken-value';
    const server = await gitHttpServer(dirname(bare), 'bot', secret);
    const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const repoName = bare.split('/').at(-1);
    try {
      const spaceId = await newSpace('Behind a password');
      const ok = await sync(spaceId, 'import', {
        url: `https://bot:${secret}@127.0.0.1:${(server.address() as AddressInfo).port}/${repoName}`,
        ref: 'refs/heads/main',
      });
      expect(ok.operation.state, JSON.stringify(ok)).toBe('success');
      expect(ok.url).toBe(`https://***@127.0.0.1:${(server.address() as AddressInfo).port}/${repoName}`);
      const wrong = await sync(spaceId, 'import', {
        url: `${base.replace('//', `//bot:wrong-${secret}@`)}/${repoName}`,
        ref: 'refs/heads/main',
      });
      expect(wrong.operation.state).toBe('failure');
      const exported = await sync(spaceId, 'export', {
        url: `https://bot:${secret}@127.0.0.1:${(server.address() as AddressInfo).port}/${repoName}`,
        ref: 'refs/heads/main',
        commitMessage: 'Push with a token',
      });
      expect(exported.operation.state, JSON.stringify(exported)).toBe('success');
      const everything = JSON.stringify([
        ok,
        wrong,
        exported,
        (await p.api('GET', `/spaces/${spaceId}`)).body,
        (await p.api('GET', `/spaces/${spaceId}/content`)).body,
        p.db.prepare('SELECT payload, error FROM jobs').all(),
        p.db.prepare('SELECT git_sync FROM spaces').all(),
        p.db.prepare('SELECT git FROM revisions WHERE git IS NOT NULL').all(),
      ]);
      expect(everything).not.toContain(secret);
      expect(readFileSync(join(p.dataDir, 'platform.sqlite')).includes(Buffer.from(secret))).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('says the same of every repository it cannot reach, whether the port is closed, open or not a Git server', async () => {
    const spaceId = await newSpace('Unreachable');
    const closed = await listener(() => undefined);
    await closed.close();
    const garbage = await listener((socket) => socket.end('not TLS, not HTTP\r\n'));
    const plainHttp = createHttpServer((_request, response) => response.writeHead(500).end('no'));
    await new Promise<void>((resolve) => plainHttp.listen(0, '127.0.0.1', resolve));
    const bare = repositoryWith({ 'README.md': '# Private\n' });
    const secret = 'an0ther-s3cret';
    const git = await gitHttpServer(dirname(bare), 'bot', secret);
    const gitPort = (git.address() as AddressInfo).port;
    try {
      const errors = [];
      for (const url of [
        `https://127.0.0.1:${closed.port}/r.git`,
        `https://bot:${secret}@127.0.0.1:${garbage.port}/r.git`,
        `https://127.0.0.1:${(plainHttp.address() as AddressInfo).port}/r.git`,
        'https://nowhere.invalid/r.git',
      ]) {
        errors.push((await sync(spaceId, 'import', { url, ref: 'refs/heads/main' })).operation.error);
      }
      expect(errors).toEqual(
        Array(4).fill('could not read the repository: it could not be reached, or did not answer as a Git server'),
      );
      // What is about the repository itself is said.
      const wrong = await sync(spaceId, 'import', {
        url: `https://bot:wrong-${secret}@127.0.0.1:${gitPort}/${bare.split('/').at(-1)}`,
        ref: 'refs/heads/main',
      });
      expect(wrong.operation.error).toBe(
        'could not read the repository: authentication failed: check the credentials in the URL',
      );
      const missing = await sync(spaceId, 'import', {
        url: `https://bot:${secret}@127.0.0.1:${gitPort}/missing.git`,
        ref: 'refs/heads/main',
      });
      expect(missing.operation.error).toBe('could not read the repository: repository not found');
      const pushed = await sync(spaceId, 'export', {
        url: `https://bot:wrong-${secret}@127.0.0.1:${gitPort}/${bare.split('/').at(-1)}`,
        ref: 'refs/heads/main',
        commitMessage: 'No',
      });
      expect(pushed.operation.error).toBe(
        'could not read the repository: authentication failed: check the credentials in the URL',
      );
      expect(JSON.stringify([errors, wrong, missing, pushed])).not.toContain(secret);
    } finally {
      await garbage.close();
      await new Promise((resolve) => plainHttp.close(resolve));
      await new Promise((resolve) => git.close(resolve));
    }
  });
});

/** A loopback TCP listener that counts connections and hands each to `answer`. */
async function listener(answer: (socket: Socket) => void, host = '127.0.0.1') {
  const sockets = new Set<Socket>();
  const counted = { connections: 0 };
  const server = createNetServer((socket) => {
    counted.connections += 1;
    sockets.add(socket.on('close', () => sockets.delete(socket)));
    // The client gives up in its own way (a reset, most often): nothing to report.
    socket.on('error', () => undefined);
    answer(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return Object.assign(counted, {
    port: (server.address() as AddressInfo).port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

describe('Git Sync outside demo and test runs (GIT_ALLOW_LOCAL off)', () => {
  let guarded: TestPlatform;
  let v4: Awaited<ReturnType<typeof listener>>;
  let v6: Awaited<ReturnType<typeof listener>>;
  beforeAll(async () => {
    guarded = await startTestPlatform({ gitAllowLocal: false });
    v4 = await listener((socket) => socket.end());
    v6 = await listener((socket) => socket.end(), '::1');
  });
  afterAll(async () => {
    await Promise.all([guarded?.destroy(), v4?.close(), v6?.close()]);
  });

  const ask = async (direction: 'import' | 'export', body: Record<string, unknown>) => {
    const spaceId = guarded.spaceId('Company handbook');
    return guarded.api('POST', `/spaces/${spaceId}/git/${direction}`, {
      body: { ref: 'refs/heads/main', ...(direction === 'export' ? { commitMessage: 'Out' } : {}), ...body },
    });
  };

  it('refuses loopback, private and link-local repositories, and names that resolve to them, with no connection made', async () => {
    const hostname = osHostname();
    // The machine's own name resolves to one of its addresses: private or loopback on any test machine.
    const ownAddresses = (await lookup(hostname, { all: true }).catch(() => [])).map((entry) => entry.address);
    const urls = [
      [
        `https://127.0.0.1:${v4.port}/r.git`,
        'must be on a public address (127.0.0.1 is a private or reserved address)',
      ],
      [`https://localhost:${v4.port}/r.git`, 'must be on a public address (localhost is a loopback name)'],
      [`https://localhost.:${v4.port}/r.git`, 'must be on a public address (localhost. is a loopback name)'],
      [
        `https://u:pw@127.0.0.1:${v4.port}/r.git`,
        'must be on a public address (127.0.0.1 is a private or reserved address)',
      ],
      [
        `https://2130706433:${v4.port}/r.git`,
        'must be on a public address (127.0.0.1 is a private or reserved address)',
      ],
      [`https://[::1]:${v6.port}/r.git`, 'must be on a public address (::1 is a private or reserved address)'],
      [
        `https://[::ffff:127.0.0.1]:${v4.port}/r.git`,
        'must be on a public address (::ffff:7f00:1 is a private or reserved address)',
      ],
      [
        `https://[2002:7f00:1::]:${v4.port}/r.git`,
        'must be on a public address (2002:7f00:1:: is a private or reserved address)',
      ],
      [
        'https://169.254.169.254/latest/meta-data.git',
        'must be on a public address (169.254.169.254 is a private or reserved address)',
      ],
      ['https://10.0.0.1/r.git', 'must be on a public address (10.0.0.1 is a private or reserved address)'],
      [`http://127.0.0.1:${v4.port}/r.git`, 'must be an https:// URL'],
      [`file:///etc`, 'must be an https:// URL'],
      ...(ownAddresses.length > 0 && ownAddresses.every(isPrivateAddress)
        ? [
            [
              `https://${hostname}:${v4.port}/r.git`,
              `must be on a public address (${hostname.toLowerCase()} does not resolve to public addresses only)`,
            ],
          ]
        : []),
    ];
    for (const direction of ['import', 'export'] as const) {
      for (const [url, reason] of urls) {
        const answer = await ask(direction, { url });
        expect([url, answer.status, answer.body]).toEqual([
          url,
          400,
          { error: { code: 400, message: `Invalid body field "url": ${reason}` } },
        ]);
      }
    }
    await guarded.app.jobs.drain();
    expect(guarded.db.prepare("SELECT count(*) FROM jobs WHERE kind = 'git-sync'").pluck().get()).toBe(0);
    expect([v4.connections, v6.connections]).toEqual([0, 0]);
  });

  it('refuses a ref git would refuse, naming the field', async () => {
    for (const [ref, reason] of [
      ['refs/heads/../../etc', 'must not contain ".."'],
      ['refs/heads/a@{1}', 'must not contain "@{"'],
      ['refs/heads/main.lock', 'must not have a part ending with ".lock"'],
      ['refs/heads/-f', 'must not name a branch starting with "-"'],
      ['refs/heads/a\u0000b', 'must not contain spaces, control characters or any of ~ ^ : ? * [ \\'],
      ['main', 'must be a branch ref such as refs/heads/main'],
    ]) {
      const answer = await ask('import', { url: 'https://git.example.test/r.git', ref });
      expect([ref, answer.status, answer.body.error?.message]).toEqual([
        ref,
        400,
        `Invalid body field "ref": ${reason}`,
      ]);
    }
  });
});

describe('demo repository', () => {
  it('keeps the demo handbook in a local repository with its history, linked to the space, and imports from it', async () => {
    const { seedDemoRepository } = await import('../../src/platform/git/demo.js');
    const { loadDemoRepository } = await import('../../src/platform/demo-content/load.js');
    // A data folder given relative to the working directory (the default `.data` is) places it once.
    const bare = await seedDemoRepository(
      p.db,
      relative(process.cwd(), work),
      { name: 'Docs platform', email: 'docs-platform@localhost' },
      loadDemoRepository(),
    );
    expect(bare).toBe(join(work, 'demo-repos', 'handbook.git'));
    const history = run(['--git-dir', bare, 'log', '--format=%s', 'main']).trim().split('\n');
    expect(history).toEqual(['Handbook: revision 3', 'Handbook: revision 2', 'Handbook: first version']);
    const spaceId = p.spaceId('Company handbook');
    const info = (await p.api('GET', `/spaces/${spaceId}/git/info`)).body;
    expect(info).toMatchObject({ repoName: 'acme/handbook', url: `file://${bare}` });
    const current = (await p.api('GET', `/spaces/${spaceId}/content`)).body;
    expect(current.git).toMatchObject({ message: 'Handbook: revision 3', createdByGitBook: true });
    // Nothing changed on either side since: an import brings the same tree back.
    const imported = await sync(spaceId, 'import', { url: `file://${bare}`, ref: 'refs/heads/main' });
    expect(imported.operation.state).toBe('success');
    expect(shape((await p.api('GET', `/spaces/${spaceId}/content`)).body.pages)).toEqual(shape(current.pages));
  });
});

describe('Git Sync across a restart', () => {
  it('ends an operation the restart interrupted in failure, saying so, and never half-applies it', async () => {
    const { startTestPlatform: start } = await import('../fixtures/platform.js');
    const dataDir = mkdtempSync(join(tmpdir(), 'git-restart-'));
    const first = await start({ dataDir });
    const spaceId = (await first.api('POST', '/orgs/acme/spaces', { body: { title: 'Interrupted' } })).body
      .id as string;
    const revision = (await first.api('GET', `/spaces/${spaceId}`)).body.revision;
    // Stop the worker first, so the operation is still queued when the process "dies".
    await first.app.jobs.stop();
    const queued = await first.api('POST', `/spaces/${spaceId}/git/import`, {
      body: { url: `https://bot:t0ken@127.0.0.1:1/x.git`, ref: 'refs/heads/main' },
    });
    expect(queued.status).toBe(204);
    expect((await first.api('GET', `/spaces/${spaceId}/git/info`)).body.operation).toMatchObject({ state: 'running' });
    // As if it had started when the process stopped.
    first.db.prepare("UPDATE jobs SET state = 'running' WHERE kind = 'git-sync'").run();
    await first.close();

    const second = await start({ dataDir });
    try {
      await second.app.jobs.drain();
      const info = (await second.api('GET', `/spaces/${spaceId}/git/info`)).body;
      expect(info.operation).toMatchObject({ state: 'failure', error: 'interrupted by a restart of the platform' });
      expect(info.url).toBe('https://***@127.0.0.1:1/x.git');
      expect((await second.api('GET', `/spaces/${spaceId}`)).body.revision).toBe(revision);
    } finally {
      await second.destroy();
    }
  });
});

describe('standalone operations', () => {
  it('imports a standalone revision without moving the content, and snapshots to another repository without relinking the space', async () => {
    const spaceId = await newSpace('Standalone');
    const linked = repositoryWith({ 'README.md': '# Linked\n' });
    await sync(spaceId, 'import', { url: linked, ref: 'refs/heads/main' });
    const revision = (await p.api('GET', `/spaces/${spaceId}`)).body.revision;
    const other = repositoryWith({ 'README.md': '# Other\n' });
    const info = await sync(spaceId, 'import', { url: other, ref: 'refs/heads/main', standalone: true });
    expect(info.operation.state).toBe('success');
    expect((await p.api('GET', `/spaces/${spaceId}`)).body.revision).toBe(revision);
    const standalone = p.db
      .prepare("SELECT id FROM revisions WHERE space_id = ? AND git LIKE '%Docs%' ORDER BY created_at DESC LIMIT 1")
      .pluck(true)
      .get(spaceId) as string;
    const pages = (await p.api('GET', `/spaces/${spaceId}/revisions/${standalone}/pages`)).body.pages;
    expect(pages.map((page: { title: string }) => page.title)).toEqual(['Other']);
    const snapshot = bareRepository();
    const after = await sync(spaceId, 'export', {
      url: snapshot,
      ref: 'refs/heads/main',
      commitMessage: 'Snapshot',
      standalone: true,
    });
    expect(after.operation.state).toBe('success');
    expect(after.url).toBe(linked);
    expect(show(snapshot, 'SUMMARY.md')).toContain('[Linked]');
  });
});
