import { Agent, type Dispatcher, request } from 'undici';
import type { JSONDocument } from '../../document/model.js';
import { displayUrl } from '../outbound.js';
import { runInSlices, type Steps } from '../slices.js';

/**
 * The translator behind translation runs: something that turns texts of one language into
 * another. Two implementations: a LibreTranslate-compatible HTTP service (`TRANSLATOR_URL`), and,
 * without one, pseudo-localization, which needs nothing and makes every translated string
 * recognizable (accented look-alike letters, ~30% longer, in ⟦…⟧), the usual way to test an i18n
 * pipeline end to end.
 */

/** What a run asks the translator. */
export interface TranslationRequest {
  /** Texts to translate (runs of prose: no code, no URLs), in order. */
  texts: string[];
  /** Language codes of the platform (`TranslationLanguage`). */
  source: string;
  target: string;
  /**
   * The translation's instructions (tone, terms to keep). A translator that cannot use them
   * ignores them: LibreTranslate has no field for them, and pseudo-localization no use.
   */
  instructions: JSONDocument;
}

export interface Translator {
  /**
   * Names the translator and what decides its output; part of the fingerprint of each translated
   * page, so switching translators translates every page again on the next run.
   */
  readonly id: string;
  /** The translations of `request.texts`, in the same order. Throws a `TranslatorError` on failure. */
  translate(request: TranslationRequest): Promise<string[]>;
}

