/**
 * The "Company handbook" demo space: Acme's internal handbook (how we work, engineering
 * practices, releases, on-call and incident response). It holds the one deliberately broken
 * link of the demo content (on the "Expenses" page).
 */
import { incidentFlowPng, teamStructureSvg, text } from './images.js';
import type { DemoSpaceContent } from './types.js';

export const HANDBOOK: DemoSpaceContent = {
  space: 'Company handbook',
  revisionDaysAgo: [60, 20, 3],
  variables: {
    company: 'Acme',
    handbookVersion: '2024.3',
    peopleEmail: 'people@acme.test',
    incidentChannel: '#incidents',
  },
  formerVariables: {
    company: 'Acme',
    handbookVersion: '2024.1',
    peopleEmail: 'people@acme.test',
    incidentChannel: '#ops-incidents',
  },
  files: [
    {
      id: 'file-hb-team-structure',
      name: 'team-structure.svg',
      contentType: 'image/svg+xml',
      bytes: () => Buffer.from(teamStructureSvg(), 'utf8'),
    },
    { id: 'file-hb-incident-flow', name: 'incident-flow.png', contentType: 'image/png', bytes: incidentFlowPng },
    {
      id: 'file-hb-oncall-handoff',
      name: 'oncall-handoff.txt',
      contentType: 'text/plain',
      bytes: () =>
        text([
          'ON-CALL HANDOFF',
          '===============',
          '',
          'Outgoing:            Incoming:            Week of:',
          '',
          'Open incidents (ID, severity, status, next step):',
          '  -',
          '',
          'Alerts that fired more than twice (name, count, action taken or ticket):',
          '  -',
          '',
          'Deploys or migrations planned this week:',
          '  -',
          '',
          'Anything flaky, noisy or surprising:',
          '  -',
          '',
          'Runbooks that were wrong or missing (fix them or file a ticket):',
          '  -',
          '',
          'Post this in #incidents and walk through it together in the Monday handoff call.',
        ]),
    },
  ],
  reusableContents: [
    {
      id: 'rc-hb-oncall-contacts',
      title: 'On-call contacts',
      markdown: `{% hint style="danger" %}
**Production is down or customer data is at risk?** Page the on-call engineer with \`/page oncall\` in Slack, or call the incident line at **+1 555 0100**. Then open a channel with \`/incident new\`. Do not wait to be sure: a false alarm costs minutes, a late page costs hours.
{% endhint %}
`,
    },
  ],
  pages: [
    {
      id: 'pg-hb-welcome',
      title: 'Welcome to Acme',
      slug: 'welcome',
      emoji: '👋',
      description: 'What this handbook is, and how to change it.',
      markdown: `This handbook is how Acme works, written down. It is the first place to look when you wonder how we do something, and the place to change when we decide to do it differently. 🙌

We build [Acme Docs]({{space:Getting started}}/pages/pg-gs-welcome), the documentation platform used by more than 4,000 teams. We are 120 people in 19 countries, and most of us never share an office, which is why we write things down.

## Our values

* **Write it down.** A decision that only lives in a meeting did not happen.
* **Default to open.** Documents, metrics and roadmaps are visible to everyone unless there is a reason they cannot be.
* **Small steps, shipped often.** A small change in production teaches more than a big one in review.
* **Own the outcome.** If you see a problem, it is yours until you hand it over explicitly.

## Find your way

| Topic | Start here |
| --- | --- |
| Working hours, remote setup, time off | [Remote work](how-we-work/remote-work.md) |
| Slack, meetings and written updates | [Communication](how-we-work/communication.md) |
| How we build and ship software | [Engineering practices](engineering/README.md) |
| Being on call | [On-call](on-call/README.md) |

## Change this handbook

The handbook is synchronized with the \`acme/handbook\` repository: edit a page here or open a pull request there. Policy changes (time off, expenses, on-call pay) need an approval from *People Operations*; everything else just needs one reviewer.
`,
    },
    {
      id: 'pg-hb-how-we-work',
      title: 'How we work',
      slug: 'how-we-work',
      kind: 'group',
      pages: [
        {
          id: 'pg-hb-remote-work',
          title: 'Remote work',
          slug: 'remote-work',
          emoji: '🏡',
          markdown: `Acme is remote-first: everyone works from where they work best, and the company is organized so that nobody is at a disadvantage for not being in a room.

## Working hours

You choose your hours. Each team agrees on **core hours**, a window of at least three hours when everyone is reachable for quick questions, and publishes it on its team page.

| Region | Typical core hours (local time) |
| --- | --- |
| Americas | 10:00 to 13:00 (New York) |
| Europe and Africa | 14:00 to 17:00 (Berlin) |
| Asia-Pacific | 09:00 to 12:00 (Singapore) |

Teams that span more than eight time zones rely on written updates instead of overlap: see [Communication](communication.md).

## Your setup

Acme pays for what you need to work well:

* a laptop of your choice, replaced every three years;
* **1,500 USD** when you join for a desk, a chair, a screen and a headset, then 400 USD a year;
* a coworking membership if you prefer not to work from home.

Order through the people portal, or buy it yourself and claim it as an expense with the receipt.

## Meeting in person

Each team meets in person once a year for a week, and the whole company every other year. Travel is booked by People Operations, so you never pay upfront.

{% hint style="info" %}
Working from another country for more than four weeks has tax consequences. Ask \`people@acme.test\` at least a month before you go.
{% endhint %}
`,
        },
        {
          id: 'pg-hb-communication',
          title: 'Communication',
          slug: 'communication',
          emoji: '💬',
          markdown: `We write more than we talk. Writing lets people in other time zones take part, and leaves a trace that the next person can find.

## Where to say what

| Channel | Use it for | Expected answer time |
| --- | --- | --- |
| A document or a page of this handbook | Proposals, decisions, anything people will look for later | Days |
| Slack channel | Questions and discussions about one topic | Hours |
| Slack direct message | Personal or sensitive matters only | Hours |
| Pager | Production incidents, nothing else | Minutes |

Prefer channels to direct messages: an answer in a channel helps the next person who has the same question.

## Meetings

A meeting needs an agenda in the invitation and written notes afterwards, linked from the relevant channel. If a meeting has no agenda, you may decline it. Recurring meetings are reviewed every quarter and cancelled if nobody misses them.

## Weekly updates

Every team posts an update on Friday in \`#updates\`, in three short parts: *what shipped*, *what is next*, *where we need help*. Keep it under 200 words; link to details rather than pasting them.

{% hint style="success" %}
Good written questions say what you tried and what you expected. "Deploy fails with \`ENOSPC\` on runner 3, retried twice, disk is 98% full" gets answered faster than "deploys are broken".
{% endhint %}
`,
        },
        {
          id: 'pg-hb-time-off',
          title: 'Time off',
          formerTitle: 'Vacation policy',
          slug: 'time-off',
          emoji: '🌴',
          markdown: `Rest is part of the job. We expect everyone to take at least **25 days off** a year, on top of public holidays, and managers check that their team does.

## Kinds of leave

| Leave | Allowance | Notice |
| --- | --- | --- |
| Vacation | Minimum 25 days, no maximum | Two weeks for a week or more |
| Public holidays | Those of the country you live in | None |
| Sick leave | Paid, no fixed limit | Tell your manager the same day |
| Parental leave | 20 weeks paid, for every parent | As early as you can |
| Bereavement | Up to 10 days | None |

## Request time off

1. Agree on the dates with your team, especially if you are on the on-call rotation.
2. Enter the dates in the people portal; your manager approves within two working days.
3. Set your Slack status and an e-mail auto-reply that says who covers for you.
4. Hand over anything urgent in writing before you leave.

If you are on call during your vacation, swap your shift first: see the [on-call rotation](../on-call/README.md).

{% hint style="warning" %}
Unused vacation does not roll over, and is not paid out. Plan your days before the end of the year.
{% endhint %}

Questions about your balance go to \`people@acme.test\`.
`,
        },
        {
          id: 'pg-hb-expenses',
          title: 'Expenses',
          slug: 'expenses',
          emoji: '🧾',
          since: 2,
          markdown: `Spend Acme's money as you would spend your own, on things that help you do your job. You do not need approval for expenses under 200 USD; above that, ask your manager first, in writing.

## What you can expense

| Category | Limit | Notes |
| --- | --- | --- |
| Books, courses, conferences | 1,000 USD a year | Share what you learned in \`#learning\` |
| Home office | See [Remote work](remote-work.md) | Desk, chair, screen, headset |
| Internet | 50 USD a month | Only the part above your usual plan |
| Travel for work | Economy class, mid-range hotels | Booked through People Operations when possible |
| Meals when traveling | 60 USD a day | Not alcohol |

## Get reimbursed

Photograph the receipt and submit it in the people portal within 60 days, with one sentence saying what it was for. Reimbursements are paid with the next salary.

<details>
<summary>What about the old travel and expense rules?</summary>

They were merged into this page in 2024. Some older documents still link to the [retired travel policy page](/pages/pg-removed-page); this page replaces it.

</details>

*Company cards are available to people who travel or buy software for their team: ask Finance at \`finance@acme.test\`.*
`,
        },
      ],
    },
    {
      id: 'pg-hb-engineering',
      title: 'Engineering practices',
      slug: 'engineering',
      emoji: '🛠️',
      description: 'How the engineering teams build, review and ship Acme Docs.',
      markdown: `Engineering at Acme is about 45 people in four teams, each owning a part of the product end to end: it builds it, ships it, and is on call for it.

<figure><img src="../.gitbook/assets/team-structure.svg" alt="The VP of Engineering leads four teams: Editor, Platform, Publishing and Infrastructure."><figcaption><p>Engineering teams and what they own</p></figcaption></figure>

## Principles

* **Main is always deployable.** Every merge to \`main\` goes to production the same day; unfinished work hides behind feature flags.
* **Tests are part of the change.** A pull request without tests needs a sentence explaining why.
* **Boring technology.** TypeScript, PostgreSQL and Kubernetes cover nearly everything. Adding a new language, database or queue needs a written decision record.
* **The API is the product.** The web app uses only the public API, so anything we build is scriptable. API changes follow the rules in the [public API reference]({{space:API reference}}/pages/pg-api-overview).

## In this section

* [Development environment](dev-setup.md): set up your machine on day one.
* [Code review](code-review.md): how to ask for a review and how to give one.
* [Releases](releases/README.md): how code gets from \`main\` to customers.

Ownership of services is listed in the service catalog at \`https://catalog.acme.test\`; if a service has no owner, tell Ada.
`,
      pages: [
        {
          id: 'pg-hb-dev-setup',
          title: 'Development environment',
          slug: 'dev-setup',
          emoji: '💻',
          markdown: `On your first day you should be able to run Acme Docs locally and ship a small change. This page gets you there in about an hour.

## Install the tools

{% tabs %}
{% tab title="macOS" %}
\`\`\`bash
brew install node@20 pnpm postgresql@16 direnv
brew install --cask docker
\`\`\`
{% endtab %}

{% tab title="Linux" %}
\`\`\`bash
sudo apt-get install -y postgresql-16 direnv
curl -fsSL https://get.pnpm.io/install.sh | sh -
\`\`\`
Install Node 20 with your version manager of choice; \`.nvmrc\` pins the exact version.
{% endtab %}
{% endtabs %}

## Configure the repository

Clone \`acme/docs-platform\`, then create your local environment file. \`direnv\` loads it when you enter the directory:

{% code title=".envrc.local" %}
\`\`\`bash
export ACME_DATABASE_URL=postgres://localhost:5432/acme_dev
export ACME_STORAGE_URL=file://$HOME/.acme/files
export ACME_LOG_LEVEL=debug
\`\`\`
{% endcode %}

Then run \`pnpm install && pnpm db:setup && pnpm dev\`, and open \`http://localhost:3000\`. The seed data signs you in as an administrator.

## Running the product the way customers do

To reproduce a customer issue on the self-hosted build, use the same Docker Compose setup as customers, described in [Run with Docker]({{space:Getting started}}/pages/pg-gs-docker).

{% hint style="info" %}
Stuck for more than 30 minutes? Ask in \`#dev-help\`. Nobody expects you to know our setup, and your question shows us what to document better.
{% endhint %}
`,
        },
        {
          id: 'pg-hb-code-review',
          title: 'Code review',
          slug: 'code-review',
          emoji: '👀',
          markdown: `Every change to production code is reviewed by at least one other engineer. Reviews are how we share knowledge, not a gate to get past.

## Asking for a review

* Keep pull requests small: under 400 changed lines, or split them.
* Say *why* in the description, not only what. Link the issue or the decision record.
* Review your own diff first. Most typos are found this way.

## Giving a review

Answer review requests within one working day, even if only to say when you will look. Prefix comments so the author knows what is blocking:

| Prefix | Meaning |
| --- | --- |
| **blocking:** | Must change before merging |
| **question:** | I do not understand; please explain (maybe in the code) |
| **nit:** | Small, optional; the author decides |
| **praise:** | Something done well. Say it! |

Approve when the change makes the code better, even if it is not how you would have written it.

### Who reviews what

Changes to billing, authentication or data deletion need a second review from the owning team; the \`CODEOWNERS\` file enforces it. Database migrations are reviewed by Platform (Dee is the default reviewer).

{% hint style="warning" %}
Never approve a change you did not read because the author is senior or in a hurry. "LGTM" on an unread diff is how incidents start.
{% endhint %}
`,
        },
        {
          id: 'pg-hb-releases',
          title: 'Releases',
          slug: 'releases',
          emoji: '🚢',
          markdown: `Acme Docs Cloud is deployed continuously; the self-hosted server gets a release every two weeks.

## Cloud

Every merge to \`main\` goes through CI (about 12 minutes), then to staging, then to 5% of production traffic, then everywhere. Each step waits for error rates to stay under the thresholds in the deploy dashboard; a breach rolls back automatically.

Deploys are paused from Friday 15:00 to Monday 09:00 (UTC), and during company events. Urgent fixes during a pause follow the hotfix procedure.

## Self-hosted releases

1. The release manager of the fortnight cuts \`release/3.x\` from \`main\` on Monday.
2. QA runs the upgrade tests from the last two minor versions.
3. The release notes are written in the *Release notes* space, and customer-facing API changes are added to the [API reference]({{space:API reference}}/pages/pg-api-sdks).
4. On Thursday, the release manager runs the [release checklist](release-checklist.md) and publishes the images.

## Versioning

We follow semantic versioning. A minor release never requires manual migration steps; if a change would, it waits for the next major version, announced six months in advance.
`,
          pages: [
            {
              id: 'pg-hb-release-checklist',
              title: 'Release checklist',
              slug: 'release-checklist',
              emoji: '✅',
              markdown: `Copy this checklist into the release issue and tick the boxes as you go. Skipping a step needs a note in the issue saying why.

## Before you deploy

- [ ] All CI checks are green on the release branch
- [ ] Upgrade tests passed from the two previous minor versions
- [ ] Database migrations are backward compatible with the previous release
- [ ] Release notes are reviewed by the product manager
- [ ] The on-call engineer knows the release is going out

## Deploy

- [ ] Tag the release: \`git tag v3.2.1 && git push --tags\`
- [ ] Wait for the image build, then check its signature with \`cosign verify\`
- [ ] Publish the Helm chart and the Docker images
- [ ] Update the download page and post in \`#releases\`

## After the release

- [ ] Watch error rates and support tickets for 24 hours
- [ ] Close the release issue with a link to the release notes

{% hint style="info" %}
If something goes wrong after publishing, do not delete the release: publish a fixed patch version instead. Customers may already have pulled the images.
{% endhint %}

See [Releases](README.md) for the schedule and who the release manager is.
`,
            },
            {
              id: 'pg-hb-hotfixes',
              title: 'Hotfixes',
              slug: 'hotfixes',
              emoji: '🩹',
              since: 3,
              markdown: `A hotfix is a change that cannot wait for the normal release flow: a security vulnerability, data loss, or an outage without a workaround. Everything else waits.

## Who can decide

The incident commander or an engineering manager decides that a fix is a hotfix, in the incident channel, so there is a written record.

## How to ship one

1. Branch from the deployed commit, not from \`main\`: \`git switch -c hotfix/<issue> <deployed-sha>\`.
2. Keep the change as small as possible. Refactoring waits.
3. Get one review. During a severity 1 incident, the review may happen after the deploy, within one working day.
4. Deploy with \`deployctl deploy --hotfix\`, which skips the canary stage but not the tests.
5. Merge the fix back into \`main\` the same day.

For self-hosted customers, cut a patch release and run the usual [pre-deploy checks](release-checklist.md#before-you-deploy).

{% hint style="danger" %}
A hotfix deployed during a deploy freeze must be announced in \`#releases\` and in the incident channel *before* it goes out.
{% endhint %}
`,
            },
          ],
        },
      ],
    },
    {
      id: 'pg-hb-on-call',
      title: 'On-call',
      slug: 'on-call',
      emoji: '📟',
      description: 'The on-call rotation: who, when, and what it pays.',
      markdown: `Teams that own a production service are on call for it. Being on call means being able to respond to a page within **15 minutes**, at any hour, for one week at a time.

## The rotation

Each team has a rotation of at least five people, so nobody is on call more than one week in five. Shifts change on Monday at 10:00 local time, after a handoff call between the outgoing and the incoming engineer. Use the handoff template:

{% file src="../.gitbook/assets/oncall-handoff.txt" %}
On-call handoff template: open incidents, noisy alerts, planned changes
{% endfile %}

## Pay and time off

| Situation | Compensation |
| --- | --- |
| A week on call | 500 USD, whether or not you are paged |
| Paged at night (22:00 to 07:00) | The next morning off |
| Working on an incident on a weekend | The same time off during the next week |

## Your first shift

New engineers shadow two shifts before joining the rotation, then take their first shift with a named backup.

{% include "{{reusable:rc-hb-oncall-contacts}}" %}

When a page fires, follow [Incident response](incident-response.md).
`,
      pages: [
        {
          id: 'pg-hb-incident-response',
          title: 'Incident response',
          slug: 'incident-response',
          emoji: '🔥',
          markdown: `An incident is any unplanned event that hurts customers or puts their data at risk. Our goal is to **restore service first** and understand later.

![Detect, triage, mitigate, resolve, review; triage can escalate straight to mitigation](../.gitbook/assets/incident-flow.png "The five stages of an incident")

## Severity levels

| Severity | Example | Response |
| --- | --- | --- |
| SEV1 | Published sites down for everyone, data loss | All hands, status page within 15 minutes |
| SEV2 | Editor unusable for some organizations | On-call plus the owning team |
| SEV3 | A feature degraded, workaround exists | On-call, during working hours |

When in doubt, pick the higher severity; you can lower it later.

## What to do

1. **Acknowledge** the page, so that it does not escalate.
2. **Open a channel** with \`/incident new\`; it creates \`#inc-<date>-<name>\` and a timeline document.
3. **Name an incident commander.** Alone, that is you. The commander coordinates; others fix.
4. **Mitigate**: roll back, fail over, or turn off a feature flag before looking for the root cause.
5. **Communicate** every 30 minutes in the channel and, for SEV1 and SEV2, on the status page.
6. **Resolve** and schedule the review within five working days.

{% include "{{reusable:rc-hb-oncall-contacts}}" %}

### Reviews

Reviews are blameless: we look for what made the mistake easy, not for who made it. The written review goes into the *Incident postmortems* space.
`,
        },
        {
          id: 'pg-hb-escalation',
          title: 'Escalation policy',
          slug: 'escalation',
          emoji: '📣',
          since: 2,
          markdown: `Escalating is never a failure. It is how one tired person at 3 a.m. gets help before a small incident becomes a big one.

## When to escalate

Escalate as soon as one of these is true:

* you have not made progress in 30 minutes;
* the incident is SEV1, or might become one (see the [severity levels](incident-response.md#severity-levels));
* the fix needs access, knowledge or a decision you do not have;
* customers' data might be exposed. Then also page Security.

## Who to escalate to

| Step | Who | How |
| --- | --- | --- |
| 1 | The owning team's secondary on-call | Automatic after 15 minutes without acknowledgment |
| 2 | The engineering manager on duty | \`/page eng-manager\` |
| 3 | The VP of Engineering (Ada) | Phone, for SEV1 only |
| Security | The security on-call | \`/page security\` |

<details>
<summary>What if the page is not acknowledged at all?</summary>

The paging system escalates by itself: after 15 minutes to the secondary, after 30 minutes to the engineering manager on duty. Nobody needs to do anything for this to happen, but if you notice a missed page, say so in \`#incidents\`.

</details>

Outside working hours, escalating to step 2 or 3 also gives the people you wake up the next morning off.
`,
        },
      ],
    },
    {
      id: 'pg-hb-people-portal',
      title: 'People portal',
      kind: 'link',
      emoji: '👥',
      href: 'https://people.acme.test',
    },
  ],
};
