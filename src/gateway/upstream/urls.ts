import type { RequestApi } from './request.js';
import { sendFor } from './operation.js';
import { contentLookup, embed, publishedLookup } from './shapes/site-access.js';

/** `GET /urls/published`: what a published URL shows, or where it redirects. */
export const resolvePublishedUrl = (api: RequestApi, query: { url: string; redirectOnError?: boolean | undefined }) =>
  api.get('/urls/published', publishedLookup, query);

/** `POST /urls/published`: the same for a visitor, whose token never goes into a URL. */
export const resolvePublishedUrlFor = (
  api: RequestApi,
  body: { url: string; visitor: object; redirectOnError?: boolean },
) => sendFor(api, 'POST', '/urls/published', publishedLookup, { body });

/** `GET /urls/content`: the space or collection an app URL of the platform names, for the caller. */
export const resolveContentUrl = (api: RequestApi, url: string) => api.get('/urls/content', contentLookup, { url });

/** `GET /urls/embed`: how to embed the published page at a URL, as an anonymous visitor. */
export const getEmbed = (api: RequestApi, url: string) => api.get('/urls/embed', embed, { url });
