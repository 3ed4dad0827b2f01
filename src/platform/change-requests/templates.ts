import { badRequest, newId, notFoundInBody, now } from '../http.js';
import { findSpec } from '../openapi/store.js';
import type { SpaceRow, UserRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { loadRevision, storeRevision, type ContentPage, type RevisionContent } from '../content/revisions.js';
import { applyContentChanges, editRequestContent, type ContentChange } from './edits.js';
import type { ChangeRequestRow } from './store.js';

/**
 * Built-in space templates: sets of pages (markdown, nested by `parent`) that a template adds to
 * the live content or to a change request, after the pages already there. Pages link to each
 * other by batch refs, so the links point at the pages the template creates. A template with an
 * `openAPI` part takes an OpenAPI specification in its params (`contentRefs` holding a
 * `{ kind: openapi, spec }` reference): its reference is then a computed page of that
 * specification.
 */

interface TemplatePage {
  ref: string;
  parent?: string;
  markdown: string;
}

export interface SpaceTemplate {
  id: string;
  title: string;
  subtitle: string;
  emoji: string;
  pages: TemplatePage[];
  /**
   * What the template does with an OpenAPI specification named in its params: its pages `replaces`
   * give way to a computed page titled `title` that generates the reference from the specification.
   */
  openAPI?: { title: string; replaces: string[] };
}

export const TEMPLATES: readonly SpaceTemplate[] = [
  {
    id: 'getting-started',
    title: 'Getting started guide',
    subtitle: 'An introduction, a quickstart and the first steps of a product.',
    emoji: '🚀',
    pages: [
      {
        ref: 'introduction',
        markdown: `---
description: What the product is, who it is for and where to go next.
---

# Introduction

Welcome! This guide takes you from nothing to a working setup.

{% hint style="info" %}
New here? Start with the [Quickstart](./quickstart.md).
{% endhint %}

## What you can do

* Set up your first project in minutes.
* Invite your team and work together.
* Connect the tools you already use.
`,
      },
      {
        ref: 'quickstart',
        markdown: `---
description: Your first project in five minutes.
---

# Quickstart

1. Create an account.
2. Create your first project.
3. Invite a teammate.

\`\`\`bash
curl -X POST https://api.example.com/projects -d '{"name": "My project"}'
\`\`\`

Next, read about the [core concepts](./concepts.md).
`,
      },
      {
        ref: 'concepts',
        markdown: `# Core concepts

## Projects

A project holds everything your team works on.

## Members

Members belong to an organization and get a role in each project.
`,
      },
      {
        ref: 'concepts-roles',
        parent: 'concepts',
        markdown: `# Roles

| Role | Can |
| --- | --- |
| Admin | Manage members and settings |
| Editor | Change content |
| Reader | Read content |
`,
      },
    ],
  },
  {
    id: 'api-reference',
    title: 'API reference',
    subtitle: 'The skeleton of an HTTP API reference: authentication, errors and resources.',
    emoji: '📡',
    openAPI: { title: 'Endpoints', replaces: ['resources', 'resources-users'] },
    pages: [
      {
        ref: 'api-overview',
        markdown: `# API overview

The API is organized around REST: resources have predictable URLs, requests and answers are JSON.

Every request needs an [API token](./authentication.md).
`,
      },
      {
        ref: 'authentication',
        markdown: `# Authentication

Send your token in the \`Authorization\` header:

\`\`\`http
GET /v1/user HTTP/1.1
Authorization: Bearer <token>
\`\`\`

{% hint style="warning" %}
Keep tokens secret: never commit them to a repository.
{% endhint %}
`,
      },
      {
        ref: 'errors',
        markdown: `# Errors

| Status | Meaning |
| --- | --- |
| 400 | The request is invalid |
| 401 | The token is missing or invalid |
| 404 | The resource does not exist |
| 429 | Too many requests |
`,
      },
      { ref: 'resources', markdown: '# Resources\n\nOne page per resource of the API.\n' },
      {
        ref: 'resources-users',
        parent: 'resources',
        markdown: `# Users

## Get the current user

\`\`\`http
GET /v1/user
\`\`\`
`,
      },
    ],
  },
  {
    id: 'changelog',
    title: 'Changelog',
    subtitle: 'A page per release, newest first.',
    emoji: '📰',
    pages: [
      {
        ref: 'changelog',
        markdown: `---
description: What changed in each release.
---

# Changelog

Every release, newest first. Subscribe to get notified.
`,
      },
      {
        ref: 'changelog-1-1',
        parent: 'changelog',
        markdown: `# Version 1.1

## New

* Dark mode.

## Fixed

* Search finds pages by their description.
`,
      },
      {
        ref: 'changelog-1-0',
        parent: 'changelog',
        markdown: '# Version 1.0\n\nThe first release.\n',
      },
    ],
  },
];

/** A template by id, or a 400 naming `field`. */
export function requireTemplate(id: string, field: string): SpaceTemplate {
  const template = TEMPLATES.find((item) => item.id === id);
  if (!template)
    throw badRequest(
      `Invalid body field "${field}": no template ${id}; templates: ${TEMPLATES.map((item) => item.id).join(', ')}`,
    );
  return template;
}

/**
 * The slug of the OpenAPI specification a template's params name (`params.contentRefs.<name>`
 * of kind `openapi`), checked to be one of the organization; undefined when they name none.
 */
export function templateSpec(
  db: Db,
  orgId: string,
  params: Record<string, unknown> | undefined,
  field: string,
): string | undefined {
  const refs = params?.contentRefs;
  if (refs === undefined) return undefined;
  if (refs === null || typeof refs !== 'object' || Array.isArray(refs))
    throw badRequest(`Invalid body field "${field}.contentRefs": must map names to content references`);
  for (const [name, ref] of Object.entries(refs as Record<string, unknown>)) {
    if (ref === null || typeof ref !== 'object' || (ref as { kind?: unknown }).kind !== 'openapi') continue;
    const slug = (ref as { spec?: unknown }).spec;
    const at = `${field}.contentRefs.${name}.spec`;
    if (typeof slug !== 'string' || slug === '')
      throw badRequest(`Invalid body field "${at}": must be the slug of an OpenAPI specification`);
    if (!findSpec(db, orgId, slug)) throw notFoundInBody('OpenAPI specification', at, slug);
    return slug;
  }
  return undefined;
}

/** The pages a template adds: with a specification, those it replaces give way to the computed page. */
function templatePages(template: SpaceTemplate, spec: string | undefined): TemplatePage[] {
  const replaced = new Set(spec !== undefined ? (template.openAPI?.replaces ?? []) : []);
  return template.pages.filter((page) => !replaced.has(page.ref));
}

/** The content with the computed page of the specification added at the end, when the template takes one. */
function withComputedReference(
  template: SpaceTemplate,
  spec: string | undefined,
): (content: RevisionContent) => RevisionContent {
  return (content) => {
    if (spec === undefined || !template.openAPI) return content;
    const page: ContentPage = {
      id: newId(),
      type: 'computed',
      title: template.openAPI.title,
      computed: {
        type: 'builtin:openapi',
        props: { models: true },
        dependencies: { spec: { ref: { kind: 'openapi', spec } } },
      },
      pages: [],
    };
    return { ...content, pages: [...content.pages, page] };
  };
}

/**
 * The batch of changes that adds a template's pages. Refs get a `~` no page path has, so they
 * never collide with the pages already there, and links between template pages follow.
 */
function templateChanges(template: SpaceTemplate, spec?: string): ContentChange[] {
  const pages = templatePages(template, spec);
  const refs = new Set(pages.map((page) => page.ref));
  const relink = (markdown: string) =>
    markdown.replace(/\]\(\.\/([a-z0-9-]+)\.md\)/g, (link, ref: string) => (refs.has(ref) ? `](./~${ref}.md)` : link));
  return pages.map((page) => ({
    operation: 'insert_page' as const,
    ref: `~${page.ref}`,
    ...(page.parent ? { into: `~${page.parent}` } : {}),
    document: { markdown: relink(page.markdown) },
  }));
}

