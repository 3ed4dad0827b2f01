import { posix } from 'node:path';
import type { ContentRef, JSONDocument } from '../../document/model.js';
import { documentToMarkdown, stableRefs, type RefResolver } from '../../document/markdown.js';
import type { PageIndex, PlacedPage } from './pages.js';
import {
  DEFAULT_LAYOUT,
  type ContentFile,
  type ContentPage,
  type PageLayout,
  type RevisionContent,
} from './revisions.js';

/**
 * Pages as markdown files, laid out as Git Sync lays them out: a page is `<path>.md`, or
 * `<path>/README.md` when it has children; files are `.gitbook/assets/<name>`, reusable contents
 * `.gitbook/includes/<id>.md`. References are
 * written relative to the page's own file (`format.markdown.refs=relative`, the default) or as
 * stable ids (`stable`: `/pages/<id>`, `/files/<id>`).
 */

/** The file of a page in the repository layout (no leading slash). */
export function pageFile(placed: PlacedPage): string {
  const path = placed.path ?? placed.page.id;
  return placed.page.pages.length > 0 ? `${path}/README.md` : `${path}.md`;
}

const ASSETS = '.gitbook/assets';
const INCLUDES = '.gitbook/includes';

/**
 * References relative to the file of `from`, resolved against the pages and files of `content`.
 * `fileOf` gives the file of each page (default: its place in the tree, `pageFile`).
 */
export function relativeRefs(
  index: PageIndex,
  content: RevisionContent,
  from: PlacedPage,
  fileOf: (placed: PlacedPage) => string = pageFile,
): RefResolver {
  const here = posix.dirname(fileOf(from));
  const relative = (target: string) => {
    const path = posix.relative(here, target);
    return path === '' ? posix.basename(target) : path;
  };
  // Built on first use: writing a page's markdown (one page of a read, every page of an export)
  // never reads links back, and building them costs every page of the space.
  let filesByName: Map<string, ContentFile> | undefined;
  let pagesByFile: Map<string, PlacedPage> | undefined;
  return {
    toHref(ref: ContentRef): string {
      const inThisSpace = !('space' in ref) || ref.space === undefined;
      if (inThisSpace && ref.kind === 'page') {
        const target = index.byId.get(ref.page);
        if (target?.path !== undefined) return encodeURI(relative(fileOf(target)));
      }
      if (inThisSpace && ref.kind === 'anchor') {
        if (ref.page === undefined || ref.page === from.page.id) return `#${ref.anchor}`;
        const target = index.byId.get(ref.page);
        if (target?.path !== undefined) return `${encodeURI(relative(fileOf(target)))}#${ref.anchor}`;
      }
      if (inThisSpace && ref.kind === 'file') {
        const file = content.files.find((item) => item.id === ref.file);
        if (file) return encodeURI(relative(`${ASSETS}/${file.name}`));
      }
      if (
        inThisSpace &&
        ref.kind === 'reusable-content' &&
        content.reusableContents.some((item) => item.id === ref.reusableContent)
      ) {
        return encodeURI(relative(`${INCLUDES}/${ref.reusableContent}.md`));
      }
      return stableRefs.toHref(ref);
    },
    fromHref(href: string): ContentRef {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('/')) return stableRefs.fromHref(href);
      const [rawPath = '', anchor] = href.split('#', 2);
      if (rawPath === '') return anchor ? { kind: 'anchor', anchor, page: from.page.id } : stableRefs.fromHref(href);
      let path: string;
      try {
        path = posix.normalize(posix.join(here, decodeURI(rawPath)));
      } catch {
        return stableRefs.fromHref(href);
      }
      if (path.startsWith(`${INCLUDES}/`) && path.endsWith('.md')) {
        const id = path.slice(INCLUDES.length + 1, -3);
        if (content.reusableContents.some((item) => item.id === id))
          return { kind: 'reusable-content', reusableContent: id };
      }
      if (path.startsWith(`${ASSETS}/`)) {
        filesByName ??= new Map(content.files.map((file) => [file.name, file]));
        const file = filesByName.get(path.slice(ASSETS.length + 1));
        if (file) return { kind: 'file', file: file.id };
      }
      pagesByFile ??= new Map(
        index.ordered.filter((placed) => placed.path !== undefined).map((placed) => [fileOf(placed), placed]),
      );
      const page = pagesByFile.get(path) ?? pagesByFile.get(path.replace(/\.md$/, '/README.md'));
      if (page) return anchor ? { kind: 'anchor', anchor, page: page.page.id } : { kind: 'page', page: page.page.id };
      return stableRefs.fromHref(href);
    },
  };
}

