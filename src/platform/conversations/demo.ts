import type { Db } from '../store/db.js';
import {
  clusterOfConversation,
  ingestConversations,
  renameCluster,
  setClusterMuted,
  requireCluster,
  type ConversationInput,
} from './store.js';

/**
 * The demo conversations of Acme: support chats (Intercom), Slack threads, e-mails and feedback
 * left on the docs, over the last thirteen weeks, about a handful of recurring problems of the
 * product (installer errors, SSO login loops, API rate limits, search, webhook signatures,
 * double charges) and a few one-off questions. Some conversations raise two problems. They are
 * ingested week by week, as they would have arrived, so later weeks join the clusters earlier
 * ones formed. The installer-errors cluster gets a readable id (`DEMO_CLUSTER_ID`, which a demo
 * change request names), and the double-charge cluster is muted (billing is no documentation
 * topic).
 */

type Message = string | { agent: string };

interface DemoConversation {
  id: string;
  source: 'intercom' | 'slack' | 'email' | 'docs-feedback';
  daysAgo: number;
  subject?: string;
  messages: Message[];
  attributes?: Record<string, string>;
}

const CONVERSATIONS: DemoConversation[] = [
  // Installer errors.
  {
    id: 'intercom-10234',
    source: 'intercom',
    daysAgo: 88,
    subject: 'Installer fails with permission denied',
    messages: [
      'Hi! The installer fails with "EACCES: permission denied" when I install the CLI globally on macOS.',
      { agent: 'Sorry about that! Which version of Node do you use?' },
      'Node 20. I tried again with sudo and the install still fails with the same permission denied error. This is blocking our rollout.',
    ],
    attributes: { plan: 'pro', customer: 'Initech' },
  },
  {
    id: 'slack-C04-1701',
    source: 'slack',
    daysAgo: 81,
    messages: [
      'Anyone else getting permission denied errors from the installer on Ubuntu? The install stops at the global folder.',
    ],
  },
  {
    id: 'email-2024-0311',
    source: 'email',
    daysAgo: 74,
    subject: 'Install error on our build server',
    messages: [
      'Hello, our build server cannot install the CLI: the installer exits with EACCES permission denied in the install step.',
      'We run it as a non-root user. Is there a way to install it in the home folder instead?',
    ],
  },
  {
    id: 'intercom-10388',
    source: 'intercom',
    daysAgo: 60,
    subject: 'Port already in use after install',
    messages: [
      'After the install, starting the server fails with an error: port 3000 already in use. The installer did not tell us how to change the port.',
    ],
  },
  {
    id: 'docs-feedback-311',
    source: 'docs-feedback',
    daysAgo: 53,
    messages: [
      'The installation page does not explain the permission denied error of the installer. Please add a troubleshooting section for install errors.',
    ],
    attributes: { page: 'getting-started/installation' },
  },
  {
    id: 'intercom-10512',
    source: 'intercom',
    daysAgo: 39,
    subject: 'CLI install broken',
    messages: [
      'The CLI install fails again with permission denied (EACCES) after the last update.',
      { agent: 'Could you share the full log?' },
      'Sure, it is the same installer error every time, on two different laptops.',
    ],
  },
  {
    id: 'slack-C04-1893',
    source: 'slack',
    daysAgo: 25,
    messages: [
      'Installer error on Windows: access denied writing to Program Files, then the install rolls back. Is there a way to install per user?',
    ],
  },
  {
    id: 'email-2024-0502',
    source: 'email',
    daysAgo: 17,
    subject: 'Installation fails: port in use and permission denied',
    messages: [
      'The installer fails with permission denied unless we run it as administrator, and then the server says the port is already in use.',
      'We cannot finish the installation on our staging machine.',
    ],
  },
  {
    id: 'intercom-10790',
    source: 'intercom',
    daysAgo: 9,
    messages: [
      'Hi, installing the CLI on a fresh Mac gives "permission denied" from the installer. What folder should it install to?',
    ],
  },
  {
    id: 'docs-feedback-402',
    source: 'docs-feedback',
    daysAgo: 3,
    messages: [
      'The install command in the quickstart fails with an EACCES permission error. The page should say how to install without sudo.',
    ],
    attributes: { page: 'getting-started/quickstart' },
  },

  // SSO login loops.
  {
    id: 'intercom-10301',
    source: 'intercom',
    daysAgo: 84,
    subject: 'SSO login loop',
    messages: [
      'Our team cannot log in with SSO: after Okta the login page sends us back to Okta in a loop.',
      { agent: 'Is the SAML certificate up to date?' },
      'Yes, we checked the SAML certificate. Nobody can log in since this morning, it is urgent.',
    ],
    attributes: { plan: 'enterprise', customer: 'Globex' },
  },
  {
    id: 'slack-C04-1755',
    source: 'slack',
    daysAgo: 70,
    messages: [
      'SAML SSO login fails with "invalid signature" after we rotated the certificate of our identity provider.',
    ],
  },
  {
    id: 'email-2024-0327',
    source: 'email',
    daysAgo: 58,
    subject: 'Single sign-on broken for new users',
    messages: [
      'New users get a SAML error after signing in with our identity provider, the SSO login never completes for them.',
    ],
  },
  {
    id: 'intercom-10601',
    source: 'intercom',
    daysAgo: 32,
    subject: 'Login redirect loop with Azure AD',
    messages: [
      'The SSO login redirects forever between Azure AD and the login page.',
      'We still cannot log in after clearing cookies, the loop happens every time.',
    ],
  },
  {
    id: 'docs-feedback-377',
    source: 'docs-feedback',
    daysAgo: 20,
    messages: [
      'The SAML SSO setup page does not say which certificate format the identity provider needs, our login fails with a signature error.',
    ],
    attributes: { page: 'security/sso' },
  },
  {
    id: 'slack-C04-1960',
    source: 'slack',
    daysAgo: 6,
    messages: ['SSO login stopped working for our whole company, the SAML response is rejected. Is there an outage?'],
  },

  // API rate limits.
  {
    id: 'email-2024-0319',
    source: 'email',
    daysAgo: 77,
    subject: 'API rate limit too low',
    messages: [
      'Our nightly import gets 429 too many requests from the API after a few hundred calls. What is the API rate limit?',
    ],
  },
  {
    id: 'intercom-10455',
    source: 'intercom',
    daysAgo: 63,
    messages: [
      'The REST API returns 429 rate limit errors when we list spaces.',
      { agent: 'Do you retry after the Retry-After delay?' },
      'We do, and we still hit the rate limit again and again.',
    ],
  },
  {
    id: 'docs-feedback-352',
    source: 'docs-feedback',
    daysAgo: 46,
    messages: [
      'The API reference does not document the rate limit or the 429 responses, please add the limits per endpoint.',
    ],
    attributes: { page: 'api-reference/overview' },
  },
  {
    id: 'slack-C04-1849',
    source: 'slack',
    daysAgo: 30,
    messages: ['Our integration breaks on API rate limiting, every sync ends with 429 responses.'],
  },
  {
    id: 'email-2024-0514',
    source: 'email',
    daysAgo: 12,
    subject: 'Throttled by the API',
    messages: [
      'API requests are throttled with 429 even at two requests per second. Could you raise our API rate limit?',
    ],
  },
  {
    id: 'intercom-10802',
    source: 'intercom',
    daysAgo: 2,
    messages: ['Getting 429 rate limit responses from the API since this morning, our deploy pipeline is blocked.'],
  },

  // Search.
  {
    id: 'docs-feedback-298',
    source: 'docs-feedback',
    daysAgo: 86,
    messages: ['Search returns no results for "webhook" although there is a whole page about webhooks.'],
    attributes: { page: 'api-reference/webhooks' },
  },
  {
    id: 'intercom-10360',
    source: 'intercom',
    daysAgo: 67,
    subject: 'Search does not find our pages',
    messages: ['The search in our published docs finds nothing for words that are in the page titles.'],
  },
  {
    id: 'slack-C04-1801',
    source: 'slack',
    daysAgo: 49,
    messages: ['Our readers say search finds no results for recently published pages. Is the search index updated?'],
  },
  {
    id: 'email-2024-0419',
    source: 'email',
    daysAgo: 35,
    subject: 'Search results empty',
    messages: ['Search results are empty for most words of our documentation, search worked last week.'],
  },
  {
    id: 'docs-feedback-389',
    source: 'docs-feedback',
    daysAgo: 14,
    messages: ['Searching for the exact page title gives zero results in the docs search.'],
    attributes: { page: 'getting-started/configuration' },
  },

  // Webhook signatures.
  {
    id: 'email-2024-0402',
    source: 'email',
    daysAgo: 56,
    subject: 'Webhook signature verification fails',
    messages: [
      'Webhook signature verification fails for every event we receive. We compute the HMAC of the raw body as documented.',
    ],
  },
  {
    id: 'intercom-10577',
    source: 'intercom',
    daysAgo: 41,
    messages: [
      'Our webhook endpoint rejects your events because the signature does not match.',
      { agent: 'Which secret do you use to verify the signature?' },
      'The webhook secret from the settings page, and the signature still does not match.',
    ],
  },
  {
    id: 'docs-feedback-366',
    source: 'docs-feedback',
    daysAgo: 23,
    messages: [
      'The webhooks page should show how to verify the webhook signature, the HMAC example does not match what we receive.',
    ],
    attributes: { page: 'api-reference/webhooks' },
  },
  {
    id: 'slack-C04-1921',
    source: 'slack',
    daysAgo: 11,
    messages: [
      'Webhook signatures fail to verify since the header changed. Which header holds the webhook signature now?',
    ],
  },

  // Double charges (muted: billing is no documentation topic).
  {
    id: 'email-2024-0305',
    source: 'email',
    daysAgo: 79,
    subject: 'Charged twice',
    messages: ['We were charged twice for the same monthly invoice. Please refund the duplicate charge.'],
  },
  {
    id: 'intercom-10422',
    source: 'intercom',
    daysAgo: 51,
    messages: ['Our credit card was charged twice this month for the subscription, the invoice shows a double charge.'],
  },
  {
    id: 'email-2024-0508',
    source: 'email',
    daysAgo: 15,
    subject: 'Duplicate charge on the invoice',
    messages: [
      'The invoice lists our seats twice and our card was charged twice. Who can refund the duplicate charge?',
    ],
  },

  // Two problems in one conversation.
  {
    id: 'intercom-10466',
    source: 'intercom',
    daysAgo: 44,
    subject: 'Two things',
    messages: [
      'Hi! The CLI installer fails with permission denied on our new laptops.',
      'Also, the search on our docs site returns no results for pages we published yesterday. Thanks!',
    ],
  },
  {
    id: 'email-2024-0425',
    source: 'email',
    daysAgo: 28,
    subject: 'SSO and rate limits',
    messages: [
      'Our SSO login loops between the identity provider and the login page for half of the team.',
      'Separately, the API sync we run at night gets 429 rate limit errors after a few minutes.',
    ],
  },

  // One-off questions and small talk.
  {
    id: 'intercom-10333',
    source: 'intercom',
    daysAgo: 72,
    messages: ['Is there a dark mode for the editor? My eyes would thank you.'],
  },
  {
    id: 'docs-feedback-340',
    source: 'docs-feedback',
    daysAgo: 42,
    messages: ['Typo on the French welcome page: "bienvenu" should be "bienvenue".'],
    attributes: { page: 'guide-de-demarrage' },
  },
  {
    id: 'slack-C04-1877',
    source: 'slack',
    daysAgo: 27,
    messages: [
      'How do I embed a YouTube video in a page?',
      { agent: 'Paste the link on an empty line: it becomes an embed.' },
      'Thanks, that worked!',
    ],
  },
  {
    id: 'intercom-10711',
    source: 'intercom',
    daysAgo: 19,
    messages: ['Our logo looks blurry on retina screens in the site header.'],
  },
  {
    id: 'email-2024-0521',
    source: 'email',
    daysAgo: 8,
    subject: 'Export',
    messages: [
      'The PDF export of our guide drops all the images and diagrams, and we lost the custom cover we had set.',
    ],
  },
  {
    id: 'intercom-10815',
    source: 'intercom',
    daysAgo: 1,
    messages: ['Hello!', { agent: 'Hi! How can we help?' }, 'Never mind, I found the answer in the docs. Thanks!'],
  },
];

