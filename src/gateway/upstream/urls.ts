import type { RequestApi } from './request.js';
import * as op from './contract/operations.js';

/** `GET /urls/published`: what a published URL shows, or where it redirects. */
export const resolvePublishedUrl = (api: RequestApi, query: { url: string; redirectOnError?: boolean | undefined }) =>
  api.read(op.getPublishedContentByUrl, {}, query);

/** `POST /urls/published`: the same for a visitor, whose token never goes into a URL. */
export const resolvePublishedUrlFor = async (
  api: RequestApi,
  body: { url: string; visitor: object; redirectOnError?: boolean },
) => (await api.write(op.resolvePublishedContentByUrl, {}, { body })).data;

/** `GET /urls/content`: the space or collection an app URL of the platform names, for the caller. */
export const resolveContentUrl = (api: RequestApi, url: string) => api.read(op.getContentByUrl, {}, { url });

/** `GET /urls/embed`: how to embed the published page at a URL, as an anonymous visitor. */
export const getEmbed = (api: RequestApi, url: string) => api.read(op.getEmbedByUrl, {}, { url });
