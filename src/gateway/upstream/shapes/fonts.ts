import { z } from 'zod';

/** Shapes of custom fonts and of the storage uploads their files go through. */

export const FONT_FORMATS = ['woff', 'woff2'] as const;

export const customFont = z.object({
  id: z.string(),
  custom: z.boolean(),
  fontFamily: z.string(),
  fontFaces: z.array(
    z.object({
      weight: z.number().int(),
      // Signed download URLs: their signature is what lets anyone load the file, so it is kept.
      sources: z.array(z.object({ url: z.string(), format: z.enum(FONT_FORMATS).nullish() })),
    }),
  ),
  permissions: z.object({ edit: z.boolean() }),
});
export type CustomFont = z.infer<typeof customFont>;

export const STORAGE_KINDS = ['customization_font', 'import_file', 'organization_file'] as const;

/** A signed upload URL, used at once and never answered to clients. */
export const storageUploadUrl = z.object({ object: z.literal('storage-signed-url'), url: z.string(), key: z.string() });
