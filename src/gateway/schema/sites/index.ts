/**
 * Docs sites in the graph: the `Site` node and its fields (`site.ts`), its structure of site
 * spaces, sections and section groups (`structure.ts`), and their mutations (`mutations.ts`); who
 * reads a published site (`access.ts`); its redirects (`redirects.ts`); its customization (`customization.ts`); the
 * writes of its external links (`external-links.ts`); copies of site spaces (`duplication.ts`); its publishing
 * preview (`preview.ts`); its search (`search.ts`); its custom hostname and the organization’s subdomain (`hostnames.ts`); who may do what with it (`permissions.ts`).
 * Other modules add fields to these types with `builder.objectFields(SiteRef, …)`.
 */
import './site.js';
import './structure.js';
import './mutations.js';
import './access.js';
import './redirects.js';
import './customization.js';
import './external-links.js';
import './duplication.js';
import './preview.js';
import './search.js';
import './hostnames.js';
import './permissions.js';

export {
  primeSites,
  readSiteRef,
  SiteConnection,
  siteKey,
  siteLink,
  SiteRef,
  SiteRefValue,
  SiteTypeEnum,
  SiteVisibilityEnum,
  type SiteHeld,
} from './site.js';
export {
  isStructureItem,
  placeGroup,
  placeSection,
  placeSectionLevel,
  placeSiteSpace,
  placeStructure,
  primeSiteItems,
  readSiteStructure,
  siteItemKey,
  siteItemStub,
  SiteExternalLinkRef,
  SiteSectionGroupRef,
  SiteSectionRef,
  SiteSpaceRef,
  SiteStructureItemUnion,
  SiteStructureUnion,
  type InSite,
  type SectionLevelHeld,
  type SiteExternalLinkHeld,
  type SiteSectionGroupHeld,
  type SiteSectionHeld,
  type SiteSpaceHeld,
  type SiteStructureHeld,
} from './structure.js';
