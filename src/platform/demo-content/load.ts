/**
 * Reads the demo data set from the files beside this module: `demo.json` (users, organizations,
 * members, teams, collections, spaces, grants) and, under `spaces/<folder>/`, each documented
 * space laid out as Git Sync lays out a repository: `space.json` (page tree, files, reusable
 * contents, variables, revisions), a page's markdown at `<path>.md` or `<path>/README.md`, files
 * in `.gitbook/assets/`, reusable contents in `.gitbook/includes/<id>.md`. Everything is checked
 * with zod as it is read, so a mistake in the data names its file and field.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { pageFile } from '../content/page-markdown.js';
import { pageIndex } from '../content/pages.js';
import type { ContentPage } from '../content/revisions.js';
import { INTEGRATION_TARGETS, INTEGRATION_VISIBILITIES, SITE_TYPES, SITE_VISIBILITIES } from '../contract/enums.js';

/** The folder of the data: beside this module, in `src/` as in `dist/` (the build copies it). */
const DATA = new URL('./', import.meta.url);

const daysAgo = z.number().nonnegative();
const role = z.enum(['admin', 'create', 'edit', 'review', 'comment', 'read']);
const level = z.enum(['inherit', 'admin', 'create', 'edit', 'review', 'comment', 'read']);

const UserSchema = z.strictObject({
  email: z.string(),
  name: z.string(),
  photo: z.boolean().optional(),
  sinceDaysAgo: daysAgo,
});

const SpaceSchema = z.strictObject({
  title: z.string(),
  org: z.string(),
  /** Collection id. */
  parent: z.string().optional(),
  emoji: z.string().optional(),
  visibility: z.enum(['public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private']),
  locked: z.boolean().optional(),
  language: z.enum(['en', 'fr', 'de']).optional(),
  defaultLevel: level.optional(),
  /** `none`, or reviewers (user keys) every change request needs. */
  mergeRules: z.union([z.literal('none'), z.strictObject({ reviewers: z.array(z.string()).min(1) })]).optional(),
  gitSync: z
    .strictObject({ repoName: z.string(), installationProvider: z.string(), integration: z.string(), url: z.string() })
    .optional(),
  visitorAuth: z.boolean().optional(),
  deletedDaysAgo: daysAgo.optional(),
  createdDaysAgo: daysAgo,
  updatedDaysAgo: daysAgo,
});

const DemoSchema = z.strictObject({
  /** By key: a user's id is derived from it. In seeding order, the first the admin of every organization. */
  users: z.record(z.string(), UserSchema),
  organizations: z.array(
    z.strictObject({
      id: z.string(),
      title: z.string(),
      createdDaysAgo: daysAgo,
      emailDomains: z.array(z.string()),
      hostname: z.string(),
      useCase: z.string(),
      defaultRole: role.nullable(),
      plan: z.string(),
      createdBy: z.string(),
    }),
  ),
  members: z.array(
    z.strictObject({
      org: z.string(),
      user: z.string(),
      /** null: a guest. */
      role: role.nullable(),
      joinedDaysAgo: daysAgo,
      lastSeenDaysAgo: daysAgo.nullable(),
      sso: z.boolean().optional(),
    }),
  ),
  teams: z.array(
    z.strictObject({
      id: z.string(),
      org: z.string(),
      title: z.string(),
      createdDaysAgo: daysAgo,
      owner: z.string(),
      members: z.array(z.string()),
    }),
  ),
  /** Parents before their children. */
  collections: z.array(
    z.strictObject({
      id: z.string(),
      org: z.string(),
      parent: z.string().optional(),
      title: z.string(),
      description: z.string().nullable(),
      defaultLevel: level,
      createdDaysAgo: daysAgo,
      updatedDaysAgo: daysAgo,
    }),
  ),
  spaces: z.array(SpaceSchema),
  /** On a collection (id) or a space (title), to a user (key) or a team (id). */
  grants: z.array(
    z.strictObject({
      collection: z.string().optional(),
      space: z.string().optional(),
      user: z.string().optional(),
      team: z.string().optional(),
      role,
      createdDaysAgo: daysAgo,
    }),
  ),
  linkInvites: z.array(z.strictObject({ org: z.string(), role, createdDaysAgo: daysAgo })),
  agentInstructions: z.array(
    z.strictObject({
      org: z.string(),
      updatedDaysAgo: daysAgo,
      updatedBy: z.string(),
      /** A JSON document: kept as the platform stores it (markdown would give other keys). */
      document: z.record(z.string(), z.unknown()),
    }),
  ),
  /** The folders under `spaces/` with content, in seeding order (ids are made in that order). */
  content: z.array(z.string()),
});

