import type { RequestApi } from '../context.js';
import { route } from './client.js';
import { type Filters, restPages } from './operation.js';
import { pdfExport, searchPageResult, searchSpaceResult } from './shapes/content.js';

/** `GET /spaces/{spaceId}/search`: pages of the current content, ranked, with excerpts. */
export const searchSpace = (api: RequestApi, spaceId: string, query: string) =>
  restPages(api, route`/spaces/${spaceId}/search`, searchPageResult, { query });

/** `GET /orgs/{organizationId}/search`: spaces of the organization, best first, with their matching pages. */
export const searchOrganization = (api: RequestApi, organizationId: string, query: string) =>
  restPages(api, route`/orgs/${organizationId}/search`, searchSpaceResult, { query });

/** `GET /spaces/{spaceId}/pdf`: a URL of a PDF of the current content or of one page. */
export const getSpacePdf = (api: RequestApi, spaceId: string, query: Filters<'page' | 'only'>) =>
  api.get(route`/spaces/${spaceId}/pdf`, pdfExport, query);

/** `POST /spaces/{spaceId}/content/template` (no body answered): applies a template, live or to a change request. */
export const applyTemplate = (api: RequestApi, spaceId: string, body: object) =>
  api.send('POST', route`/spaces/${spaceId}/content/template`, { body });