/** The layout options written as `{ visible }` in front matter. */
const LAYOUT_SWITCHES = [
  'title',
  'description',
  'tableOfContents',
  'outline',
  'pagination',
  'metadata',
  'tags',
  'actions',
] as const;

/**
 * The front matter of a page's markdown: its metadata that is not the title or the body, in Git
 * Sync's keys (`description`, `icon`, `hidden`, `noIndex`, `noRobotsIndex`, `vars`, `cover` with
 * `coverY` and `coverHeight`, and `layout` when it is not the default). `refs` writes the cover's
 * reference (a file or a URL).
 */
export function pageFrontMatter(page: ContentPage, refs: RefResolver = stableRefs): Record<string, unknown> {
  const front: Record<string, unknown> = {};
  if (page.description) front.description = page.description;
  if (page.icon) front.icon = page.icon;
  if (page.hidden) front.hidden = true;
  if (page.noIndex) front.noIndex = true;
  if (page.noRobotsIndex) front.noRobotsIndex = true;
  if (page.condition) front.if = page.condition;
  if (page.variables && Object.keys(page.variables).length) front.vars = page.variables;
  const cover = page.cover as { ref?: ContentRef; yPos?: number; height?: number } | undefined;
  if (cover?.ref) {
    front.cover = refs.toHref(cover.ref);
    if (typeof cover.yPos === 'number') front.coverY = cover.yPos;
    if (typeof cover.height === 'number') front.coverHeight = cover.height;
  }
  const layout = page.layout;
  if (
    layout &&
    (Object.keys(DEFAULT_LAYOUT) as Array<keyof PageLayout>).some((key) => layout[key] !== DEFAULT_LAYOUT[key])
  ) {
    const written: Record<string, unknown> = {
      width: layout.width,
      cover: { visible: layout.cover, size: layout.coverSize, mask: layout.coverMask },
    };
    for (const key of LAYOUT_SWITCHES) written[key] = { visible: layout[key] };
    front.layout = written;
  }
  return front;
}

/** Page metadata read from Git Sync front matter: `layout` and `cover` (`refs` reads the cover's path). */
export function layoutAndCover(
  front: Record<string, unknown>,
  refs: RefResolver,
): Partial<Pick<ContentPage, 'layout' | 'cover'>> {
  const fields: Partial<Pick<ContentPage, 'layout' | 'cover'>> = {};
  if (typeof front.cover === 'string' && front.cover) {
    const cover: Record<string, unknown> = { ref: refs.fromHref(front.cover) };
    if (typeof front.coverY === 'number') cover.yPos = front.coverY;
    if (typeof front.coverHeight === 'number') cover.height = front.coverHeight;
    fields.cover = cover;
  }
  const layout = front.layout;
  if (layout && typeof layout === 'object' && !Array.isArray(layout)) {
    const given = layout as Record<string, unknown>;
    const visible = (value: unknown, fallback: boolean) =>
      value && typeof value === 'object' && typeof (value as { visible?: unknown }).visible === 'boolean'
        ? (value as { visible: boolean }).visible
        : fallback;
    const cover = (given.cover ?? {}) as { visible?: unknown; size?: unknown; mask?: unknown };
    const result: PageLayout = { ...DEFAULT_LAYOUT };
    if (given.width === 'wide' || given.width === 'default') result.width = given.width;
    result.cover = typeof cover.visible === 'boolean' ? cover.visible : result.cover;
    if (cover.size === 'hero' || cover.size === 'full' || cover.size === 'background') result.coverSize = cover.size;
    if (cover.mask === 'none' || cover.mask === 'radial') result.coverMask = cover.mask;
    for (const key of LAYOUT_SWITCHES) result[key] = visible(given[key], result[key]);
    fields.layout = result;
  }
  return fields;
}

/** The markdown of a document page: front matter, `# Title`, body, references as asked. */
export function pageMarkdown(
  placed: PlacedPage,
  document: JSONDocument,
  index: PageIndex,
  content: RevisionContent,
  refs: 'relative' | 'stable',
): string {
  const resolver = refs === 'stable' ? stableRefs : relativeRefs(index, content, placed);
  return documentToMarkdown(document, {
    title: placed.page.title,
    frontMatter: pageFrontMatter(placed.page, resolver),
    refs: resolver,
  });
}
