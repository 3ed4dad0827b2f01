/**
 * The other spaces the demo docs sites publish, a few pages each, so that every site, variant
 * and share link of the demo shows something: Acme Docs' product overview, release notes, status
 * page and French guide; the partner portal's pricing FAQ and German guide; the beta variant of
 * "Acme API" (the runbooks); the draft site's roadmap; Globex's developer portal.
 */
import type { DemoSpaceContent } from './types.js';

const PRODUCT_OVERVIEW: DemoSpaceContent = {
  space: 'Product overview',
  revisionDaysAgo: [40, 12],
  variables: { product: 'Acme Docs' },
  files: [],
  reusableContents: [],
  pages: [
    {
      id: 'pg-po-overview',
      title: 'Acme Docs at a glance',
      slug: 'overview',
      emoji: '🚀',
      description: 'What the product does, for whom, and on which plans.',
      markdown: `Acme Docs turns what your team knows into documentation people find: write in a visual editor or in Markdown, review changes like code, and publish a fast site on your own domain.

## Who uses it

* **Product teams** publish user guides and API references next to their releases.
* **Support teams** answer once in the docs instead of a hundred times in tickets.
* **Engineering teams** keep runbooks and decisions where on-call can find them at 3 a.m.

## What comes with every plan

* Unlimited readers on public sites.
* Full-text search, page history and change requests.
* Git Sync with GitHub and GitLab.

See [Plans](plans.md) for what each plan adds.
`,
    },
    {
      id: 'pg-po-plans',
      title: 'Plans',
      slug: 'plans',
      emoji: '💳',
      description: 'Free, Pro and Enterprise, side by side.',
      markdown: `| | Free | Pro | Enterprise |
| --- | --- | --- | --- |
| Editors | 1 | unlimited | unlimited |
| Custom domain | no | yes | yes |
| Visitor authentication | no | yes | yes |
| SAML single sign-on | no | no | yes |
| Support | community | e-mail, four business hours | a named contact |

Every plan starts with a 14-day trial of Pro. Prices are on [acme.test/pricing](https://acme.test/pricing).
`,
    },
    {
      id: 'pg-po-integrations',
      title: 'Integrations',
      slug: 'integrations',
      emoji: '🧩',
      since: 2,
      markdown: `Acme Docs connects to the tools your team already uses:

* **GitHub and GitLab**: keep a space and a repository in step with Git Sync.
* **Slack**: get a message when a change request needs your review.
* **Video embeds**: paste a link to a video and readers watch it in the page.

Build your own with the integrations API: see [the API overview]({{space:API reference}}/pages/pg-api-overview).
`,
    },
  ],
};

const RELEASE_NOTES: DemoSpaceContent = {
  space: 'Release notes',
  revisionDaysAgo: [60, 20, 1],
  variables: {},
  files: [],
  reusableContents: [],
  pages: [
    {
      id: 'pg-rn-latest',
      title: 'Release 3.2',
      slug: 'release-3-2',
      emoji: '📣',
      description: 'Translations, faster search and a new change request view.',
      since: 3,
      markdown: `Released two weeks ago, on Cloud and for the self-hosted server.

## New

* **Translations**: translate a space into another language and keep it up to date as the source changes.
* **Change request view**: see every comment, review and conflict of a change request on one screen.

## Improved

* Search answers in under 100 ms on spaces of 10,000 pages.
* Git Sync retries on network errors instead of stopping.

## Fixed

* Tables pasted from spreadsheets keep their header row.
`,
    },
    {
      id: 'pg-rn-3-1',
      title: 'Release 3.1',
      slug: 'release-3-1',
      emoji: '🗓️',
      since: 2,
      markdown: `## New

* **Adaptive content**: show a page, a section or a variant only to the visitors whose claims match.
* **Share links** for sites: give partners a link to a site that is not public.

## Fixed

* A page moved between groups keeps its redirects.
`,
    },
    {
      id: 'pg-rn-3-0',
      title: 'Release 3.0',
      slug: 'release-3-0',
      emoji: '🗓️',
      markdown: `The first release with **sites**: publish several spaces as one site with sections, variants and a custom domain.

Upgrading from 2.x: run \`acme migrate\` once; spaces that were published on their own become sites of one space.
`,
    },
  ],
};

