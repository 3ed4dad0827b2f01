import type { FastifyInstance } from 'fastify';
import type { Element, Root } from 'hast';
import { fromHtml } from 'hast-util-from-html';
import { z } from 'zod';
import { badRequest, parseQuery } from '../http.js';
import { fetchUrl, OutboundError } from '../outbound.js';

/**
 * oEmbed of a URL inside a space (`GET /spaces/{spaceId}/embed?url=`), for the editors of a
 * space's pages: a link card, or an iframe to insert. How a URL is answered:
 * 1. Known video and recording providers (YouTube, Vimeo, Loom) are recognized by the URL alone,
 *    with no connection: a `rich` embed whose HTML is an iframe the platform writes itself (their
 *    privacy-friendly player addresses), titled after the provider.
 * 2. Any other http(s) URL is fetched through the outbound guard (`outbound.ts`: public
 *    addresses only unless private targets are allowed, no redirects, MAX_PAGE_BYTES, a time
 *    limit). An HTML page that declares an oEmbed endpoint (`<link rel="alternate"
 *    type="application/json+oembed">`) has it fetched the same way and its `title` and
 *    `provider_name` read; otherwise the page's `og:title` or `<title>`, `og:site_name` and icon.
 *    The answer is a `link`: HTML from other sites is never passed on.
 * 3. When nothing can be read (no answer, a refusal of the guard, not HTML, malformed), the answer
 *    is still a `link`: the URL as its title and its host as its site. The platform works offline
 *    and never fails on someone else's page.
 * Answers are kept EMBED_TTL_MS per URL (MAX_KEPT_EMBEDS at most), whoever asks: they hold
 * nothing of the space.
 */

/** Largest page or oEmbed document read. */
export const MAX_PAGE_BYTES = 512 * 1024;
/** Time one fetch may take. */
export const EMBED_FETCH_TIMEOUT_MS = 5_000;
const EMBED_TTL_MS = 60 * 60 * 1000;
const MAX_KEPT_EMBEDS = 500;

type Embed =
  | { type: 'link'; title: string; site: string; icon?: string }
  | { type: 'rich'; title: string; site: string; html: string; icon?: string };

const iframe = (src: string, title: string) =>
  `<iframe src="${src}" title="${title}" width="640" height="360" frameborder="0" allow="fullscreen; picture-in-picture" allowfullscreen></iframe>`;

/** The embed of a URL of a known provider, made from the URL alone; undefined for any other URL. */
export function knownProviderEmbed(url: URL): Embed | undefined {
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  const id = (value: string | null | undefined, pattern: RegExp) => (value && pattern.test(value) ? value : undefined);
  let video: string | undefined;
  if (host === 'youtube.com' || host === 'm.youtube.com') {
    video =
      id(url.searchParams.get('v'), /^[\w-]{6,20}$/) ??
      id(/^\/(?:embed|shorts)\/([^/]+)/.exec(url.pathname)?.[1], /^[\w-]{6,20}$/);
  } else if (host === 'youtu.be') {
    video = id(url.pathname.slice(1), /^[\w-]{6,20}$/);
  }
  if (video)
    return {
      type: 'rich',
      title: 'YouTube video',
      site: 'YouTube',
      html: iframe(`https://www.youtube-nocookie.com/embed/${video}`, 'YouTube video'),
    };
  if (host === 'vimeo.com') {
    const found = id(/^\/(\d{1,12})\/?$/.exec(url.pathname)?.[1], /^\d+$/);
    if (found)
      return {
        type: 'rich',
        title: 'Vimeo video',
        site: 'Vimeo',
        html: iframe(`https://player.vimeo.com/video/${found}?dnt=1`, 'Vimeo video'),
      };
  }
  if (host === 'loom.com') {
    const found = id(/^\/(?:share|embed)\/([0-9a-f]{32})\/?$/.exec(url.pathname)?.[1], /^[0-9a-f]{32}$/);
    if (found)
      return {
        type: 'rich',
        title: 'Loom recording',
        site: 'Loom',
        html: iframe(`https://www.loom.com/embed/${found}`, 'Loom recording'),
      };
  }
  return undefined;
}

/** The answer when nothing can be read of a URL: the URL itself, on its host. */
const plainLink = (url: URL): Embed => ({ type: 'link', title: url.toString(), site: url.hostname });

/** Text of at most 256 characters, white space collapsed; undefined when empty. */
function short(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.replace(/\s+/g, ' ').trim();
  return text ? text.slice(0, 256) : undefined;
}

