/**
 * Content references in markdown: the converter asks a `RefResolver` for the href of a
 * reference and for the reference of an href, so that the caller decides how pages, files and
 * spaces are addressed (relative `.md` paths for Git Sync, stable IDs for the API).
 */
import type { ContentRef } from '../model.js';

/** Turns references into hrefs and back; `fromHref` must accept any string. */
export interface RefResolver {
  toHref(ref: ContentRef): string;
  fromHref(href: string): ContentRef;
}

const enc = encodeURIComponent;
const PATH = /^(?:\/spaces\/([^/#?]+))?\/(pages|files|reusable-content|reusable-contents|tags)\/([^/#?]+)(?:#(.+))?$/;
const SPACE = /^\/spaces\/([^/#?]+)(?:#(.+))?$/;
const ROOT = /^\/(users|collections|openapi)\/([^/#?]+)$/;

const dec = (value: string): string => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};
const inSpace = (space: string | undefined, path: string): string => (space ? `/spaces/${enc(space)}${path}` : path);

/**
 * Stable references: `/pages/<id>`, `/files/<id>`, `/reusable-content/<id>`, `/tags/<slug>`
 * (each under `/spaces/<id>` when in another space), `/spaces/<id>`, `#anchor` (or
 * `/pages/<id>#anchor`), `/users/<id>`, `/collections/<id>`, `/openapi/<slug>`; any other href
 * is a `url` reference.
 */
export const stableRefs: RefResolver = {
  toHref(ref) {
    switch (ref.kind) {
      case 'url':
        return ref.url;
      case 'page':
        return inSpace(ref.space, `/pages/${enc(ref.page)}`);
      case 'file':
        return inSpace(ref.space, `/files/${enc(ref.file)}`);
      case 'reusable-content':
        return inSpace(ref.space, `/reusable-content/${enc(ref.reusableContent)}`);
      case 'tag':
        return inSpace(ref.space, `/tags/${enc(ref.tag)}`);
      case 'anchor':
        return `${ref.page ? inSpace(ref.space, `/pages/${enc(ref.page)}`) : ref.space ? `/spaces/${enc(ref.space)}` : ''}#${ref.anchor}`;
      case 'space':
        return `/spaces/${enc(ref.space)}`;
      case 'user':
        return `/users/${enc(ref.user)}`;
      case 'collection':
        return `/collections/${enc(ref.collection)}`;
      case 'openapi':
        return `/openapi/${enc(ref.spec)}`;
    }
  },
  fromHref(href) {
    if (href.startsWith('#') && href.length > 1) return { kind: 'anchor', anchor: href.slice(1) };
    const path = PATH.exec(href);
    if (path) {
      const [, spaceId, what, rawId = '', anchor] = path;
      const id = dec(rawId);
      const space = spaceId ? { space: dec(spaceId) } : {};
      if (anchor !== undefined)
        return what === 'pages' ? { kind: 'anchor', anchor, ...space, page: id } : { kind: 'url', url: href };
      if (what === 'pages') return { kind: 'page', page: id, ...space };
      if (what === 'files') return { kind: 'file', file: id, ...space };
      if (what === 'tags') return { kind: 'tag', tag: id, ...space };
      return { kind: 'reusable-content', reusableContent: id, ...space };
    }
    const spaceRef = SPACE.exec(href);
    if (spaceRef) {
      const [, spaceId = '', anchor] = spaceRef;
      return anchor ? { kind: 'anchor', anchor, space: dec(spaceId) } : { kind: 'space', space: dec(spaceId) };
    }
    const root = ROOT.exec(href);
    if (root) {
      const [, what, id = ''] = root;
      if (what === 'users') return { kind: 'user', user: dec(id) };
      if (what === 'collections') return { kind: 'collection', collection: dec(id) };
      return { kind: 'openapi', spec: dec(id) };
    }
    return { kind: 'url', url: href };
  },
};
