import { stemmer } from 'stemmer';

/**
 * Terms of support text: what the vectors, labels and icons of issues are made of. A text is cut
 * into words by `Intl.Segmenter` (Unicode word boundaries: "can't" stays one word, "e-mail" is
 * two), folded (NFKD, diacritics removed, lower case), stripped of stop words, of URLs and e-mail
 * addresses, of words without a letter (except three-digit numbers, which are status codes such
 * as 404 or 500) and of words longer than 40 characters (hashes, tokens), then stemmed with the
 * Porter stemmer, so "installing", "installer" and "installation" are one term. Each term keeps
 * the word it was written as, for labels. Knows neither HTTP nor SQL.
 */

/** One word of a text: its term (stem) and the word as written. */
export interface Token {
  term: string;
  word: string;
}

/** URLs and e-mail addresses: removed before words are cut, they are no vocabulary. */
const LINKS = /\b(?:(?:https?|ftp):\/\/|mailto:|www\.)[^\s<>"']+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+/giu;

/**
 * English function words and the small talk of support conversations ("hi", "thanks", "please",
 * "problem"): words every conversation has, which say nothing about what it is about.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above add added adding after again against ago all almost along already also although always am among an and another any anybody anyone
  anything anyway anywhere are aren't around as at away back be became because been before being below besides between both but by
  can can't cannot could couldn't did didn't do does doesn't doing don't done down during each either else enough etc even ever
  every everyone everything few for from further get gets getting got gotten had hadn't has hasn't have haven't having he her here
  hers herself him himself his how however i i'd i'll i'm i've ie if in instead into is isn't it it's its itself just keep let let's
  like lot lots made make makes making many may maybe me might mine more most much must my myself need needed needs neither never
  no nobody none nor not nothing now of off often on once one only onto or other others otherwise our ours ourselves out over own
  per perhaps quite rather really same see seem seemed seems seen several shall she should shouldn't since so some somebody someone
  something sometimes somewhat still such sure than that that's the their theirs them themselves then there there's these they
  they're thing things this those though through thus to together too toward towards try tried tries trying under until up upon
  us use used uses using very via want wanted wants was wasn't way we we'd we'll we're we've well were weren't what what's whatever
  when where whether which while who whom whose why will with within without won't would wouldn't yet you you'd you'll you're
  you've your yours yourself yourselves
  hi hello hey dear thanks thank thx ty please pls kindly regards cheers best appreciate appreciated sorry ok okay yes yeah hmm oh
  guys folks team support help question questions issue issues problem problems anybody someone ask asking wondering wonder
  work works worked working happen happens happened happening able know knew think thought look looks looking find trouble`
    .split(/\s+/)
    .filter(Boolean),
);

const words = new Intl.Segmenter('en', { granularity: 'word' });

/** Lower case without diacritics, with typographic apostrophes made plain. */
export function fold(word: string): string {
  return word
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .toLowerCase();
}

/** The tokens of a text, in order (stop words and non-words left out). */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const segment of words.segment(text.replace(LINKS, ' '))) {
    if (!segment.isWordLike) continue;
    const word = segment.segment.normalize('NFC');
    const folded = fold(word).replace(/'s$/, '');
    if (folded.length < 2 || folded.length > 40 || STOP_WORDS.has(folded)) continue;
    if (!/\p{L}/u.test(folded) && !/^\d{3}$/.test(folded)) continue;
    // Words with an apostrophe left (contractions not listed) stem on what comes before it.
    const term = stemmer(folded.replace(/'.*$/, ''));
    if (term.length < 2) continue;
    tokens.push({ term, word: word.replace(/['\u2019]s$/u, '') });
  }
  return tokens;
}

/** How often each term occurs in a text. */
export function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { term } of tokenize(text)) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/** The stem of one word (for keyword tables written as plain words). */
export function termOf(word: string): string {
  return stemmer(fold(word));
}