/** The content with the template's pages added (documents stored). */
function withTemplate(
  db: Db,
  space: SpaceRow,
  content: RevisionContent,
  base: string,
  template: SpaceTemplate,
  at: string,
  spec?: string,
): RevisionContent {
  const added = applyContentChanges(templateChanges(template, spec), {
    db,
    spaceId: space.id,
    content,
    baseRevision: base,
    revisionContent: (id) => loadRevision(db, space.id, id)?.content,
    files: new Map(),
    at,
  }).content;
  return withComputedReference(template, spec)(added);
}

/**
 * Adds a template's pages to a change request as a new revision of it (call inside a
 * transaction). `spec`: the slug of an OpenAPI specification for the template's reference.
 */
export function applyTemplateToRequest(
  db: Db,
  request: ChangeRequestRow,
  user: UserRow,
  template: SpaceTemplate,
  spec?: string,
): ChangeRequestRow {
  return editRequestContent(
    db,
    request,
    user.id,
    templateChanges(template, spec),
    new Map(),
    withComputedReference(template, spec),
  ).changeRequest;
}

/** Adds a template's pages to the live content: a new revision that becomes current. Returns its id. */
export function templateRevision(db: Db, space: SpaceRow, template: SpaceTemplate, spec?: string): string {
  const current = loadRevision(db, space.id, space.revision);
  if (!current) throw new Error(`Revision ${space.revision} of space ${space.id} is missing`);
  const at = now();
  return storeRevision(db, {
    spaceId: space.id,
    type: 'edits',
    parents: [space.revision],
    content: withTemplate(db, space, current.content, space.revision, template, at, spec),
    createdAt: at,
  });
}
