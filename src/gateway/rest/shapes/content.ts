import { z } from 'zod';
import { dateTime, document, page, url } from './common.js';
import { organization } from './organizations.js';
import { space } from './spaces.js';

/**
 * Shapes of the content answers: revisions, their page trees, files and reusable contents,
 * semantic changes, link reports and backlinks (`Revision`, `RevisionPage*`, `RevisionFile`,
 * `RevisionSemanticChanges`, `ContentReferenceUsage`, `ContentLocation` of the API).
 */

export const REVISION_TYPES = ['edits', 'merge', 'rollback', 'update', 'computed'] as const;
export const PAGE_TYPES = ['document', 'group', 'link', 'computed'] as const;
export type PageType = (typeof PAGE_TYPES)[number];

/** A reference to content (`ContentRef`): a page, a file, an anchor, a URL, a space, … */
export const contentRef = z.object({ kind: z.string() }).catchall(z.unknown());
export type ContentRef = z.infer<typeof contentRef>;

/** Where a page, file or reusable content lives in a Git repository. */
export const gitBlob = z.object({ oid: z.string(), path: z.string() });

const variables = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

/** A page of a revision, with its children (`RevisionPage`): one object for the four variants. */
export interface RevisionPage {
  id: string;
  type: PageType;
  title: string;
  linkTitle?: string | undefined;
  emoji?: string | undefined;
  icon?: string | undefined;
  createdAt?: string | undefined;
  updatedAt?: string | undefined;
  slug?: string | undefined;
  path?: string | undefined;
  description?: string | undefined;
  urls?: { app?: string | undefined } | undefined;
  hidden?: boolean | undefined;
  noIndex?: boolean | undefined;
  noRobotsIndex?: boolean | undefined;
  condition?: string | undefined;
  layout?: Record<string, unknown> | undefined;
  cover?: Record<string, unknown> | undefined;
  variables?: Record<string, string | number | boolean> | undefined;
  metaLinks?: { canonical?: ContentRef | undefined; alternates?: ContentRef[] | undefined } | undefined;
  git?: { oid: string; path: string } | undefined;
  documentId?: string | undefined;
  target?: ContentRef | undefined;
  href?: string | undefined;
  computed?: Record<string, unknown> | undefined;
  markdown?: string | undefined;
  pages?: RevisionPage[] | undefined;
}

export const revisionPage: z.ZodType<RevisionPage> = z.lazy(() =>
  z.object({
    id: z.string(),
    type: z.enum(PAGE_TYPES),
    title: z.string(),
    linkTitle: z.string().optional(),
    emoji: z.string().optional(),
    icon: z.string().optional(),
    createdAt: dateTime.optional(),
    updatedAt: dateTime.optional(),
    slug: z.string().optional(),
    path: z.string().optional(),
    description: z.string().optional(),
    urls: z.object({ app: z.string().optional() }).optional(),
    hidden: z.boolean().optional(),
    noIndex: z.boolean().optional(),
    noRobotsIndex: z.boolean().optional(),
    condition: z.string().optional(),
    layout: z.record(z.string(), z.unknown()).optional(),
    cover: z.record(z.string(), z.unknown()).optional(),
    variables: variables.optional(),
    metaLinks: z.object({ canonical: contentRef.optional(), alternates: z.array(contentRef).optional() }).optional(),
    git: gitBlob.optional(),
    documentId: z.string().optional(),
    target: contentRef.optional(),
    href: z.string().optional(),
    computed: z.record(z.string(), z.unknown()).optional(),
    markdown: z.string().optional(),
    pages: z.array(revisionPage).optional(),
  }),
);

/** A file of a revision. The download URL is signed and needs no token: it is kept whole. */
export const revisionFile = z.object({
  id: z.string(),
  name: z.string(),
  contentType: z.string(),
  downloadURL: z.string(),
  size: z.number(),
  dimensions: z.object({ width: z.number(), height: z.number() }).optional(),
  git: gitBlob.optional(),
});
export type RevisionFile = z.infer<typeof revisionFile>;

export const reusableContent = z.object({
  id: z.string(),
  title: z.string(),
  document: z.string().optional(),
  git: gitBlob.optional(),
});
export type ReusableContent = z.infer<typeof reusableContent>;

export const gitCommit = z.object({
  oid: z.string(),
  message: z.string(),
  createdByGitBook: z.boolean().optional(),
  url: url.optional(),
  ref: z.string().optional(),
});

export const revision = z.object({
  object: z.literal('revision').optional(),
  id: z.string(),
  type: z.enum(REVISION_TYPES),
  parents: z.array(z.string()),
  pages: z.array(revisionPage),
  files: z.array(revisionFile),
  reusableContents: z.array(reusableContent),
  variables: variables.optional(),
  createdAt: dateTime,
  git: gitCommit.optional(),
  urls: z.object({ app: url, published: url.optional(), public: url.optional() }),
});
export type Revision = z.infer<typeof revision>;

/** A page with a body, as `…/page/{pageId}?format=markdown` answers it. */
export const markdownPage = z.object({ id: z.string(), markdown: z.string() });

