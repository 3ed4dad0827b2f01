/**
 * The "API reference" demo space: the reference of Acme Docs' REST API for developers
 * (authentication, conventions, errors, rate limits, the endpoints, SDKs).
 */
import { csv, rateLimitPng, requestLifecycleSvg } from './images.js';
import type { DemoSpaceContent } from './types.js';

/** The API's error codes: the table of the "Error codes" page and the CSV file it offers. */
const ERROR_CODES: ReadonlyArray<readonly [code: string, status: number, retry: 'yes' | 'no', meaning: string]> = [
  ['invalid_request', 400, 'no', 'A parameter is missing or malformed; `message` names it'],
  ['unauthorized', 401, 'no', 'No token, or the token is expired or revoked'],
  ['forbidden', 403, 'no', 'The token is valid but lacks the scope or the role'],
  ['not_found', 404, 'no', 'The resource does not exist, or you cannot see it'],
  ['conflict', 409, 'no', 'The resource changed since you read it (stale `revision`)'],
  ['payload_too_large', 413, 'no', 'The body is over 10 MB, or the file over 100 MB'],
  ['rate_limited', 429, 'yes', 'Too many requests; wait for `Retry-After` seconds'],
  ['internal_error', 500, 'yes', 'Something failed on our side; retry with backoff'],
  ['unavailable', 503, 'yes', 'Maintenance or overload; retry with backoff'],
];

const errorTable = [
  '| Code | Status | Retry? | Meaning |',
  '| --- | ---: | :---: | --- |',
  ...ERROR_CODES.map(([code, status, retry, meaning]) => `| \`${code}\` | ${status} | ${retry} | ${meaning} |`),
].join('\n');