const DAY = 24 * 60 * 60 * 1000;

/** The id of the demo cluster of installer errors, which a demo change request names. */
export const DEMO_CLUSTER_ID = 'cluster-install-errors';

/** A conversation of the installer-errors cluster and one of the double-charges cluster. */
const INSTALL_CONVERSATION = 'intercom-10234';
const BILLING_CONVERSATION = 'email-2024-0305';

function inputOf(conversation: DemoConversation, now: number): ConversationInput {
  const createdAt = new Date(now - conversation.daysAgo * DAY).toISOString();
  return {
    id: conversation.id,
    ...(conversation.subject ? { subject: conversation.subject } : {}),
    source: conversation.source,
    metadata: {
      url:
        conversation.source === 'intercom'
          ? `https://app.intercom.example/a/inbox/acme/conversation/${conversation.id.split('-')[1]}`
          : conversation.source === 'slack'
            ? `https://acme.slack.example/archives/${conversation.id.replace(/^slack-/, '').replace('-', '/p')}`
            : conversation.source === 'docs-feedback'
              ? `https://acme-docs.example/${conversation.attributes?.page ?? ''}`
              : undefined,
      attributes: conversation.attributes ?? {},
      createdAt,
    },
    parts: conversation.messages.map((message) =>
      typeof message === 'string'
        ? { type: 'message' as const, role: 'user', body: message }
        : { type: 'message' as const, role: 'assistant', body: message.agent },
    ),
  };
}

/**
 * Seeds the demo conversations of an organization, week by week (each week's conversations
 * ingested at the end of that week, or now for the current one), names the installer-errors
 * cluster `DEMO_CLUSTER_ID` and mutes the double-charges cluster.
 */
export function seedDemoConversations(db: Db, orgId: string, now = Date.now()): void {
  const byWeek = Map.groupBy(CONVERSATIONS, (conversation) => Math.floor(conversation.daysAgo / 7));
  for (const week of [...byWeek.keys()].sort((a, b) => b - a)) {
    const at = new Date(now - Math.max(0, week * 7 - 1) * DAY).toISOString();
    ingestConversations(
      db,
      orgId,
      byWeek.get(week)!.map((conversation) => inputOf(conversation, now)),
      at,
    );
  }
  renameCluster(db, orgId, clusterOfConversation(db, orgId, INSTALL_CONVERSATION)!, DEMO_CLUSTER_ID);
  setClusterMuted(db, requireCluster(db, orgId, clusterOfConversation(db, orgId, BILLING_CONVERSATION)!), true);
}
