/** What the reading and writing halves of the converter share while they work. */
import type { Definition, Root } from 'mdast';
import type { RefResolver } from './refs.js';
// The mdast node types of math, GFM and front matter (module augmentations).
import type {} from 'mdast-util-frontmatter';
import type {} from 'mdast-util-gfm';
import type {} from 'mdast-util-math';

/** Reading markdown into a document. */
export interface ReadContext {
  refs: RefResolver;
  /** The markdown being read (for the literal text of nodes the converter does not model). */
  source: string;
  /** Link reference definitions (`[id]: url`) by normalized label. */
  definitions: Map<string, Definition>;
  /**
   * Parses a markdown fragment with the same syntax (a caption on a tag line, the start of a
   * details body), with the context to read its nodes in.
   */
  fragment(markdown: string): { nodes: Root['children']; ctx: ReadContext };
}

/** Writing a document as markdown. */
export interface WriteContext {
  refs: RefResolver;
}
