import type { ContentPage, RevisionContent } from '../content/revisions.js';
import { holds } from './expression.js';

/**
 * Pages a visitor sees: a page whose `condition` is false for their claims (or cannot be
 * evaluated) is hidden, with its children. Members reading through the API see every page; a
 * site visitor (the bearer of a resolved URL's API token) sees only these.
 */
export function pageShown(page: Pick<ContentPage, 'condition'>, claims: Record<string, unknown>): boolean {
  if (!page.condition) return true;
  try {
    return holds(page.condition, { visitor: { claims } });
  } catch {
    return false;
  }
}

/** The content without the pages hidden from a visitor with these claims (the same object when none are). */
export function contentForVisitor(content: RevisionContent, claims: Record<string, unknown>): RevisionContent {
  let pruned = false;
  const keep = (pages: readonly ContentPage[]): ContentPage[] =>
    pages.flatMap((page) => {
      if (!pageShown(page, claims)) {
        pruned = true;
        return [];
      }
      const children = keep(page.pages);
      return [
        children.length === page.pages.length && children.every((child, index) => child === page.pages[index])
          ? page
          : { ...page, pages: children },
      ];
    });
  const pages = keep(content.pages);
  return pruned ? { ...content, pages } : content;
}
