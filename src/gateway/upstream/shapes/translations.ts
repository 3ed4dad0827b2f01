import { z } from 'zod';
import { dateTime, document, url } from './common.js';

/** Shapes of translations: a source space translated into a result space, run after run. */

export const TRANSLATION_STATUSES = ['pending', 'running', 'completed'] as const;

/** The languages a translation translates from and to (the API's `TranslationLanguage`). */
export const TRANSLATION_LANGUAGES = [
  'en',
  'fr',
  'de',
  'es',
  'it',
  'pt',
  'pt-br',
  'ru',
  'ja',
  'zh',
  'zh-tw',
  'yue',
  'ko',
  'ar',
  'hi',
  'nl',
  'pl',
  'tr',
  'sv',
  'no',
  'da',
  'fi',
  'el',
  'cs',
  'hu',
  'ro',
  'th',
  'vi',
  'id',
  'ms',
  'he',
  'uk',
  'sk',
  'bg',
  'hr',
  'lt',
  'lv',
  'et',
  'sl',
] as const;

export const translation = z.object({
  object: z.literal('translation'),
  id: z.string(),
  status: z.enum(TRANSLATION_STATUSES),
  source: z.object({ space: z.string(), language: z.enum(TRANSLATION_LANGUAGES) }),
  language: z.enum(TRANSLATION_LANGUAGES),
  instructions: document.nullish(),
  /** Absent until the first run completed. */
  result: z
    .object({ space: z.string(), revision: z.string(), language: z.enum(TRANSLATION_LANGUAGES).nullish() })
    .nullish(),
  createdAt: dateTime,
  updatedAt: dateTime,
  stats: z.object({
    runs: z.number(),
    totalWords: z.number(),
    totalPages: z.number(),
    totalDuration: z.number(),
    latestRunDuration: z.number(),
    latestPages: z.number(),
    latestWords: z.number(),
  }),
  permissions: z.object({ view: z.boolean(), edit: z.boolean() }),
  /** Why the last run failed (the embedded platform's addition); cleared by the next run that completes. */
  lastRunError: z.object({ message: z.string(), failedAt: dateTime }).nullish(),
  urls: z.object({ location: url }),
});
export type Translation = z.infer<typeof translation>;