/** The demo data set's structure, as `demo.json` holds it. */
export type DemoData = z.infer<typeof DemoSchema>;
/** One space of `demo.json`. */
export type DemoSpace = z.infer<typeof SpaceSchema>;

interface ManifestPage {
  id: string;
  title: string;
  slug?: string | undefined;
  kind?: 'group' | 'link' | undefined;
  href?: string | undefined;
  description?: string | undefined;
  emoji?: string | undefined;
  hidden?: boolean | undefined;
  noIndex?: boolean | undefined;
  since?: 2 | 3 | undefined;
  formerTitle?: string | undefined;
  pages?: ManifestPage[] | undefined;
}

const PageSchema: z.ZodType<ManifestPage> = z.lazy(() =>
  z.strictObject({
    /** Stable across seeds: `pg-<space>-<name>`. */
    id: z.string().regex(/^[a-z0-9-]+$/),
    title: z.string(),
    /** Among siblings; derived from the title when left out. */
    slug: z.string().optional(),
    /** `group` (top level only), `link` (with `href`), or a document page (the default). */
    kind: z.enum(['group', 'link']).optional(),
    href: z.string().optional(),
    description: z.string().optional(),
    emoji: z.string().optional(),
    hidden: z.boolean().optional(),
    noIndex: z.boolean().optional(),
    /** The revision the page first appears in; absent: the first. */
    since: z.union([z.literal(2), z.literal(3)]).optional(),
    /** The page's title in revisions before the last, when it was renamed in the last. */
    formerTitle: z.string().optional(),
    pages: z.array(PageSchema).optional(),
  }),
);

const variables = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

const ManifestSchema = z.strictObject({
  /** Title of the demo space that holds it. */
  space: z.string(),
  /** Days ago of its revisions (one to three), oldest first. */
  revisionDaysAgo: z.array(daysAgo).min(1).max(3),
  /** Variables of the last revision. */
  variables,
  /** Variables of the revisions before the last, when they differ. */
  formerVariables: variables.optional(),
  files: z.array(z.strictObject({ id: z.string(), name: z.string(), contentType: z.string() })),
  reusableContents: z.array(z.strictObject({ id: z.string(), title: z.string() })),
  pages: z.array(PageSchema),
});

/** A page of the demo content, with the markdown of a document page. */
export type DemoPage = Omit<ManifestPage, 'pages'> & { markdown?: string; pages: DemoPage[] };

/**
 * The content of one demo space. Markdown is the platform's, as Git Sync writes it: links to
 * other pages and files are relative to the page's file; pages of other demo spaces are written
 * `{{space:<title>}}/pages/<page id>` and reusable contents `{% include "{{reusable:<id>}}" %}`.
 */
export interface DemoSpaceContent extends Omit<z.infer<typeof ManifestSchema>, 'pages' | 'files'> {
  pages: DemoPage[];
  files: Array<{ id: string; name: string; contentType: string; bytes: Buffer }>;
  reusableContents: Array<{ id: string; title: string; markdown: string }>;
}

