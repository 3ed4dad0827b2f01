import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/platform/http.js';
import { embedOf, knownProviderEmbed } from '../../src/platform/spaces/embeds.js';
import { PRIVATE_URLS } from '../fixtures/private-urls.js';

describe('embeds of URLs in a space', () => {
  it('recognizes YouTube, Vimeo and Loom URLs, and nothing that only looks like them', () => {
    const src = (url: string) => {
      const embed = knownProviderEmbed(new URL(url));
      return embed?.type === 'rich' ? /src="([^"]+)"/.exec(embed.html)?.[1] : embed;
    };
    expect(src('https://youtu.be/dQw4w9WgXcQ')).toBe('https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ');
    expect(src('https://www.youtube.com/shorts/dQw4w9WgXcQ')).toBe(
      'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ',
    );
    expect(src('https://vimeo.com/76979871')).toBe('https://player.vimeo.com/video/76979871?dnt=1');
    expect(src(`https://www.loom.com/share/${'a1'.repeat(16)}`)).toBe(`https://www.loom.com/embed/${'a1'.repeat(16)}`);
    expect(src('https://www.youtube.com/watch?v="><script>')).toBeUndefined();
    expect(src('https://youtube.com.evil.test/watch?v=dQw4w9WgXcQ')).toBeUndefined();
    expect(src('https://vimeo.com/channels/staff')).toBeUndefined();
  });

  it('never connects to a private address unless allowed: the answer is the plain link', async () => {
    let hits = 0;
    const server = createServer((_request, response) => {
      hits += 1;
      response.setHeader('content-type', 'text/html');
      response.end('<title>Internal admin</title>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/private-guard`;
      expect(await embedOf(url, false)).toEqual({ type: 'link', title: url, site: '127.0.0.1' });
      expect(hits).toBe(0);
      expect(await embedOf(`${url}?allowed`, true)).toMatchObject({ title: 'Internal admin' });
      expect(hits).toBe(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('answers every private form of the corpus without reading it: a 400 for another scheme, else the plain link', async () => {
    for (const [url, form, guard] of PRIVATE_URLS) {
      const answer = await embedOf(url, false).catch((error: unknown) => error);
      if (guard === 'scheme' && !(URL.parse(url)?.protocol ?? '').startsWith('http')) {
        expect(answer, form).toBeInstanceOf(ApiError);
        expect((answer as ApiError).status, form).toBe(400);
      } else {
        const parsed = new URL(url);
        parsed.username = '';
        parsed.password = '';
        expect(answer, form).toEqual({ type: 'link', title: parsed.toString(), site: parsed.hostname });
      }
    }
  });
});
