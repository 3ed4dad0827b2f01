/**
 * The "Getting started" demo space: Acme Docs' public getting-started guide (install the CLI
 * or the self-hosted server, configure it, create, import, publish and sync a space).
 */
import { architecturePng, csv } from './images.js';
import type { DemoSpaceContent } from './types.js';

export const GETTING_STARTED: DemoSpaceContent = {
  space: 'Getting started',
  revisionDaysAgo: [90, 30, 5],
  variables: { product: 'Acme Docs', version: '3.2', cliVersion: '3.2.1', supportEmail: 'support@acme.test' },
  formerVariables: { product: 'Acme Docs', version: '3.1', cliVersion: '3.1.4', supportEmail: 'help@acme.test' },
  files: [
    { id: 'file-gs-architecture', name: 'architecture.png', contentType: 'image/png', bytes: architecturePng },
    {
      id: 'file-gs-import-template',
      name: 'import-template.csv',
      contentType: 'text/csv',
      bytes: () =>
        csv([
          ['path', 'title', 'description', 'source'],
          ['welcome', 'Welcome', 'What this space covers and who it is for', 'docs/index.md'],
          ['setup/install', 'Install the agent', 'System requirements and install steps', 'docs/setup/install.md'],
          ['setup/configure', 'Configure the agent', 'Every setting, with its default', 'docs/setup/configure.md'],
          ['faq', 'Frequently asked questions', 'Answers to "how do I…?" questions', 'docs/faq.md'],
        ]),
    },
  ],
  reusableContents: [
    {
      id: 'rc-gs-support',
      title: 'Support contact',
      markdown: `{% hint style="success" %}
**Need a hand?** Write to [support@acme.test](mailto:support@acme.test) with your organization name and, if you can, the \`X-Request-Id\` of a failing request. Business and Enterprise plans get an answer within four business hours; everyone can ask the community at [community.acme.test](https://community.acme.test).
{% endhint %}
`,
    },
  ],
  pages: [
    {
      id: 'pg-gs-welcome',
      title: 'Welcome to Acme Docs',
      slug: 'welcome',
      emoji: '👋',
      description: 'What Acme Docs is, and where to start reading.',
      markdown: `**Acme Docs** is a documentation platform for teams that write together. You write pages in a visual editor or in Markdown, organize them into *spaces*, review changes the way you review code, and publish a fast, searchable site on your own domain. 🎉

This guide takes you from an empty account to a published site in about fifteen minutes. It covers Acme Docs Cloud and the self-hosted server, version 3.2.

## Where to start

| If you want to… | Read |
| --- | --- |
| Try Acme Docs in five minutes | [Quickstart](quickstart.md) |
| Run Acme Docs on your own servers | [Self-hosted server](installation/self-hosted/README.md) |
| Bring your existing Markdown | [Import existing content](guides/import-content.md) |
| Understand the moving parts | [How Acme Docs works](how-it-works.md) |
| Automate everything | [API overview]({{space:API reference}}/pages/pg-api-overview) |

## What you need

* An Acme account. Sign up at [app.acme.test](https://app.acme.test/signup): the *Free* plan has no time limit.
* For the command-line tool, a terminal on macOS, Linux or Windows.
* For the self-hosted server, a machine that can run containers.

{% hint style="info" %}
Acme Docs Cloud and the self-hosted server run the same code. Where they behave differently, the page says so in a hint like this one.
{% endhint %}

## Get help

{% include "{{reusable:rc-gs-support}}" %}
`,
    },
    {
      id: 'pg-gs-quickstart',
      title: 'Quickstart',
      slug: 'quickstart',
      emoji: '🚀',
      description: 'From sign-up to a published page in five minutes.',
      markdown: `This quickstart uses the \`acme\` command-line tool. If you prefer the browser, every step has a button in the web app too.

## Before you begin

Check that your machine meets the [requirements](installation/README.md#requirements), then install the CLI as described in [Installation](installation/README.md).

## Five steps to a published page

1. Sign in. The CLI opens your browser and stores a token in your keychain:

   \`\`\`bash
   acme login
   \`\`\`
2. Create a space in your organization:

   \`\`\`bash
   acme spaces create "Product guide" --org acme
   \`\`\`
3. Write your first page. \`acme new\` creates \`welcome.md\` with a title and opens your editor.
4. Push the page: \`acme push\` uploads every changed file as a **change request**.
5. Merge and publish:

   \`\`\`bash
   acme merge --latest && acme publish
   \`\`\`

Your page is live at \`https://acme.docs.example.test/product-guide\`.

## Checklist

- [x] Install the CLI
- [x] Sign in with \`acme login\`
- [ ] Create a space and push a page
- [ ] Invite a teammate to review your change request
- [ ] [Publish your site](guides/publish.md) on a custom domain

{% hint style="warning" %}
\`acme push\` never overwrites the live version: changes only reach readers after a merge. If you do not see your edit, check for an open change request with \`acme changes list\`.
{% endhint %}
`,
    },
    {
      id: 'pg-gs-installation',
      title: 'Installation',
      slug: 'installation',
      emoji: '📦',
      description: 'Install the acme command-line tool on macOS, Linux or Windows.',
      markdown: `The \`acme\` command-line tool (CLI) edits, previews and publishes spaces from your terminal. Install it on every machine you write from. To run the whole platform on your own infrastructure, read [Self-hosted server](self-hosted/README.md) instead.

## Requirements

* macOS 12 or later, a Linux distribution with glibc 2.31 or later, or Windows 10 (build 19041) or later
* 200 MB of free disk space
* Outbound HTTPS access to \`api.acme.test\` and \`cdn.acme.test\` (port 443)

## Install the CLI

{% tabs %}
{% tab title="macOS" %}
Install with Homebrew:

\`\`\`bash
brew install acme/tap/acme
\`\`\`
{% endtab %}

{% tab title="Linux" %}
Run the install script, which checks the signature of the archive before unpacking it to \`/usr/local/bin\`:

\`\`\`bash
curl -fsSL https://get.acme.test/install.sh | sh
\`\`\`
{% endtab %}

{% tab title="Windows" %}
Install with winget from PowerShell:

\`\`\`powershell
winget install Acme.AcmeCLI
\`\`\`
{% endtab %}
{% endtabs %}

## Check the installation

\`\`\`bash
acme --version
# acme 3.2.1 (linux-amd64)
\`\`\`

{% hint style="warning" %}
Behind a corporate proxy, set \`HTTPS_PROXY\` before running \`acme login\`, or the browser sign-in cannot reach the CLI.
{% endhint %}
`,
      pages: [
        {
          id: 'pg-gs-self-hosted',
          title: 'Self-hosted server',
          slug: 'self-hosted',
          emoji: '🖥️',
          description: 'Run Acme Docs on your own infrastructure.',
          markdown: `The self-hosted server is the same software as Acme Docs Cloud, packaged as one container image: \`registry.acme.test/acme-docs/server\`. It needs a PostgreSQL database and an S3-compatible bucket for files; everything else (search, rendering, background jobs) runs inside the container.

## Sizing

| Editors | vCPU | Memory | Database |
| --- | --- | --- | --- |
| Up to 50 | 2 | 4 GB | PostgreSQL 14+, 20 GB |
| 50 to 500 | 4 | 8 GB | PostgreSQL 14+, 100 GB |
| More than 500 | 8 per replica, 2+ replicas | 16 GB | Managed PostgreSQL with a read replica |

Readers of published sites barely count: pages are served from the cache.

## Choose how to run it

* [Run with Docker](docker.md): one machine, Docker Compose, the fastest way to evaluate.
* Kubernetes: the Helm chart for production clusters with several replicas.

Whatever you choose, the server reads its settings from \`acme.config.yml\` and from environment variables, described in the [Configuration reference](../../configuration.md).

{% hint style="info" %}
A self-hosted server needs a license key. Trial keys are valid for 30 days: request one at [acme.test/self-hosted](https://acme.test/self-hosted).
{% endhint %}
`,
          pages: [
            {
              id: 'pg-gs-docker',
              title: 'Run with Docker',
              slug: 'docker',
              emoji: '🐳',
              markdown: `Docker Compose starts the server, a PostgreSQL database and a MinIO bucket on one machine. Use it to evaluate Acme Docs, or for small teams that do not need high availability.

{% code title="docker-compose.yml" lineNumbers="true" %}
\`\`\`yaml
services:
  acme-docs:
    image: registry.acme.test/acme-docs/server:3.2.1
    ports: ["8080:8080"]
    environment:
      ACME_DATABASE_URL: postgres://acme:acme@db:5432/acme
      ACME_STORAGE_URL: s3://acme-files?endpoint=http://minio:9000
      ACME_LICENSE_KEY: \${ACME_LICENSE_KEY}
    depends_on: [db, minio]
  db:
    image: postgres:16
    environment: { POSTGRES_USER: acme, POSTGRES_PASSWORD: acme }
  minio:
    image: minio/minio
    command: server /data
\`\`\`
{% endcode %}

## Start the stack

1. Save the file above in an empty directory.
2. Export your license key: \`export ACME_LICENSE_KEY=...\`
3. Run \`docker compose up -d\` and wait for the health check: \`curl localhost:8080/healthz\` answers \`ok\`.
4. Open \`http://localhost:8080\` and create the first administrator.

<figure><img src="../../.gitbook/assets/architecture.png" alt="The editor and the CLI call the API, which writes the content store and the search index; the renderer serves published sites."><figcaption><p>What runs inside the container</p></figcaption></figure>

{% hint style="danger" %}
The passwords in this file are examples. Change them, and put the database on a volume, before anyone writes real content.
{% endhint %}

See [Self-hosted server](README.md) for sizing.
`,
            },
            {
              id: 'pg-gs-kubernetes',
              title: 'Deploy on Kubernetes',
              slug: 'kubernetes',
              emoji: '☸️',
              since: 3,
              markdown: `For production, deploy the server with the official Helm chart. It runs two or more replicas behind a Service, a migration Job on every upgrade, and a CronJob that compacts the search index every night.

## Install the chart

\`\`\`bash
helm repo add acme https://charts.acme.test
helm install acme-docs acme/acme-docs \\
  --namespace docs --create-namespace \\
  --set replicas=2 \\
  --set license.existingSecret=acme-license \\
  --set database.existingSecret=acme-db
\`\`\`

The chart expects two secrets: \`acme-license\` with a \`key\` entry, and \`acme-db\` with a \`url\` entry holding the PostgreSQL connection string.

## Values worth changing

| Value | Default | Why change it |
| --- | --- | --- |
| \`replicas\` | \`2\` | More editors, more replicas |
| \`ingress.host\` | none | The hostname of your instance, e.g. \`docs.example.test\` |
| \`storage.url\` | none | Your bucket: \`s3://bucket?region=eu-west-1\` |
| \`search.persistence.size\` | \`10Gi\` | Large spaces with many files |

{% hint style="info" %}
Upgrades are rolling: the migration Job runs first, and the new replicas only start once it succeeds. Migrations are always backward compatible with the previous minor version.
{% endhint %}

Every setting of [the configuration reference](../../configuration.md) can also be set in the chart's \`config\` value. If you only need one machine, [Docker](docker.md) is simpler.
`,
            },
          ],
        },
      ],
    },
    {
      id: 'pg-gs-configuration',
      title: 'Configuration reference',
      formerTitle: 'Configuration',
      slug: 'configuration',
      emoji: '⚙️',
      description: 'Every setting of acme.config.yml and the environment variables that override them.',
      markdown: `The CLI and the self-hosted server read the same file, \`acme.config.yml\`, from the current directory or from the path in \`ACME_CONFIG\`.

## File format

{% code title="acme.config.yml" %}
\`\`\`yaml
organization: acme
space: product-guide
root: ./docs
publish:
  domain: docs.example.test
  search: true
sync:
  provider: github
  repository: acme/product-guide
  branch: main
\`\`\`
{% endcode %}

## Settings

| Key | Type | Default | Description |
| --- | --- | --- | --- |
| \`organization\` | string | none | The organization's slug, shown in its URL |
| \`space\` | string | none | The space the directory maps to |
| \`root\` | path | \`.\` | Where the Markdown files live |
| \`publish.domain\` | hostname | none | Custom domain of the published site |
| \`publish.search\` | boolean | \`true\` | Whether the published site has a search box |
| \`sync.provider\` | \`github\` or \`gitlab\` | none | Enables Git Sync |
| \`sync.branch\` | string | \`main\` | The branch to sync with |

## Environment variables

Environment variables override the file. They are how you pass secrets: never write a token in \`acme.config.yml\`.

* \`ACME_TOKEN\`: an API token, used instead of the keychain (handy in CI)
* \`ACME_API_URL\`: the API of a self-hosted server, e.g. \`https://docs.example.test/api\`
* \`ACME_DATABASE_URL\` and \`ACME_STORAGE_URL\`: self-hosted server only
* \`ACME_LOG_LEVEL\`: \`error\`, \`warn\`, \`info\` (default) or \`debug\`

### Precedence

Command-line flags win over environment variables, which win over the file, which wins over the defaults.
`,
    },
    {
      id: 'pg-gs-guides',
      title: 'Guides',
      slug: 'guides',
      kind: 'group',
      pages: [
        {
          id: 'pg-gs-first-space',
          title: 'Create your first space',
          slug: 'first-space',
          emoji: '✨',
          markdown: `A *space* holds the pages of one body of documentation: a product guide, an API reference, a handbook. Each space has its own page tree, history, permissions and, once published, its own URL.

## Create the space

1. In the web app, open your organization and select **New space**.
2. Give it a title. The URL slug is derived from the title; you can change it later without breaking links, because old URLs redirect.
3. Choose who can see it: only your organization, anyone with the link, or everyone once published.
4. Select **Create**. The space opens on an empty first page.

## Structure your pages

Pages can have sub-pages, and top-level pages can be grouped under a heading that is not a page itself. A good first structure:

* an introduction page that says who the space is for;
* a few task pages ("Install", "Configure", "Troubleshoot");
* a reference group for the details.

{% hint style="success" %}
Keep page titles short and start task pages with a verb. Readers scan the table of contents before they read anything.
{% endhint %}

## Next steps

If you already have documentation in Markdown, [import it](import-content.md) instead of starting from scratch. When the space is ready, [publish it](publish.md). The [Quickstart](../quickstart.md) does the same from the command line.
`,
        },
        {
          id: 'pg-gs-import-content',
          title: 'Import existing content',
          slug: 'import-content',
          emoji: '📥',
          markdown: `Acme Docs imports Markdown folders, Confluence exports and single HTML pages. Imports always create a change request, so you can review the result before it reaches the space.

## Supported sources

| Source | What is imported | Limits |
| --- | --- | --- |
| Markdown folder (zip) | Pages, sub-pages from folders, images | 2,000 files, 500 MB |
| Confluence export | Pages, attachments, page hierarchy | Macros become plain text |
| HTML page | One page, its images | 10 MB |

## Import a folder with the CLI

\`\`\`bash
acme import ./docs --space product-guide --map import-template.csv
\`\`\`

The optional \`--map\` file says which source file becomes which page, with which title and description. Download the template, fill one row per page, and keep the header line:

{% file src="../.gitbook/assets/import-template.csv" %}
Import map template (CSV): one row per page, with its path, title, description and source file
{% endfile %}

<details>
<summary>What happens to links between imported files?</summary>

Relative links such as \`../setup/install.md\` are rewritten to point at the imported pages. Links to files that were not imported stay as they are and show up in the space's broken link report.

</details>

To import from a script or a CI job, call the [Pages endpoints]({{space:API reference}}/pages/pg-api-pages) of the API directly.
`,
        },
        {
          id: 'pg-gs-publish',
          title: 'Publish your site',
          slug: 'publish',
          emoji: '🌍',
          markdown: `Publishing makes a space readable by people outside your organization, at \`https://<organization>.docs.example.test/<space>\` or on your own domain.

## Publish a space

1. Open the space and select **Share → Publish to the web**.
2. Choose the audience: *public* (anyone, indexed by search engines) or *unlisted* (anyone with the link).
3. Select **Publish**. Every merged change request now updates the site within a minute.

## Use a custom domain

Add a CNAME record at your DNS provider, then enter the domain in **Settings → Domain**. Acme Docs issues and renews the TLS certificate for you.

| Record | Name | Value |
| --- | --- | --- |
| CNAME | \`docs\` | \`hosting.acme.test\` |
| TXT | \`_acme-verify.docs\` | The token shown in the settings |

{% hint style="warning" %}
Certificates are only issued once the CNAME resolves. DNS changes can take up to an hour to propagate: the domain settings show **Pending** until then.
{% endhint %}

Published pages are searchable from the site's search box. To keep a page out of search engines, turn on **Hide from search engines** in its settings.

## Still stuck?

{% include "{{reusable:rc-gs-support}}" %}
`,
        },
        {
          id: 'pg-gs-git-sync',
          title: 'Sync with GitHub or GitLab',
          slug: 'git-sync',
          emoji: '🔁',
          since: 2,
          markdown: `Git Sync keeps a space and a Git repository in step: merged change requests become commits, and pushed commits become new revisions of the space. Writers use the editor, developers use pull requests, and nobody copies files by hand.

## Connect a repository

{% tabs %}
{% tab title="GitHub" %}
Install the **Acme Docs** GitHub app on the repository, then in the space select **Integrations → GitHub Sync** and choose the repository and branch.
{% endtab %}

{% tab title="GitLab" %}
Create a project access token with the \`api\` and \`write_repository\` scopes, then in the space select **Integrations → GitLab Sync**, paste the token and choose the project and branch.
{% endtab %}
{% endtabs %}

On the first sync, choose the direction: **space to repository** if the space has the content, **repository to space** otherwise.

## The repository layout

\`\`\`text
docs/
├── README.md            # the first page
├── quickstart.md
├── guides/
│   └── publish.md
└── .gitbook/assets/     # images and files
\`\`\`

A page with sub-pages is a folder with a \`README.md\`. Sync settings can also live in the repository, in the \`sync\` section of \`acme.config.yml\` (see the [Configuration reference](../configuration.md)).

{% hint style="info" %}
Commits that only touch files outside \`root\` are ignored, so documentation can live next to your code.
{% endhint %}
`,
        },
      ],
    },
    {
      id: 'pg-gs-how-it-works',
      title: 'How Acme Docs works',
      slug: 'how-it-works',
      emoji: '🧩',
      description: 'The components of Acme Docs and how content flows between them.',
      markdown: `Knowing the moving parts makes the rest of this guide easier to follow, and helps when something goes wrong.

![Clients call the API; the API writes the content store and the search index; the renderer serves published sites through the CDN](.gitbook/assets/architecture.png "Architecture of Acme Docs")

## Components

* **Clients**: the web editor, the \`acme\` CLI and Git Sync. They all use the public API, so anything you can click you can also script.
* **API**: checks permissions, records every change as a new *revision* and never modifies an old one.
* **Content store**: revisions, pages and files. Identical content is stored once, so a long history costs little.
* **Search index**: updated within seconds of a merge; it powers the editor's search and the published sites' search box.
* **Renderer and CDN**: turn a revision into HTML and cache it close to readers.

## Revisions and change requests

Every edit happens in a *change request*, a private copy of the space. Merging it creates a revision, and the published site switches to the new revision atomically: readers never see half of a change.

<details>
<summary>Why can I not edit the main version directly?</summary>

Because two people editing the same page at the same time would overwrite each other. Change requests let them work in parallel; conflicts are shown at merge time, paragraph by paragraph.

</details>

For the details of each resource, see the [API overview]({{space:API reference}}/pages/pg-api-overview).
`,
    },
    {
      id: 'pg-gs-troubleshooting',
      title: 'Troubleshooting',
      slug: 'troubleshooting',
      emoji: '🩺',
      description: 'Fixes for the problems new users run into most.',
      markdown: `Most problems come from one of three places: authentication, network access, or configuration. Run \`acme doctor\` first: it checks all three and prints what it found.

\`\`\`bash
acme doctor --verbose
\`\`\`

## Common problems

<details>
<summary>Sign-in hangs after the browser says "Signed in"</summary>

\`acme login\` waits for the browser to call it back, and the browser could not reach the CLI on \`localhost\`. A VPN or proxy is usually the cause. Run \`acme login --device\` instead: it prints a code to enter at \`https://app.acme.test/device\`.

</details>

<details>
<summary>Error 403 when pushing a page</summary>

Your token can read the space but not edit it. Ask an administrator for the **Editor** role on the space, or check that \`ACME_TOKEN\` is not an old read-only token (see [environment variables](configuration.md#environment-variables)).

</details>

<details>
<summary>The published site still shows the old version</summary>

Check that the change request is merged, not only approved. The CDN cache is purged on every merge; if a page is still stale after five minutes, note its URL and the time.

</details>

{% hint style="danger" %}
Never share the output of \`acme doctor --verbose\` publicly without reading it: it includes the first characters of your token.
{% endhint %}

## Contact support

{% include "{{reusable:rc-gs-support}}" %}
`,
    },
    {
      id: 'pg-gs-beta-features',
      title: 'Beta features',
      slug: 'beta-features',
      emoji: '🧪',
      hidden: true,
      since: 3,
      markdown: `These features are available to organizations in the beta program. They work, but their behavior and their API may still change before general availability. This page is hidden from the table of contents: share its link with beta testers only.

## Currently in beta

| Feature | Since | Enable it in |
| --- | --- | --- |
| AI answers in the published site's search | 3.2 | **Settings → Search** |
| Page-level analytics | 3.2 | **Insights** |
| Scheduled publishing | 3.1 | The **Merge** menu of a change request |

## Turn on the beta program

1. Open **Organization settings → Beta**.
2. Accept the beta terms.
3. Enable the features one by one; each can be turned off again at any time.

{% hint style="warning" %}
AI answers only use the content of published spaces. Unlisted and private spaces are never sent to the answering model.
{% endhint %}

Tell us what works and what does not at \`beta@acme.test\`: the feedback directly shapes what ships in the next release.
`,
    },
    {
      id: 'pg-gs-smoke-test',
      title: 'Release smoke test',
      slug: 'release-smoke-test',
      noIndex: true,
      description: 'Internal checklist run against staging before each release.',
      markdown: `This page is for the release team. It is kept out of search on purpose, so that the test data it mentions never shows up in readers' results.

Before each release, run the smoke test against \`https://staging.acme.test\` with the test organization **quokka**, which has one space of every kind. The quokka organization is reset every night, so anything you create there disappears by the next morning.

## Steps

1. Sign in as \`release-bot@acme.test\` and open the quokka organization.
2. Create a change request in the space *Smoke test*, edit the first paragraph and merge it.
3. Open the published site and check that the new paragraph is there within a minute.
4. Search the published site for the edited paragraph.

## Checklist

- [ ] Sign-in with a password and with SSO
- [ ] Create, merge and publish a change
- [ ] Upload an image and see it in the published page
- [ ] Import the sample Markdown folder
- [ ] Export the space as PDF

{% hint style="info" %}
If any step fails, stop the release and post in \`#release\` with a screenshot.
{% endhint %}
`,
    },
    {
      id: 'pg-gs-status',
      title: 'Service status',
      kind: 'link',
      emoji: '🟢',
      href: 'https://status.acme.test',
    },
  ],
};
