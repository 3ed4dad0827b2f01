import type { SiteRow } from './store.js';

/**
 * The customization of a site when nobody changed it: the platform's defaults for every setting
 * the API requires (`SiteCustomizationSettings` without `updatedAt`, which marks a customization
 * that was never updated). Sites cannot be customized through this platform yet, so this is what
 * every published profile answers, for the site and for each of its site spaces.
 */
export function defaultCustomization(site: Pick<SiteRow, 'title'>, locale = 'en') {
  const color = (light: string, dark = light) => ({ light, dark });
  const codeTheme = { light: 'default-light', dark: 'default-dark' };
  return {
    title: site.title,
    styling: {
      theme: 'clean',
      primaryColor: color('#346DDB'),
      infoColor: color('#787878'),
      successColor: color('#00C950'),
      warningColor: color('#FE9A00'),
      dangerColor: color('#FB2C36'),
      corners: 'rounded',
      depth: 'subtle',
      links: 'default',
      font: 'Inter',
      monospaceFont: 'IBMPlexMono',
      codeTheme: { default: codeTheme, openapi: codeTheme },
      background: 'plain',
      icons: 'regular',
      sidebar: { background: 'default', list: 'default' },
      search: 'subtle',
    },
    internationalization: {
      locale: ['en', 'fr', 'es', 'zh', 'ja', 'de', 'nl', 'no', 'pt-br', 'ru'].includes(locale) ? locale : 'en',
    },
    favicon: {},
    header: { preset: 'default', links: [] },
    footer: { groups: [] },
    themes: { default: 'light', toggeable: true },
    feedback: { enabled: false },
    ai: { mode: 'search' },
    advancedCustomization: { enabled: false },
    trademark: { enabled: true },
    externalLinks: { target: 'self' },
    pagination: { enabled: true },
    pageActions: { items: ['markdown', 'pdf'] },
    privacyPolicy: {},
    socialPreview: {},
    socialAccounts: [],
    insights: { trackingCookie: true },
  };
}