/** What an HTML page says of itself: title, site name, icon, oEmbed endpoint (absolute URLs). */
function readHead(html: string, base: URL) {
  // What a page says of itself is in its head: the body, most of the bytes, is not parsed.
  const end = html.search(/<\/head\s*>|<body[\s>]/i);
  const tree: Root = fromHtml(end >= 0 ? html.slice(0, end) : html);
  const found: { title?: string; ogTitle?: string; siteName?: string; icon?: string; oembed?: string } = {};
  const absolute = (href: unknown) => {
    const url = typeof href === 'string' ? URL.parse(href, base) : null;
    return url && (url.protocol === 'https:' || url.protocol === 'http:') ? url.toString() : undefined;
  };
  const visit = (node: Root | Element) => {
    for (const child of node.children) {
      if (child.type !== 'element') continue;
      const p = child.properties;
      const rel = Array.isArray(p.rel) ? p.rel.map(String) : [];
      if (child.tagName === 'title' && found.title === undefined)
        found.title = short(child.children.map((text) => ('value' in text ? text.value : '')).join(''));
      else if (child.tagName === 'meta' && p.property === 'og:title') found.ogTitle ??= short(p.content);
      else if (child.tagName === 'meta' && p.property === 'og:site_name') found.siteName ??= short(p.content);
      else if (child.tagName === 'link' && rel.includes('icon')) found.icon ??= absolute(p.href);
      else if (child.tagName === 'link' && rel.includes('alternate') && p.type === 'application/json+oembed')
        found.oembed ??= absolute(p.href);
      if (child.tagName !== 'body') visit(child);
    }
  };
  visit(tree);
  return found;
}

/** The embed of a URL read through the outbound guard (step 2), or the plain link (step 3). */
async function fetchedEmbed(url: URL, allowPrivate: boolean): Promise<Embed> {
  const options = { allowPrivate, maxBytes: MAX_PAGE_BYTES, timeoutMs: EMBED_FETCH_TIMEOUT_MS };
  try {
    const page = await fetchUrl(url.toString(), options);
    if (page.contentType !== 'text/html' && page.contentType !== 'application/xhtml+xml') return plainLink(url);
    const head = readHead(page.bytes.toString('utf8'), url);
    let oembed: { title?: unknown; provider_name?: unknown } = {};
    if (head.oembed) {
      try {
        const answer = await fetchUrl(head.oembed, options);
        const parsed = JSON.parse(answer.bytes.toString('utf8')) as unknown;
        if (parsed && typeof parsed === 'object') oembed = parsed as typeof oembed;
      } catch (error) {
        if (!(error instanceof OutboundError) && !(error instanceof SyntaxError)) throw error;
      }
    }
    return {
      type: 'link',
      title: short(oembed.title) ?? head.ogTitle ?? head.title ?? url.toString(),
      site: short(oembed.provider_name) ?? head.siteName ?? url.hostname,
      ...(head.icon ? { icon: head.icon } : {}),
    };
  } catch (error) {
    if (error instanceof OutboundError) return plainLink(url);
    throw error;
  }
}

/** Answers kept by URL, oldest first. */
const kept = new Map<string, { embed: Embed; at: number }>();

/** The embed of a URL (see the steps above), from what was kept when it is recent. */
export async function embedOf(raw: string, allowPrivate: boolean): Promise<Embed> {
  const url = URL.parse(raw);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw badRequest('Invalid query field "url": must be an absolute http or https URL');
  // Credentials of the URL are the caller's, never shown in a title.
  url.username = '';
  url.password = '';
  const known = knownProviderEmbed(url);
  if (known) return known;
  const key = url.toString();
  const hit = kept.get(key);
  if (hit && Date.now() - hit.at < EMBED_TTL_MS) return hit.embed;
  const embed = await fetchedEmbed(url, allowPrivate);
  kept.delete(key);
  kept.set(key, { embed, at: Date.now() });
  while (kept.size > MAX_KEPT_EMBEDS) kept.delete(kept.keys().next().value!);
  return embed;
}

const embedQuery = z.object({
  url: z.string({ message: 'is required' }).min(1, 'is required').max(2048, 'must be at most 2048 characters'),
});

/** `GET /spaces/{spaceId}/embed`: whoever reads the space. */
export function spaceEmbedRoutes(app: FastifyInstance, options: { allowPrivateUrls: boolean }): void {
  app.get<{ Params: { spaceId: string } }>('/spaces/:spaceId/embed', async (request) => {
    const { url } = parseQuery(embedQuery, request.query);
    request.ctx.access.requireSpace(request.params.spaceId);
    return embedOf(url, options.allowPrivateUrls);
  });
}