/** Why a translator failed, in words that are safe to show (no credentials). */
export class TranslatorError extends Error {
  override readonly name = 'TranslatorError';
  constructor(
    message: string,
    /** False when trying again cannot help (the service refused the request: a bad key, an unknown language). */
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------------------------
// Pseudo-localization
// ---------------------------------------------------------------------------------------------

const ACCENTED: Record<string, string> = Object.fromEntries(
  [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'].map((letter, index) => [
    letter,
    [...'áƀçðëƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇÐËƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ'][index]!,
  ]),
);

/** Share of its length a pseudo-localized text grows by, as translations from English often do. */
const EXPANSION = 0.3;

/**
 * Pseudo-localizes a text: ASCII letters become accented look-alikes, and the text is padded by
 * about 30% and wrapped in ⟦…⟧, so untranslated strings, truncation and hard-coded layouts show.
 * A text without letters (a number, punctuation) is returned as it is.
 */
export function pseudoLocalize(text: string): string {
  if (!/\p{L}/u.test(text)) return text;
  const accented = text.replace(/[A-Za-z]/g, (letter) => ACCENTED[letter] ?? letter);
  const padding = '·'.repeat(Math.max(1, Math.ceil([...text].length * EXPANSION)));
  return `⟦${accented}${padding}⟧`;
}

/** The offline translator: pseudo-localization, whatever the languages and instructions. */
export const pseudoTranslator: Translator = {
  id: 'pseudo',
  // A run's texts can number tens of thousands: localized a slice of time at a time.
  translate: ({ texts }) => runInSlices(localizeEach(texts)),
};

function* localizeEach(texts: readonly string[]): Steps<string[]> {
  const localized: string[] = [];
  for (const text of texts) {
    localized.push(pseudoLocalize(text));
    yield;
  }
  return localized;
}

// ---------------------------------------------------------------------------------------------
// LibreTranslate
// ---------------------------------------------------------------------------------------------

/**
 * Codes the platform writes differently from current LibreTranslate releases; every other
 * language code is sent as it is (a language the service lacks fails the run with its message).
 */
const LIBRETRANSLATE_CODES: Record<string, string> = { 'pt-br': 'pt-BR', zh: 'zh-Hans', 'zh-tw': 'zh-Hant', no: 'nb' };

export interface LibreTranslateOptions {
  /** Base URL of the service; texts are POSTed to `{url}/translate`. */
  url: string;
  /** Sent as `api_key` when set (services that require keys). Never shown in errors. */
  apiKey?: string | undefined;
  /** Time one request may take, in milliseconds. @default 30000 */
  timeoutMs?: number;
  /** Most texts in one request. @default 50 */
  batchSize?: number;
  /** Most characters in one request (a single longer text goes alone). @default 5000 */
  batchChars?: number;
}

const agent = new Agent({ connections: 4 });

/**
 * A translator calling a LibreTranslate-compatible service: `POST {url}/translate` with
 * `{ q: [texts], source, target, format: 'text', api_key? }`, answered `{ translatedText: [texts] }`,
 * texts sent in batches. Instructions are not sent: the API has no field for them.
 */
export function libreTranslator(options: LibreTranslateOptions): Translator {
  const endpoint = new URL(options.url);
  endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, '')}/translate`;
  const shown = displayUrl(endpoint);
  const timeout = options.timeoutMs ?? 30_000;
  const batchSize = options.batchSize ?? 50;
  const batchChars = options.batchChars ?? 5000;
  // A service may repeat what it was sent in its error messages: the key is masked out of them.
  const safe = (message: string) => (options.apiKey ? message.split(options.apiKey).join('***') : message);

  async function translateBatch(texts: string[], source: string, target: string): Promise<string[]> {
    const body = JSON.stringify({
      q: texts,
      source: LIBRETRANSLATE_CODES[source] ?? source,
      target: LIBRETRANSLATE_CODES[target] ?? target,
      format: 'text',
      ...(options.apiKey ? { api_key: options.apiKey } : {}),
    });
    const signal = AbortSignal.timeout(timeout);
    let response: Dispatcher.ResponseData;
    try {
      response = await request(endpoint, {
        method: 'POST',
        dispatcher: agent,
        signal,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'user-agent': 'docs-platform/1 (+translations)',
        },
        body,
      });
    } catch {
      if (signal.aborted)
        throw new TranslatorError(`the translator at ${shown} did not answer within ${timeout} ms`, true);
      throw new TranslatorError(`the translator at ${shown} could not be reached`, true);
    }
    let text: string;
    try {
      text = await response.body.text();
    } catch {
      throw new TranslatorError(`the translator at ${shown} broke off its answer`, true);
    }
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      answer = undefined;
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const said =
        typeof (answer as { error?: unknown } | undefined)?.error === 'string'
          ? `: ${(answer as { error: string }).error.slice(0, 200)}`
          : '';
      // 429 and 5xx may pass; any other refusal (bad key, unknown language) will not.
      const retryable = response.statusCode === 429 || response.statusCode >= 500;
      throw new TranslatorError(safe(`the translator at ${shown} answered ${response.statusCode}${said}`), retryable);
    }
    const translated = (answer as { translatedText?: unknown } | undefined)?.translatedText;
    const list = typeof translated === 'string' && texts.length === 1 ? [translated] : translated;
    if (!Array.isArray(list) || list.length !== texts.length || !list.every((item) => typeof item === 'string')) {
      throw new TranslatorError(
        `the translator at ${shown} did not answer { translatedText } with one text per text sent`,
        true,
      );
    }
    return list as string[];
  }

  return {
    id: 'libretranslate',
    async translate({ texts, source, target }) {
      const out: string[] = [];
      let batch: string[] = [];
      let chars = 0;
      for (const text of texts) {
        if (batch.length > 0 && (batch.length >= batchSize || chars + text.length > batchChars)) {
          out.push(...(await translateBatch(batch, source, target)));
          batch = [];
          chars = 0;
        }
        batch.push(text);
        chars += text.length;
      }
      if (batch.length > 0) out.push(...(await translateBatch(batch, source, target)));
      return out;
    },
  };
}

export interface TranslatorSettings {
  /** Base URL of a LibreTranslate-compatible service; pseudo-localization without it. */
  url?: string | undefined;
  apiKey?: string | undefined;
  timeoutMs?: number | undefined;
}

/** The translator the settings ask for: the service at `url`, else pseudo-localization. */
export function createTranslator(settings: TranslatorSettings = {}): Translator {
  if (!settings.url) return pseudoTranslator;
  return libreTranslator({
    url: settings.url,
    apiKey: settings.apiKey,
    ...(settings.timeoutMs ? { timeoutMs: settings.timeoutMs } : {}),
  });
}
