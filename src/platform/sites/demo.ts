/**
 * The names of the demo sites (`demo-content/sites.json` declares them; the seed checks that these are its names),
 * by title.
 */
export const DEMO_SITES = {
  /**
   * Acme, public, published, Acme's default content: sections, a group, an English and a French variant;
   * redirects `/changelog` (to the release notes) and `/guides/*` (to the product section, suffix kept); grants
   * to finn (`admin`), the guest gus (`read`), the teams Writers (`create`) and Reviewers (`review`).
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
