import { newId } from '../http.js';
import type { SpaceRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { insertSite, reloadSite, type SiteRow } from './store.js';
import { insertRedirect } from './redirects.js';
import {
  addGroup,
  addSection,
  addSiteSpace,
  loadStructure,
  reloadStructure,
  requireSection,
  updateSection,
  updateSiteSpace,
  variantsOf,
} from './structure.js';

/** The demo sites, by title. */
export const DEMO_SITES = {
  /**
   * Acme, public, published, Acme's default content: sections, a group, an English and a French variant;
   * redirects `/changelog` (to the release notes) and `/guides/*` (to the product section, suffix kept).
   */
  docs: 'Acme Docs',
  /** Acme, share-link, published. */
  partners: 'Acme Partner Portal',
  /** Acme, visitor-auth, published on the custom hostname `api.acme-docs.test`, with a conditional beta variant. */
  api: 'Acme API',
  /** Acme, unpublished draft. */
  draft: 'Acme Labs',
  /** Globex, public, published on the custom hostname `developers.globex.test`. */
  globex: 'Globex Developers',
} as const;

/**
 * The demo's fixed secrets, so the docs (docs/demo-data.md) can give working examples: the key of the partner
 * portal's share link, the visitor-token signing key of "Acme API", and a visitor token signed
 * with it (claims `betaAccess: true`, `plan: "pro"`; it expires in 2100).
 */
export const DEMO_SITE_SECRETS = {
  shareKey: 'partners-demo-key',
  visitorSigningKey: 'acme-api-demo-visitor-signing-key',
  visitorToken:
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJkZW1vLXZpc2l0b3IiLCJiZXRhQWNjZXNzIjp0cnVlLCJwbGFuIjoicHJvIiwiaWF0IjoxNzk1MDAwMDAwLCJleHAiOjQxMDI0NDQ4MDB9.FZq3enHVYoi7u43wF4rdG62RET-oF_bDqDGUZkDkWCU',
} as const;

/** The adaptive schema of the demo "Acme API" site. */
const API_SCHEMA = {
  type: 'object',
  properties: {
    betaAccess: { type: 'boolean', description: 'Has access to beta features' },
    plan: { type: 'string', enum: ['free', 'pro', 'enterprise'], description: 'Subscription plan' },
    unsigned: {
      type: 'object',
      description: 'Unsigned claims of the site visitor.',
      properties: { newsletter: { type: 'boolean', description: 'Reads the newsletter' } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

/** Seeds the demo sites on top of the demo spaces (`spaceIds` by title). */
export function seedDemoSites(db: Db, orgs: { acme: string; globex: string }, spaceIds: Map<string, string>): void {
  const space = (title: string) => db.prepare('SELECT * FROM spaces WHERE id = ?').get(spaceIds.get(title)) as SpaceRow;
  const publish = (site: SiteRow, hostname?: string) =>
    db.prepare('UPDATE sites SET published = 1, hostname = ? WHERE id = ?').run(hostname ?? null, site.id);

  // A site with sections: "Getting started" in English (default) and French, the product
  // documentation, and a group of resources.
  const docs = insertSite(db, orgs.acme, { title: DEMO_SITES.docs, type: 'premium' });
  db.prepare("UPDATE sites SET basename = 'docs' WHERE id = ?").run(docs.id);
  let s = loadStructure(db, reloadSite(db, docs.id));
  const start = addSection(db, s, { space: space('Getting started'), title: 'Getting started', icon: 'rocket' });
  s = reloadStructure(db, s);
  addSiteSpace(db, s, { space: space('Guide de démarrage'), sectionId: start, path: 'fr' });
  s = reloadStructure(db, s);
  const [english] = variantsOf(s, start);
  updateSiteSpace(db, s, english!, { path: 'en' });
  updateSection(db, s, requireSection(s, start), { localizedTitle: { fr: 'Premiers pas' } });
  s = reloadStructure(db, s);
  const product = addSection(db, s, { space: space('Product overview'), title: 'Product', icon: 'box' });
  s = reloadStructure(db, s);
  const notes = addSection(db, s, { space: space('Release notes'), title: 'Release notes', icon: 'megaphone' });
  s = reloadStructure(db, s);
  const status = addSection(db, s, { space: space('Status page'), title: 'Status', icon: 'signal' });
  s = reloadStructure(db, s);
  addGroup(db, s, { title: 'Resources', icon: 'folder', sections: [notes, status] });
  publish(docs);
  db.prepare('UPDATE organizations SET default_content = ? WHERE id = ?').run(
    JSON.stringify({ type: 'site', site: docs.id }),
    orgs.acme,
  );

  const partners = insertSite(db, orgs.acme, { title: DEMO_SITES.partners, visibility: 'share-link' });
  s = loadStructure(db, partners);
  addSiteSpace(db, s, { space: space('Pricing FAQ') });
  addSiteSpace(db, reloadStructure(db, s), { space: space('Erste Schritte'), path: 'de' });
  db.prepare(
    "INSERT INTO site_share_links (id, site_id, key, name, active, created_at) VALUES (?, ?, ?, 'Partners', 1, ?)",
  ).run(newId(), partners.id, DEMO_SITE_SECRETS.shareKey, partners.created_at);
  publish(partners);

  const api = insertSite(db, orgs.acme, { title: DEMO_SITES.api, visibility: 'visitor-auth', type: 'ultimate' });
  s = loadStructure(db, api);
  addSiteSpace(db, s, { space: space('API reference'), path: 'reference' });
  s = reloadStructure(db, s);
  addSiteSpace(db, s, { space: space('Runbooks'), path: 'beta' });
  s = reloadStructure(db, s);
  updateSiteSpace(db, s, variantsOf(s, null)[1]!, { condition: 'visitor.claims.betaAccess == true' });
  db.prepare(
    'UPDATE sites SET adaptive_content = 1, adaptive_schema = ?, adaptive_schema_updated_at = ?, auth_private_key = ? WHERE id = ?',
  ).run(JSON.stringify(API_SCHEMA), api.created_at, DEMO_SITE_SECRETS.visitorSigningKey, api.id);
  publish(api, 'api.acme-docs.test');

  const draft = insertSite(db, orgs.acme, { title: DEMO_SITES.draft });
  addSiteSpace(db, loadStructure(db, draft), { space: space('Roadmap') });

  const globex = insertSite(db, orgs.globex, { title: DEMO_SITES.globex });
  addSiteSpace(db, loadStructure(db, globex), { space: space('Developer portal') });
  publish(globex, 'developers.globex.test');

  // Created in this order, days apart, so that lists (ordered by creation) are stable.
  const DAY = 24 * 60 * 60 * 1000;
  [docs, partners, api, draft, globex].forEach((site, index) => {
    const at = new Date(Date.now() - (60 - index * 10) * DAY).toISOString();
    db.prepare('UPDATE sites SET created_at = ?, updated_at = ? WHERE id = ?').run(at, at, site.id);
  });

  // Redirects (last: the ids made before them stay as they were): an old path to the release
  // notes, and an old prefix (what follows it kept) to the product docs.
  insertRedirect(db, docs.id, {
    source: '/changelog',
    draft: false,
    captureWildcard: false,
    permanent: true,
    destination: { kind: 'site-section', siteSectionId: notes },
  });
  insertRedirect(db, docs.id, {
    source: '/guides/*',
    draft: false,
    captureWildcard: true,
    permanent: false,
    destination: { kind: 'site-section', siteSectionId: product },
  });
}
