/**
 * The demo documentation, as authored: each space's page tree with markdown bodies (the
 * platform's markdown, as Git Sync writes it), its files, reusable contents and variables, and
 * which pages came in later revisions, so the history has something to show.
 */

/** A page of the demo content. */
export interface DemoPage {
  /** Page id, stable across seeds: `pg-<space>-<name>` (letters, digits and dashes). */
  id: string;
  title: string;
  /** Slug among siblings (document and group pages); derived from the title when left out. */
  slug?: string;
  /** `group` (top level only), `link` (with `href`), or a document page (the default). */
  kind?: 'group' | 'link';
  /** Target of a link page: an absolute URL. */
  href?: string;
  description?: string;
  emoji?: string;
  hidden?: boolean;
  noIndex?: boolean;
  /**
   * Body of a document page, in the platform's markdown: without the `# Title` line (the title
   * is the page's). Links to other pages of the same space are relative to this page's file
   * (`install.md`, `../guides/README.md`: a page with children is `<slug>/README.md`, other pages
   * `<slug>.md`, groups are folders); files are `.gitbook/assets/<name>` relative to the root
   * (from a page two levels down: `../../.gitbook/assets/<name>`); pages of other demo spaces
   * are written `{{space:<title of the space>}}/pages/<page id>`; reusable contents are
   * `{% include "{{reusable:<id>}}" %}`.
   */
  markdown?: string;
  /** The revision the page first appears in (2 or 3); absent: in the first one. */
  since?: 2 | 3;
  /** The page's title in revisions before the last, when it was renamed in the last. */
  formerTitle?: string;
  pages?: DemoPage[];
}

/** A file of the demo content. */
export interface DemoFile {
  /** File id, stable across seeds: `file-<space>-<name>`. */
  id: string;
  name: string;
  contentType: string;
  /** The bytes (images must be real images of the given type). */
  bytes: () => Buffer;
}

export interface DemoReusable {
  id: string;
  title: string;
  markdown: string;
}

/** The content of one demo space. */
export interface DemoSpaceContent {
  /** Title of the demo space that holds it (see `SPACES` in demo-data.ts). */
  space: string;
  pages: DemoPage[];
  files: DemoFile[];
  reusableContents: DemoReusable[];
  /** Variables of the last revision. */
  variables: Record<string, string | number | boolean>;
  /** Variables of the revisions before the last, when they differ. */
  formerVariables?: Record<string, string | number | boolean>;
  /** Days ago of its revisions (one to three), oldest first. */
  revisionDaysAgo: [number] | [number, number] | [number, number, number];
}