function readJson<T>(path: string, schema: z.ZodType<T>): T {
  const url = new URL(path, DATA);
  const parsed = schema.safeParse(JSON.parse(readFileSync(url, 'utf8')));
  if (!parsed.success) throw new Error(`Demo data ${path}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** The demo data set's structure (`demo.json`). */
export function loadDemoData(): DemoData {
  return readJson('demo.json', DemoSchema);
}

/** Every demo space with content, in seeding order (`content` of `demo.json`). */
export function loadDemoContent(folders: readonly string[] = loadDemoData().content): DemoSpaceContent[] {
  return folders.map(loadSpaceContent);
}

/** A slug from a title: lowercase words of letters and digits joined by `-`. */
export function slugOf(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function loadSpaceContent(folder: string): DemoSpaceContent {
  const manifest = readJson(`spaces/${folder}/space.json`, ManifestSchema);
  const read = (path: string) => readFileSync(new URL(`spaces/${folder}/${path}`, DATA));
  // A page's file is its place in the whole tree (every revision's pages, as last titled).
  const whole = (pages: readonly ManifestPage[]): ContentPage[] =>
    pages.map((page) => ({
      id: page.id,
      type: page.kind ?? 'document',
      title: page.title,
      slug: page.slug ?? slugOf(page.title),
      pages: whole(page.pages ?? []),
    }));
  const index = pageIndex({ pages: whole(manifest.pages), files: [], reusableContents: [], variables: {} });
  const withMarkdown = (pages: readonly ManifestPage[]): DemoPage[] =>
    pages.map(({ pages: children, ...page }) => {
      const placed = index.byId.get(page.id)!;
      const document = (page.kind ?? 'document') === 'document';
      return {
        ...page,
        ...(document ? { markdown: read(pageFile(placed)).toString('utf8') } : {}),
        pages: withMarkdown(children ?? []),
      };
    });
  return {
    ...manifest,
    pages: withMarkdown(manifest.pages),
    files: manifest.files.map((file) => ({ ...file, bytes: read(`.gitbook/assets/${file.name}`) })),
    reusableContents: manifest.reusableContents.map((item) => ({
      ...item,
      markdown: read(`.gitbook/includes/${item.id}.md`).toString('utf8'),
    })),
  };
}

// --- The domains' demo data: one file each, read and checked here, applied by `demo-content/<domain>.ts` or the
// domain's own seeding function. Spaces, sites and users are named as in `demo.json` (space titles, site titles,
// organization ids); JSON values the platform stores as given (definitions, schemas, configurations) stay open.

const json = z.record(z.string(), z.unknown());

const ConversationsSchema = z.strictObject({
  org: z.string(),
  /** Clusters named after seeding, each by one of its conversations: a fixed id, muted. */
  clusters: z.array(
    z.strictObject({ conversation: z.string(), id: z.string().optional(), muted: z.boolean().optional() }),
  ),
  /** Ingested week by week (weeks of `daysAgo`), as they would have arrived. */
  conversations: z.array(
    z.strictObject({
      id: z.string(),
      source: z.enum(['intercom', 'slack', 'email', 'docs-feedback']),
      daysAgo,
      subject: z.string().optional(),
      url: z.string().optional(),
      attributes: z.record(z.string(), z.string()).optional(),
      /** A user's message, or `{ "agent": … }` for a support agent's answer. */
      messages: z.array(z.union([z.string(), z.strictObject({ agent: z.string() })])).min(1),
    }),
  ),
});

const OpenAPISchema = z.strictObject({
  slug: z.string(),
  org: z.string(),
  /** The space computing the reference. */
  space: z.string(),
  visibility: z.enum(['public', 'private']),
  createdDaysAgo: daysAgo,
  /** Oldest first; `source`: a YAML file beside the manifest. */
  versions: z.array(z.strictObject({ source: z.string(), daysAfterFirst: daysAgo })).min(1),
  /** The space's pages: a document (`markdown`: a file beside the manifest) or a computed page. */
  pages: z.array(
    z.union([
      z.strictObject({ title: z.string(), slug: z.string(), markdown: z.string() }),
      z.strictObject({ title: z.string(), computed: json }),
    ]),
  ),
});

const SiteSpaceSchema = z.strictObject({
  space: z.string(),
  path: z.string().optional(),
  condition: z.string().optional(),
});

const SitesSchema = z.strictObject({
  /** In creation order. */
  sites: z.array(
    z.strictObject({
      title: z.string(),
      org: z.string(),
      type: z.enum(SITE_TYPES).optional(),
      visibility: z.enum(SITE_VISIBILITIES).optional(),
      basename: z.string().optional(),
      createdDaysAgo: daysAgo,
      published: z.boolean().optional(),
      hostname: z.string().optional(),
      /** The organization's default content. */
      defaultContent: z.boolean().optional(),
      /** Sections (by title), each with its default site space and other variants. */
      sections: z
        .array(
          z.strictObject({
            title: z.string(),
            icon: z.string(),
            space: z.string(),
            /** The default variant's path. */
            path: z.string().optional(),
            localizedTitle: z.record(z.string(), z.string()).optional(),
            variants: z.array(SiteSpaceSchema).optional(),
          }),
        )
        .optional(),
      groups: z
        .array(z.strictObject({ title: z.string(), icon: z.string(), sections: z.array(z.string()).min(1) }))
        .optional(),
      /** External links among the sections, after the groups: at the root, or in a group (by title). */
      externalLinks: z
        .array(
          z.strictObject({
            title: z.string(),
            url: z.string(),
            icon: z.string().optional(),
            group: z.string().optional(),
          }),
        )
        .optional(),
      /** Site spaces of a site without sections. */
      siteSpaces: z.array(SiteSpaceSchema).optional(),
      shareLinks: z.array(z.strictObject({ name: z.string(), key: z.string() })).optional(),
      /** Adaptive content: the claims' schema and the key visitor tokens are signed with. */
      adaptive: z.strictObject({ signingKey: z.string(), schema: json }).optional(),
      /** To a section (by title). */
      redirects: z
        .array(
          z.strictObject({
            source: z.string(),
            draft: z.boolean(),
            captureWildcard: z.boolean(),
            permanent: z.boolean(),
            section: z.string(),
          }),
        )
        .optional(),
      /**
       * Settings over the defaults (`SiteCustomizationSettings`, a top-level object merged one level deep), and
       * overrides of site spaces (by the title of their space). A content reference names a space by its title;
       * a font `{ customFont }` is a custom font of the organization, by family.
       */
      customization: z.strictObject({ settings: json, siteSpaces: z.record(z.string(), json).optional() }).optional(),
    }),
  ),
});

const IntegrationsSchema = z.strictObject({
  /** In publishing order. */
  integrations: z.array(
    z.strictObject({
      name: z.string(),
      /** The publishing organization. */
      org: z.string(),
      runtime: z.string(),
      visibility: z.enum(INTEGRATION_VISIBILITIES),
      target: z.enum(INTEGRATION_TARGETS),
      definition: json,
      script: z.string(),
      /** `file`: beside the manifest, in `integrations/`. */
      icon: z.strictObject({ file: z.string(), contentType: z.string() }).optional(),
      secrets: z.record(z.string(), z.string()).optional(),
      installations: z.array(
        z.strictObject({
          org: z.string(),
          configuration: json.optional(),
          externalIds: z.array(z.string()).optional(),
          /** Where it is enabled: a space or a site (by title), configured; events recorded after. */
          on: z
            .array(
              z.strictObject({
                space: z.string().optional(),
                site: z.string().optional(),
                configuration: json.optional(),
                events: z.array(z.literal('space_content_updated')).optional(),
              }),
            )
            .optional(),
        }),
      ),
    }),
  ),
});

const SamlSchema = z.strictObject({
  org: z.string(),
  /** Of the first provider; each next one a moment later. */
  createdDaysAgo: daysAgo,
  providers: z.array(
    z.strictObject({
      label: z.string(),
      ssoUrl: z.string().optional(),
      entityId: z.string().optional(),
      /** A PEM file beside the manifest; without the three, the provider is pending. */
      certificate: z.string().optional(),
      defaultRole: z.enum(['admin', 'create', 'edit', 'review', 'comment', 'read', 'guest']),
    }),
  ),
});

const FontsSchema = z.strictObject({
  org: z.string(),
  /** Of the first family; each next one a minute later. */
  createdDaysAgo: daysAgo,
  families: z.array(
    z.strictObject({ family: z.string(), weights: z.array(z.number().int().min(100).max(900)).min(1) }),
  ),
});

const ImportsSchema = z.strictObject({
  org: z.string(),
  /** Oldest first: a run that failed reading a website, a run of two files, completed. */
  runs: z.array(
    z.union([
      z.strictObject({
        space: z.string(),
        by: z.string(),
        createdDaysAgo: daysAgo,
        website: z.string(),
        failed: z.string(),
      }),
      z.strictObject({
        space: z.string(),
        by: z.string(),
        createdDaysAgo: daysAgo,
        files: z.array(z.strictObject({ name: z.string(), contentType: z.string(), text: z.string() })).min(1),
      }),
    ]),
  ),
});

export type DemoImports = z.infer<typeof ImportsSchema>;

const TranslationsSchema = z.strictObject({
  org: z.string(),
  createdDaysAgo: daysAgo,
  /** Each with one completed run, pseudo-localized at seeding. */
  translations: z.array(
    z.strictObject({ space: z.string(), sourceLanguage: z.string(), language: z.string(), instructions: json }),
  ),
  /** Entries of the organization's translation glossary (language → term), which the runs keep. */
  glossary: z.array(z.record(z.string(), z.string())),
});

/** The demo's support conversations and the clusters it names (`conversations.json`). */
export type DemoConversations = z.infer<typeof ConversationsSchema>;
/** The demo's docs sites (`sites.json`). */
export type DemoSites = z.infer<typeof SitesSchema>;
/** The demo's integrations and their installations (`integrations/integrations.json`). */
export type DemoIntegrations = z.infer<typeof IntegrationsSchema>;
/** The demo's OpenAPI specification, its versions' texts and the space computing its reference. */
export type DemoOpenAPI = Omit<z.infer<typeof OpenAPISchema>, 'versions' | 'pages'> & {
  versions: Array<{ text: string; daysAfterFirst: number }>;
  pages: Array<
    { title: string; slug: string; markdown: string } | { title: string; computed: Record<string, unknown> }
  >;
};
/** The demo's SAML providers, certificates read. */
export type DemoSaml = z.infer<typeof SamlSchema>;
/** The demo's custom fonts. */
export type DemoFonts = z.infer<typeof FontsSchema>;
/** The demo's translations. */
export type DemoTranslations = z.infer<typeof TranslationsSchema>;

const text = (path: string) => readFileSync(new URL(path, DATA), 'utf8');

const RepositorySchema = z.strictObject({
  space: z.string(),
  repoName: z.string(),
  provider: z.enum(['github', 'gitlab']),
  branch: z.string(),
  messages: z.strictObject({ first: z.string(), next: z.string().includes('{n}') }),
});

/** `git.json`: the demo space kept in a local Git repository, and how its history reads. */
export function loadDemoRepository(): z.infer<typeof RepositorySchema> {
  return readJson('git.json', RepositorySchema);
}

/** `conversations.json`. */
export function loadDemoConversations(): DemoConversations {
  return readJson('conversations.json', ConversationsSchema);
}

/** `sites.json`. */
export function loadDemoSites(): DemoSites {
  return readJson('sites.json', SitesSchema);
}

/** `integrations/integrations.json`, with each icon's bytes. */
export function loadDemoIntegrations(): DemoIntegrations & { icons: Map<string, Buffer> } {
  const data = readJson('integrations/integrations.json', IntegrationsSchema);
  const icons = new Map<string, Buffer>();
  for (const item of data.integrations) {
    if (item.icon) icons.set(item.name, readFileSync(new URL(`integrations/${item.icon.file}`, DATA)));
  }
  return { ...data, icons };
}

/** `openapi/acme-petstore.json`, with its versions' YAML and its pages' markdown read. */
export function loadDemoOpenAPI(): DemoOpenAPI {
  const data = readJson('openapi/acme-petstore.json', OpenAPISchema);
  return {
    ...data,
    versions: data.versions.map(({ source, daysAfterFirst }) => ({ text: text(`openapi/${source}`), daysAfterFirst })),
    pages: data.pages.map((page) =>
      'markdown' in page ? { ...page, markdown: text(`openapi/${page.markdown}`) } : page,
    ),
  };
}

/** `saml.json`, certificates read (PEM, without the file's last newline). */
export function loadDemoSaml(): DemoSaml {
  const data = readJson('saml.json', SamlSchema);
  return {
    ...data,
    providers: data.providers.map((provider) =>
      provider.certificate ? { ...provider, certificate: text(provider.certificate).trimEnd() } : provider,
    ),
  };
}

/** `fonts.json`. */
export function loadDemoFonts(): DemoFonts {
  return readJson('fonts.json', FontsSchema);
}

/** `imports.json`. */
export function loadDemoImports(): DemoImports {
  return readJson('imports.json', ImportsSchema);
}

/** `translations.json`. */
export function loadDemoTranslations(): DemoTranslations {
  return readJson('translations.json', TranslationsSchema);
}
