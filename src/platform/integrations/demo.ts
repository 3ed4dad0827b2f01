import type { OrganizationRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { recordSpaceEvents } from './events.js';
import { findInstallation, install, installOn, updateInstallation, updateOn } from './installations.js';
import { publishIntegration } from './store.js';

/**
 * The demo integrations of Acme, published, installed and with their events: "Video embeds"
 * (`video-embeds`, public: a block that unfurls video links, account and space configurations),
 * installed on Acme and Globex and enabled on an Acme space; and "Acme analytics"
 * (`acme-analytics`, private, for sites: a site configuration requiring a tracking id), enabled
 * on the Acme Docs site. Neither declares an endpoint: their events are recorded, not delivered.
 */

export const DEMO_INTEGRATIONS = {
  /** Public, with a block and configurations; installed on Acme (enabled on `space`) and on Globex. */
  public: 'video-embeds',
  /** Private to Acme, target `site`; installed on Acme and enabled on the Acme Docs site. */
  private: 'acme-analytics',
} as const;

/** A 1×1 PNG, the icon of the public demo integration. */
const ICON = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

/** Seeds the demo integrations (see `DEMO_INTEGRATIONS`) with their installations and events. */
export function seedDemoIntegrations(
  db: Db,
  orgs: { acme: string; globex: string },
  spaceId: string,
  siteId: string,
): void {
  const org = (id: string) => db.prepare('SELECT * FROM organizations WHERE id = ?').get(id) as OrganizationRow;
  const acme = org(orgs.acme);

  const { row: videos } = publishIntegration(db, acme, DEMO_INTEGRATIONS.public, {
    runtime: 'v1',
    visibility: 'public',
    target: 'all',
    definition: {
      title: 'Video embeds',
      description: 'Play videos from your video host inside your pages.',
      summary: '# Video embeds\n\nPaste a link to a video: it becomes a player. Choose the default quality per space.',
      scopes: ['space:content:read'],
      categories: ['content'],
      blocks: [
        {
          id: 'video',
          title: 'Video',
          description: 'A video player',
          urlUnfurl: ['https://videos.acme.test/watch/**', 'https://*.videos.acme.test/**'],
          markdown: { codeblock: 'video', body: '{{url}}' },
        },
      ],
      externalLinks: [{ url: 'https://videos.acme.test/docs', label: 'Documentation' }],
      configurations: {
        account: {
          properties: { channel: { type: 'string', title: 'Channel', description: 'The channel videos come from' } },
          required: ['channel'],
        },
        space: {
          properties: {
            quality: { type: 'string', title: 'Quality', enum: ['auto', 'hd', 'sd'], default: 'auto' },
            autoplay: { type: 'boolean', title: 'Autoplay', default: false },
          },
        },
      },
    },
    script: 'export default { events: {} };\n',
    icon: { bytes: ICON, contentType: 'image/png' },
    secrets: { VIDEO_API_KEY: 'demo-video-api-key' },
  });

  const acmeVideos = install(db, videos, acme);
  updateInstallation(db, videos, acmeVideos, {
    configuration: { channel: 'acme-docs' },
    externalIds: ['acme-channel'],
  });
  installOn(db, videos, findInstallation(db, videos, acmeVideos.id)!, 'space', spaceId);
  updateOn(db, videos, findInstallation(db, videos, acmeVideos.id)!, 'space', spaceId, {
    configuration: { quality: 'hd', autoplay: false },
  });
  // A merge into the space, as an installed integration sees it.
  const revision = db.prepare('SELECT revision FROM spaces WHERE id = ?').pluck(true).get(spaceId) as string;
  recordSpaceEvents(db, spaceId, { type: 'space_content_updated', revisionId: revision, updatedBy: [] });
  // Globex installed it and has not configured it yet: pending.
  install(db, videos, org(orgs.globex));

  const { row: analytics } = publishIntegration(db, acme, DEMO_INTEGRATIONS.private, {
    runtime: 'v1',
    visibility: 'private',
    target: 'site',
    definition: {
      title: 'Acme analytics',
      description: 'Page views of Acme sites, in the internal dashboard.',
      scopes: ['site:views:read', 'site:script:inject'],
      categories: ['analytics'],
      externalLinks: [],
      configurations: {
        site: { properties: { trackingId: { type: 'string', title: 'Tracking ID' } }, required: ['trackingId'] },
      },
    },
    script: 'export default { events: {} };\n',
  });
  const acmeAnalytics = install(db, analytics, acme);
  installOn(db, analytics, acmeAnalytics, 'site', siteId);
  updateOn(db, analytics, acmeAnalytics, 'site', siteId, { configuration: { trackingId: 'ACME-0001' } });
}