const STATUS_PAGE: DemoSpaceContent = {
  space: 'Status page',
  revisionDaysAgo: [30],
  variables: {},
  files: [],
  reusableContents: [],
  pages: [
    {
      id: 'pg-st-current',
      title: 'Current status',
      slug: 'current',
      emoji: '🟢',
      markdown: `All systems operational.

| Service | Status |
| --- | --- |
| Editor and API | operational |
| Published sites | operational |
| Search | operational |
| Git Sync | operational |

Subscribe to incident updates at [status.acme.test](https://status.acme.test).
`,
    },
    {
      id: 'pg-st-incidents',
      title: 'Past incidents',
      slug: 'incidents',
      emoji: '🗂️',
      markdown: `## Search slower than usual (resolved)

For 40 minutes, search answered in up to five seconds while an index was rebuilt. No data was lost.

## Git Sync delays (resolved)

Imports from GitHub waited up to 20 minutes while the provider limited our requests.
`,
    },
  ],
};

const PRICING_FAQ: DemoSpaceContent = {
  space: 'Pricing FAQ',
  revisionDaysAgo: [150, 40],
  variables: {},
  files: [],
  reusableContents: [],
  pages: [
    {
      id: 'pg-pf-faq',
      title: 'Pricing questions from partners',
      slug: 'faq',
      emoji: '💬',
      description: 'What resellers and partners ask most about prices and billing.',
      markdown: `## Do partners get a discount?

Registered partners get 20 % off every plan they resell, and 30 % once they have ten active customers.

## Who invoices the customer?

You do: Acme invoices you monthly for the seats of your customers, and you set your own price.

## Can a customer move from a partner to a direct contract?

Yes, at the end of a billing period. Their spaces, sites and history stay as they are.
`,
    },
    {
      id: 'pg-pf-billing',
      title: 'Billing and invoices',
      slug: 'billing',
      emoji: '🧾',
      since: 2,
      markdown: `Invoices are sent on the first day of the month, in USD or EUR, payable within 30 days.

| Plan | Price per editor and month (list) |
| --- | --- |
| Pro | 8 USD |
| Enterprise | on quote |
`,
    },
  ],
};

const ERSTE_SCHRITTE: DemoSpaceContent = {
  space: 'Erste Schritte',
  revisionDaysAgo: [170, 31],
  variables: {},
  files: [],
  reusableContents: [],
  pages: [
    {
      id: 'pg-es-willkommen',
      title: 'Willkommen',
      slug: 'willkommen',
      emoji: '👋',
      markdown: `**Acme Docs** ist eine Plattform für Dokumentation, die Teams gemeinsam schreiben. Dieser Leitfaden führt Partner in fünfzehn Minuten von einem leeren Konto zu einer veröffentlichten Seite.

* [Installation](installation.md): die Befehlszeile einrichten.
* [Erste Seite](erste-seite.md): schreiben, prüfen, veröffentlichen.
`,
    },
    {
      id: 'pg-es-installation',
      title: 'Installation',
      slug: 'installation',
      emoji: '📦',
      markdown: `Installieren Sie die Befehlszeile mit npm:

\`\`\`bash
npm install --global @acme/docs-cli
acme login
\`\`\`

{% hint style="info" %}
Die Befehlszeile braucht Node.js 20 oder neuer.
{% endhint %}
`,
    },
    {
      id: 'pg-es-erste-seite',
      title: 'Erste Seite',
      slug: 'erste-seite',
      emoji: '✍️',
      since: 2,
      markdown: `Legen Sie einen Bereich an, schreiben Sie eine Seite und öffnen Sie eine Änderungsanfrage. Sobald sie zusammengeführt ist, erscheint die Seite auf Ihrer Website.
`,
    },
  ],
};

const GUIDE_DE_DEMARRAGE: DemoSpaceContent = {
  space: 'Guide de démarrage',
  revisionDaysAgo: [180, 30],
  variables: {},
  files: [],
  reusableContents: [],
  pages: [
    {
      id: 'pg-gd-bienvenue',
      title: 'Bienvenue',
      slug: 'bienvenue',
      emoji: '👋',
      markdown: `**Acme Docs** est une plateforme de documentation pour les équipes qui écrivent ensemble. Ce guide vous mène d’un compte vide à un site publié en un quart d’heure.

* [Installation](installation.md) : installer l’outil en ligne de commande.
* [Publier](publier.md) : relire et publier votre première page.
`,
    },
    {
      id: 'pg-gd-installation',
      title: 'Installation',
      slug: 'installation',
      emoji: '📦',
      markdown: `Installez l’outil en ligne de commande avec npm, puis connectez-vous :

\`\`\`bash
npm install --global @acme/docs-cli
acme login
\`\`\`
`,
    },
    {
      id: 'pg-gd-publier',
      title: 'Publier',
      slug: 'publier',
      emoji: '🌍',
      since: 2,
      markdown: `Ouvrez une demande de modification, faites-la relire, puis fusionnez-la : la page paraît aussitôt sur le site.
`,
    },
  ],
};