/** `GET …/page/{pageId}/meta-links`. */
export const pageMetaLinks = z.object({ canonical: contentRef.optional(), alternates: z.array(contentRef).optional() });
export type PageMetaLinksAnswer = z.infer<typeof pageMetaLinks>;

/** `GET …/pages`: the page tree of a revision alone. */
export const revisionPages = z.object({ pages: z.array(revisionPage) });

// --- Semantic changes ----------------------------------------------------------------------------

const before = <T extends z.ZodType>(value: T) => z.object({ before: value.optional(), after: value.optional() });

export const changedPage = z.object({ id: z.string(), type: z.enum(PAGE_TYPES), title: z.string(), path: z.string().optional() });
export const changedFile = z.object({ id: z.string(), name: z.string(), contentType: z.string(), downloadURL: z.string() });
export const changedReusableContent = z.object({ id: z.string(), title: z.string(), document: z.string().optional() });
const attributes = z.record(z.string(), before(z.unknown()));

export const semanticChange = z.discriminatedUnion('type', [
  z.object({ type: z.literal('page_created'), page: changedPage }),
  z.object({ type: z.literal('page_deleted'), page: changedPage }),
  z.object({ type: z.literal('page_edited'), page: changedPage, attributes }),
  z.object({ type: z.literal('page_moved'), page: changedPage, parent: before(changedPage) }),
  z.object({ type: z.literal('file_created'), file: changedFile }),
  z.object({ type: z.literal('file_deleted'), file: changedFile }),
  z.object({ type: z.literal('file_edited'), file: changedFile, attributes }),
  z.object({ type: z.literal('reusable_content_created'), reusableContent: changedReusableContent }),
  z.object({ type: z.literal('reusable_content_deleted'), reusableContent: changedReusableContent }),
  z.object({ type: z.literal('reusable_content_edited'), reusableContent: changedReusableContent, attributes }),
  z.object({ type: z.literal('variables_edited'), variables: attributes }),
]);
export type SemanticChange = z.infer<typeof semanticChange>;

export const semanticChanges = z.object({
  changes: z.array(semanticChange),
  more: z.number().int().nonnegative().optional(),
});

// --- Link reports and backlinks --------------------------------------------------------------------

/**
 * Where a link points or sits (`ContentLocation`). The revision of `versionContext` is the whole
 * revision, repeated in every location: only its id is read here, and one of them is parsed in
 * full (see `revision`) to serve the pages of the report without another request.
 */
export const contentLocation = z.object({
  kind: z.string(),
  url: z.string().optional(),
  organization: organization.optional(),
  space: space.optional(),
  page: revisionPage.optional(),
  file: revisionFile.optional(),
  versionContext: z
    .object({ type: z.string(), revision: z.object({ id: z.string() }).catchall(z.unknown()).optional() })
    .optional(),
});
export type ContentLocation = z.infer<typeof contentLocation>;

export const LINK_STATUSES = ['ok', 'broken', 'in-app'] as const;

export const contentReferenceUsage = z.object({
  status: z.enum(LINK_STATUSES),
  relation: z.enum(['reference', 'dependsOn']),
  targetReference: contentLocation.optional(),
  locationReferences: z.array(contentLocation),
});
export type ContentReferenceUsage = z.infer<typeof contentReferenceUsage>;

export const linkStats = z.object({
  total: z.number().int().nonnegative(),
  broken: z.object({ total: z.number().int().nonnegative(), changeRequest: z.number().int().nonnegative().optional() }),
});
export type LinkStats = z.infer<typeof linkStats>;

/** A page of a link report: a page of usages plus the stats of the whole report. */
export const linkReportPage = page(contentReferenceUsage).extend({ stats: linkStats });

export const backlinksPage = page(contentLocation);

/** A rich-text document (`JSONDocument`). */
export const jsonDocument = document;

// --- Search and PDF -------------------------------------------------------------------------------

export const SEARCH_RESULT_TYPES = ['page', 'section'] as const;

export const searchSectionResult = z.object({
  id: z.string(),
  title: z.string(),
  path: z.string(),
  score: z.number(),
  resultType: z.enum(SEARCH_RESULT_TYPES).optional(),
  body: z.string(),
  urls: z.object({ app: z.string() }),
});

export const searchPageResult = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  path: z.string(),
  score: z.number(),
  rank: z.number().int(),
  resultType: z.enum(SEARCH_RESULT_TYPES).optional(),
  sections: z.array(searchSectionResult).optional(),
  ancestors: z.array(z.object({ title: z.string() })),
  urls: z.object({ app: z.string() }),
});
export type SearchPageResult = z.infer<typeof searchPageResult>;

export const searchSpaceResult = z.object({
  type: z.literal('space'),
  id: z.string(),
  title: z.string(),
  score: z.number(),
  pages: z.array(searchPageResult),
});
export type SearchSpaceResult = z.infer<typeof searchSpaceResult>;

/** A temporary URL that prints content as a PDF (signed, valid one hour: kept whole). */
export const pdfExport = z.object({ url: z.string() });