export const API_REFERENCE: DemoSpaceContent = {
  space: 'API reference',
  revisionDaysAgo: [120, 35, 2],
  variables: {
    product: 'Acme Docs',
    apiVersion: '2024-06-01',
    baseUrl: 'https://api.acme.test/v2',
    sdkVersion: '4.1.0',
  },
  formerVariables: {
    product: 'Acme Docs',
    apiVersion: '2024-01-15',
    baseUrl: 'https://api.acme.test/v2',
    sdkVersion: '3.8.2',
  },
  files: [
    {
      id: 'file-api-request-lifecycle',
      name: 'request-lifecycle.svg',
      contentType: 'image/svg+xml',
      bytes: () => Buffer.from(requestLifecycleSvg(), 'utf8'),
    },
    { id: 'file-api-rate-limit-window', name: 'rate-limit-window.png', contentType: 'image/png', bytes: rateLimitPng },
    {
      id: 'file-api-error-codes',
      name: 'error-codes.csv',
      contentType: 'text/csv',
      bytes: () =>
        csv([
          ['code', 'status', 'retry', 'meaning'],
          ...ERROR_CODES.map(([code, status, retry, meaning]) => [code, status, retry, meaning.replace(/`/g, '')]),
        ]),
    },
  ],
  reusableContents: [
    {
      id: 'rc-api-secret-handling',
      title: 'Keep secrets secret',
      markdown: `{% hint style="warning" %}
**Treat tokens and signing secrets like passwords.** Keep them in a secret manager or in environment variables, never in source code, and never in a browser app. If one leaks, revoke it at once in **Settings → Developer** and create a new one: revocation takes effect within a minute.
{% endhint %}
`,
    },
  ],
  pages: [
    {
      id: 'pg-api-overview',
      title: 'Overview',
      slug: 'overview',
      emoji: '📘',
      description: 'Base URL, versions and formats of the Acme Docs REST API.',
      markdown: `The Acme Docs REST API gives programs access to everything the web app can do: read and write spaces and pages, upload files, search, and receive webhooks when content changes. 💡 The web app and the \`acme\` CLI use this same API.

## Base URL

All endpoints live under one base URL, over HTTPS only:

\`\`\`http
GET https://api.acme.test/v2/spaces/sp_8f2k1 HTTP/1.1
Authorization: Bearer acme_pat_...
Acme-Version: 2024-06-01
\`\`\`

Requests and responses are JSON (\`Content-Type: application/json\`), timestamps are ISO 8601 in UTC, and IDs are opaque strings: do not parse them.

<figure><img src=".gitbook/assets/request-lifecycle.svg" alt="A request goes from your app through the edge (TLS, authentication, rate limits) to the API service, which reads the content store and the search index."><figcaption><p>The lifecycle of a request</p></figcaption></figure>

## Versions

The URL carries the major version (\`v2\`). Within it, the optional \`Acme-Version\` header pins a dated version, so that changes in how fields are shaped never surprise you. Without the header, you get the version that was current when your token was created.

## Resources

| Resource | Endpoints | Reference |
| --- | --- | --- |
| Spaces | \`/spaces\`, \`/orgs/{orgId}/spaces\` | [Spaces](endpoints/spaces.md) |
| Pages | \`/spaces/{spaceId}/content/...\` | [Pages](endpoints/pages.md) |
| Files | \`/spaces/{spaceId}/files\` | [Files](endpoints/files.md) |

## Next steps

1. [Create a token](authentication.md) and make your first call.
2. Read the [conventions](conventions/README.md) every endpoint follows.
3. New to Acme Docs itself? Start with the [Quickstart]({{space:Getting started}}/pages/pg-gs-quickstart).
`,
    },
    {
      id: 'pg-api-authentication',
      title: 'Authentication',
      slug: 'authentication',
      emoji: '🔑',
      description: 'Personal access tokens, OAuth apps and scopes.',
      markdown: `Every request needs a token in the \`Authorization\` header. Requests without one get \`401 unauthorized\`; there is no anonymous access, even to public spaces.

## Personal access tokens

Create a token in **Settings → Developer → Tokens**. A token acts as you: it can do what your account can do, limited by its scopes. Tokens start with \`acme_pat_\` and are shown only once.

{% tabs %}
{% tab title="curl" %}
\`\`\`bash
curl https://api.acme.test/v2/user \\
  -H "Authorization: Bearer $ACME_TOKEN"
\`\`\`
{% endtab %}

{% tab title="JavaScript" %}
\`\`\`javascript
const response = await fetch('https://api.acme.test/v2/user', {
  headers: { Authorization: \`Bearer \${process.env.ACME_TOKEN}\` },
});
const user = await response.json();
\`\`\`
{% endtab %}

{% tab title="Python" %}
\`\`\`python
import os, requests

user = requests.get(
    "https://api.acme.test/v2/user",
    headers={"Authorization": f"Bearer {os.environ['ACME_TOKEN']}"},
).json()
\`\`\`
{% endtab %}
{% endtabs %}

The CLI reads the same variable: see \`ACME_TOKEN\` in the [configuration reference]({{space:Getting started}}/pages/pg-gs-configuration).

## OAuth apps

Apps that act for other users register at \`https://app.acme.test/developer/apps\` and use the authorization code flow with PKCE. Access tokens (\`acme_oat_\`) last one hour; refresh them with the refresh token.

### Scopes

| Scope | Grants |
| --- | --- |
| \`content:read\` | Read spaces, pages and files |
| \`content:write\` | Create change requests, edit and upload |
| \`search\` | Use the search endpoints |
| \`webhooks\` | Manage webhook subscriptions |

{% include "{{reusable:rc-api-secret-handling}}" %}
`,
    },
    {
      id: 'pg-api-conventions',
      title: 'Conventions',
      slug: 'conventions',
      emoji: '📐',
      description: 'What every endpoint has in common.',
      markdown: `Every endpoint of the API follows the same conventions, so once you know them you can guess most of the reference.

## Requests

* Send JSON bodies with \`Content-Type: application/json\`. Unknown fields are rejected with \`400 invalid_request\`, so typos do not pass silently.
* Use \`PATCH\` to change some fields of a resource: fields you leave out keep their value, and \`null\` clears a field.
* For \`POST\` requests that create something, send an \`Idempotency-Key\` header (any unique string). If the network fails and you retry with the same key within 24 hours, you get the first response instead of a duplicate.

## Responses

* A single resource is returned as an object with an \`object\` field naming its type (\`"space"\`, \`"page"\`…).
* Lists are objects too, with \`items\` and, when there is more, \`next\`. See [Pagination](pagination.md).
* Every response carries an \`X-Request-Id\` header. Include it when you contact support.

\`\`\`json
{
  "object": "space",
  "id": "sp_8f2k1",
  "title": "Product guide",
  "visibility": "public",
  "createdAt": "2024-03-02T09:41:00Z"
}
\`\`\`

## When things go wrong

Errors have one shape for the whole API, with a stable machine-readable \`code\`: read [Errors](errors/README.md) before you write retry logic.
`,
      pages: [
        {
          id: 'pg-api-pagination',
          title: 'Pagination',
          slug: 'pagination',
          emoji: '📄',
          markdown: `Endpoints that return lists are paginated with opaque cursors. Cursors stay valid while items are added or removed, so you never see an item twice or skip one, unlike with page numbers.

## Cursors

Pass \`limit\` (1 to 100, default 20) on the first request. If there are more items, the response has a \`next\` object; pass its \`cursor\` to get the next page, with the same other parameters.

\`\`\`json
{
  "object": "list",
  "items": [{ "object": "page", "id": "pg_3kd9" }],
  "next": { "cursor": "c2s6MTcwOTM2ODAwMA" }
}
\`\`\`

When \`next\` is absent, you have reached the end.

## Iterate over every item

\`\`\`javascript
let cursor;
do {
  const url = new URL('https://api.acme.test/v2/orgs/acme/spaces');
  url.searchParams.set('limit', '100');
  if (cursor) url.searchParams.set('cursor', cursor);
  const page = await (await fetch(url, { headers })).json();
  for (const space of page.items) console.log(space.title);
  cursor = page.next?.cursor;
} while (cursor);
\`\`\`

{% hint style="info" %}
A cursor expires after 24 hours. Using an expired or modified cursor returns \`400 invalid_request\`, described in the [error format](errors/README.md#error-format).
{% endhint %}
`,
        },
        {
          id: 'pg-api-errors',
          title: 'Errors',
          slug: 'errors',
          emoji: '🚨',
          markdown: `The API uses HTTP status codes to say whether a request worked, and a JSON body to say why it did not.

## Status codes

* \`2xx\`: it worked. \`201\` when something was created, \`204\` when there is no body.
* \`4xx\`: the request cannot succeed as sent. Fix it before retrying.
* \`5xx\`: something failed on our side. Retrying later usually works.

## Error format

\`\`\`json
{
  "error": {
    "code": "not_found",
    "message": "No page with ID pg_3kd9 in space sp_8f2k1",
    "status": 404,
    "requestId": "req_01HV6Z3W8Q"
  }
}
\`\`\`

Branch on \`code\`, which never changes, not on \`message\`, which is written for people and may be reworded. The [Error codes](error-codes.md) page lists every code.

<details>
<summary>Retrying safely</summary>

Retry only errors marked as retryable, with exponential backoff and jitter: wait 1 s, then 2 s, then 4 s, each plus a random fraction, and give up after five attempts. Retrying a \`POST\` is safe if you send the same \`Idempotency-Key\`.

</details>

{% hint style="warning" %}
\`404 not_found\` is also returned for resources that exist but that your token may not see, so that IDs cannot be probed. Check the token's scopes before assuming a resource is gone.
{% endhint %}
`,
          pages: [
            {
              id: 'pg-api-error-codes',
              title: 'Error codes',
              slug: 'error-codes',
              emoji: '🔢',
              markdown: `Every error response has one of these codes in \`error.code\`. New codes may be added, so treat an unknown code like its HTTP status.

${errorTable}

The same list as a CSV file, to import into a monitoring tool or a test suite:

{% file src="../../.gitbook/assets/error-codes.csv" %}
All error codes with their HTTP status and whether to retry (CSV)
{% endfile %}

## Reading \`invalid_request\`

For \`invalid_request\`, the error also has a \`param\` field naming the offending parameter, as a JSON pointer for body fields (\`/document/nodes/0\`) or a plain name for query parameters (\`limit\`).

See [Errors](README.md) for the format of error responses and how to retry.
`,
            },
          ],
        },
        {
          id: 'pg-api-rate-limits',
          title: 'Rate limits',
          slug: 'rate-limits',
          emoji: '⏱️',
          since: 2,
          markdown: `Rate limits keep the API fast for everyone. They apply per token, over a sliding window of one minute.

| Endpoints | Limit |
| --- | --- |
| Reads (\`GET\`) | 600 requests per minute |
| Writes (\`POST\`, \`PUT\`, \`PATCH\`, \`DELETE\`) | 120 requests per minute |
| Search | 60 requests per minute |
| File uploads | 20 per minute, 2 GB per hour |

![Requests per second over one minute: the bars over the dashed limit line are rejected](../.gitbook/assets/rate-limit-window.png "A burst over the limit: the dark part of each bar gets 429")

## Headers

Every response says where you stand:

* \`X-RateLimit-Limit\`: the limit of the window
* \`X-RateLimit-Remaining\`: requests left in the window
* \`X-RateLimit-Reset\`: seconds until a full window is available again

Over the limit, you get \`429 rate_limited\` with a \`Retry-After\` header, in seconds.

{% code title="retry.js" %}
\`\`\`javascript
async function call(url, init, attempts = 5) {
  const response = await fetch(url, init);
  if (response.status !== 429 || attempts === 1) return response;
  const wait = Number(response.headers.get('Retry-After') ?? 1);
  await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  return call(url, init, attempts - 1);
}
\`\`\`
{% endcode %}

Enterprise plans can raise the limits of a token: ask your account manager. For retrying other errors, see [Errors](errors/README.md).
`,
        },
      ],
    },
    {
      id: 'pg-api-endpoints',
      title: 'Endpoints',
      slug: 'endpoints',
      kind: 'group',
      pages: [
        {
          id: 'pg-api-spaces',
          title: 'Spaces',
          slug: 'spaces',
          emoji: '🗂️',
          markdown: `A space is a body of documentation with its own page tree, history and permissions.

## List the spaces of an organization

\`GET /orgs/{orgId}/spaces\`

| Parameter | In | Description |
| --- | --- | --- |
| \`orgId\` | path | The organization's ID |
| \`limit\`, \`cursor\` | query | See [Pagination](../conventions/pagination.md) |
| \`visibility\` | query | Only spaces with this visibility: \`public\`, \`unlisted\`, \`private\` |

## Get a space

\`GET /spaces/{spaceId}\`

\`\`\`bash
curl https://api.acme.test/v2/spaces/sp_8f2k1 -H "Authorization: Bearer $ACME_TOKEN"
\`\`\`

The response includes \`title\`, \`visibility\`, \`revision\` (the ID of the current revision) and \`urls.published\` when the space is published.

## Update a space

\`PATCH /spaces/{spaceId}\` with any of \`title\`, \`emoji\` and \`visibility\`. Needs the \`content:write\` scope and the **Admin** role on the space.

\`\`\`json
{ "title": "Product guide", "visibility": "unlisted" }
\`\`\`

{% hint style="danger" %}
Changing \`visibility\` from \`public\` to \`private\` takes the published site offline immediately, and search engines drop it within days.
{% endhint %}
`,
        },
        {
          id: 'pg-api-pages',
          title: 'Pages',
          slug: 'pages',
          emoji: '📝',
          markdown: `Pages are read from a revision of a space: the current one by default, or any past revision by ID. Editing goes through change requests.

## List pages

\`GET /spaces/{spaceId}/content/pages\` returns the page tree: each page with \`id\`, \`title\`, \`slug\`, \`path\` and its children in \`pages\`. The tree is returned whole and is **not** paginated; for spaces over 1,000 pages, prefer walking it with the [cursors](../conventions/pagination.md#cursors) of \`/content/pages/flat\`.

## Get a page

* \`GET /spaces/{spaceId}/content/page/{pageId}\`: by ID, stable across renames
* \`GET /spaces/{spaceId}/content/path/{path}\`: by path, e.g. \`guides/publish\`

Add \`?format=markdown\` to get the body as Markdown instead of the JSON document.

## Update a page

\`\`\`bash
curl -X PUT \\
  https://api.acme.test/v2/spaces/sp_8f2k1/change-requests/cr_12/content/page/pg_3kd9 \\
  -H "Authorization: Bearer $ACME_TOKEN" \\
  -H "Content-Type: text/markdown" \\
  --data-binary @publish.md
\`\`\`

The page is replaced in the change request \`cr_12\`; merge the change request to publish it. Sending a \`revision\` query parameter makes the call fail with \`409 conflict\` if someone else changed the page since that revision.
`,
        },
        {
          id: 'pg-api-files',
          title: 'Files',
          slug: 'files',
          emoji: '📎',
          markdown: `Files are the images and attachments of a space. Each file has an \`id\`, a \`name\`, a \`contentType\`, a \`size\` and a \`downloadURL\` that is signed and valid for one hour.

## Upload a file

Uploads go straight to storage, in three steps, so that large files never pass through the API servers:

1. Ask for an upload URL: \`POST /spaces/{spaceId}/files\` with \`name\`, \`contentType\` and \`size\`.
2. \`PUT\` the bytes to the returned \`uploadURL\` within 15 minutes.
3. Confirm: \`POST /spaces/{spaceId}/files/{fileId}/complete\`. The file is then ready to use in pages.

\`\`\`json
{
  "object": "file",
  "id": "fl_92jx",
  "uploadURL": "https://uploads.acme.test/fl_92jx?signature=...",
  "expiresAt": "2024-06-03T10:15:00Z"
}
\`\`\`

## Limits

Files can be up to 100 MB. Images over 25 megapixels are accepted but not resized for the published site, so keep screenshots reasonable.

## Delete a file

\`DELETE /spaces/{spaceId}/files/{fileId}\` removes the file from the current revision only: past revisions keep it, so restoring an old revision brings it back.
`,
        },
        {
          id: 'pg-api-search',
          title: 'Search',
          slug: 'search',
          emoji: '🔍',
          since: 2,
          markdown: `Search finds pages by their content across the spaces your token can read, with the same ranking as the search box of the web app.

## Search an organization

\`GET /orgs/{orgId}/search?query=...\`

| Parameter | Description |
| --- | --- |
| \`query\` | Words to find. Put a phrase in double quotes to match it exactly |
| \`spaceId\` | Only this space (repeat the parameter for several) |
| \`limit\`, \`cursor\` | See [Pagination](../conventions/pagination.md) |

\`\`\`bash
curl -G https://api.acme.test/v2/orgs/acme/search \\
  --data-urlencode 'query="custom domain" certificate' \\
  -H "Authorization: Bearer $ACME_TOKEN"
\`\`\`

## Results

Results are grouped by space, best first. Each hit names the page and the section (the heading) that matched, with an excerpt where the matched words are wrapped in \`<mark>\`.

\`\`\`json
{
  "items": [{
    "space": { "id": "sp_8f2k1", "title": "Getting started" },
    "pages": [{ "id": "pg_3kd9", "title": "Publish your site",
                "sections": [{ "title": "Use a custom domain", "excerpt": "…the <mark>certificate</mark>…" }] }]
  }]
}
\`\`\`

{% hint style="info" %}
Pages set to *Hide from search engines* are still found by this endpoint, since it only returns what your token may read anyway.
{% endhint %}
`,
        },
        {
          id: 'pg-api-webhooks',
          title: 'Webhooks',
          slug: 'webhooks',
          emoji: '🪝',
          since: 3,
          markdown: `Webhooks call your HTTPS endpoint when something happens in a space, so you can rebuild a site, notify a channel or sync another system without polling. Managing them needs the \`webhooks\` scope (see [Scopes](../authentication.md#scopes)).

## Events

| Event | Sent when |
| --- | --- |
| \`space.content.updated\` | A change request is merged |
| \`page.published\` | A page appears in the published site |
| \`change_request.opened\` | Someone opens a change request |
| \`comment.created\` | Someone comments on a page |

Deliveries are \`POST\` requests with a JSON body. Answer with any \`2xx\` within 10 seconds; otherwise the delivery is retried for 24 hours with backoff.

## Verify signatures

Each delivery has an \`Acme-Signature\` header: \`t=<timestamp>,v1=<hex HMAC-SHA256>\` of \`<timestamp>.<body>\` with your signing secret.

{% code title="verify.js" lineNumbers="true" %}
\`\`\`javascript
import { createHmac, timingSafeEqual } from 'node:crypto';

export function verify(header, body, secret) {
  const { t, v1 } = Object.fromEntries(header.split(',').map((part) => part.split('=')));
  if (Math.abs(Date.now() / 1000 - Number(t)) > 300) return false; // replayed?
  const expected = createHmac('sha256', secret).update(\`\${t}.\${body}\`).digest();
  return timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}
\`\`\`
{% endcode %}

{% include "{{reusable:rc-api-secret-handling}}" %}
`,
        },
      ],
    },
    {
      id: 'pg-api-sdks',
      title: 'SDKs and tools',
      formerTitle: 'Client libraries',
      slug: 'sdks',
      emoji: '🧰',
      description: 'Official SDKs for JavaScript, Python and Go, and the OpenAPI description.',
      markdown: `The official SDKs wrap authentication, pagination, retries and webhook verification, and are typed from the same OpenAPI description as this reference.

## Install an SDK

{% tabs %}
{% tab title="JavaScript" %}
\`\`\`bash
npm install @acme/docs-sdk
\`\`\`

\`\`\`javascript
import { AcmeDocs } from '@acme/docs-sdk';

const acme = new AcmeDocs({ token: process.env.ACME_TOKEN });
for await (const space of acme.spaces.list({ orgId: 'acme' })) console.log(space.title);
\`\`\`
{% endtab %}

{% tab title="Python" %}
\`\`\`bash
pip install acme-docs
\`\`\`
{% endtab %}

{% tab title="Go" %}
\`\`\`bash
go get acme.test/docs-sdk-go/v4
\`\`\`
{% endtab %}
{% endtabs %}

The OpenAPI description is at \`https://api.acme.test/v2/openapi.json\`, for generating a client in any other language. The \`acme\` CLI is described in the [Installation guide]({{space:Getting started}}/pages/pg-gs-installation).

## Before you go to production

- [x] Use a token with only the scopes you need ([Authentication](authentication.md))
- [x] Handle \`429\` with \`Retry-After\`
- [ ] Send an \`Idempotency-Key\` on every \`POST\`
- [ ] Log the \`X-Request-Id\` of failed calls
- [ ] Subscribe to the changelog at \`https://api.acme.test/changelog\`

*The SDKs follow semantic versioning: a new major version only comes with a new API version.*
`,
    },
    {
      id: 'pg-api-status',
      title: 'API status',
      kind: 'link',
      emoji: '🟢',
      href: 'https://status.acme.test/api',
    },
  ],
};