const RUNBOOKS: DemoSpaceContent = {
  space: 'Runbooks',
  revisionDaysAgo: [200, 60, 7],
  variables: {},
  files: [],
  reusableContents: [],
  pages: [
    {
      id: 'pg-rb-overview',
      title: 'Runbooks',
      slug: 'overview',
      emoji: '🛠️',
      description: 'What to do when something breaks, service by service.',
      markdown: `Each runbook says how to tell what is wrong, what to do first, and when to escalate. Keep them short: they are read under pressure.

* [Deploy and roll back](deploy.md)
* [Database failover](database-failover.md)
`,
    },
    {
      id: 'pg-rb-deploy',
      title: 'Deploy and roll back',
      slug: 'deploy',
      emoji: '🚢',
      markdown: `## Deploy

\`\`\`bash
acme-ops deploy api --version 3.2.1
\`\`\`

Watch the error rate on the API dashboard for ten minutes.

## Roll back

\`\`\`bash
acme-ops rollback api
\`\`\`

A rollback takes two minutes; announce it in #incidents.
`,
    },
    {
      id: 'pg-rb-database-failover',
      title: 'Database failover',
      slug: 'database-failover',
      emoji: '🗄️',
      since: 3,
      markdown: `When the primary database stops answering for more than a minute:

1. Check the replica's lag on the database dashboard: under 5 seconds is safe.
2. Promote it: \`acme-ops db promote --replica eu-2\`.
3. Page the database owner if the lag was higher.
`,
    },
  ],
};

const ROADMAP: DemoSpaceContent = {
  space: 'Roadmap',
  revisionDaysAgo: [200, 9],
  variables: {},
  files: [],
  reusableContents: [],
  pages: [
    {
      id: 'pg-rm-now',
      title: 'Now',
      slug: 'now',
      emoji: '🏗️',
      markdown: `What we are building this quarter:

* Comments on published pages, for signed-in readers.
* Search across every site of an organization.
`,
    },
    {
      id: 'pg-rm-next',
      title: 'Next',
      slug: 'next',
      emoji: '🔭',
      since: 2,
      markdown: `What comes after, in no particular order: offline reading, a desktop editor, and page templates shared between organizations.
`,
    },
  ],
};

const DEVELOPER_PORTAL: DemoSpaceContent = {
  space: 'Developer portal',
  revisionDaysAgo: [180, 4],
  variables: { apiHost: 'api.globex.test' },
  files: [],
  reusableContents: [],
  pages: [
    {
      id: 'pg-dp-welcome',
      title: 'Globex for developers',
      slug: 'welcome',
      emoji: '💻',
      markdown: `Build on Globex: order tracking, invoices and shipments, over one REST API.

* [Authentication](authentication.md): get a key and send it.
`,
    },
    {
      id: 'pg-dp-authentication',
      title: 'Authentication',
      slug: 'authentication',
      emoji: '🔑',
      markdown: `Send your key in the \`Authorization\` header of every request:

\`\`\`bash
curl https://api.globex.test/v2/orders -H "Authorization: Bearer $GLOBEX_KEY"
\`\`\`

Keys are created in the Globex console, under **Developers → Keys**.
`,
    },
    {
      id: 'pg-dp-webhooks',
      title: 'Webhooks',
      slug: 'webhooks',
      emoji: '📬',
      since: 2,
      markdown: `Globex calls your endpoint when an order ships. Answer with a 2xx status within ten seconds, or the call is retried three times.
`,
    },
  ],
};

export const SITE_SPACES_CONTENT: DemoSpaceContent[] = [
  PRODUCT_OVERVIEW,
  RELEASE_NOTES,
  STATUS_PAGE,
  PRICING_FAQ,
  ERSTE_SCHRITTE,
  GUIDE_DE_DEMARRAGE,
  RUNBOOKS,
  ROADMAP,
  DEVELOPER_PORTAL,
];
