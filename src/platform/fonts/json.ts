import { downloadUrl } from '../content/files.js';
import type { Links } from '../links.js';
import type { Db } from '../store/db.js';
import { facesOf, type FontRow } from './store.js';
import { FONT_CONTENT_TYPES } from './woff.js';

/** A font (`CustomizationFontDefinition`): its faces by weight, each served at a URL with its type. */
export function fontJson(db: Db, font: FontRow, links: Pick<Links, 'files'>, canEdit: boolean) {
  return {
    id: font.id,
    custom: true,
    fontFamily: font.font_family,
    fontFaces: facesOf(db, font.id).map(({ face, file }) => {
      const name = `${font.font_family.replace(/[^\w-]+/g, '-')}-${face.weight}.${face.format}`;
      return {
        weight: face.weight,
        sources: [
          {
            url: downloadUrl(db, links, { hash: file.hash!, name, contentType: FONT_CONTENT_TYPES[face.format] }),
            format: face.format,
          },
        ],
      };
    }),
    permissions: { edit: canEdit },
  };
}
