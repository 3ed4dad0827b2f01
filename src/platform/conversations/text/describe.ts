import { dot, type SparseVector } from './vectors.js';
import { termOf, tokenize } from './terms.js';
import type { Clusterable } from './cluster.js';

/**
 * What a cluster shows of itself, from its members: a label of its top terms, an icon chosen from
 * them, and its most central members (for its summary). Knows neither HTTP nor SQL.
 */

/** How many top terms a label has. */
export const LABEL_TERMS = 3;

/** Terms of a centroid by weight, highest first (ties in term order). */
export function topTerms(centroid: SparseVector, count: number): string[] {
  return [...centroid.entries()]
    .sort(([termA, a], [termB, b]) => b - a || (termA < termB ? -1 : termA > termB ? 1 : 0))
    .slice(0, count)
    .map(([term]) => term);
}

/** Items ordered by their similarity to a centroid, the most central first (ties by id). */
export function byCentrality<T extends Clusterable>(items: readonly T[], centroid: SparseVector): T[] {
  const score = new Map(items.map((item) => [item.id, dot(item.vector, centroid)]));
  return [...items].sort((a, b) => score.get(b.id)! - score.get(a.id)! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The words a cluster's terms were written as: for each term, how often each spelling occurs
 * (built from the members' texts with `addWords`).
 */
export type WordForms = Map<string, Map<string, number>>;

export function addWords(forms: WordForms, text: string): void {
  for (const { term, word } of tokenize(text)) {
    let spellings = forms.get(term);
    if (!spellings) {
      spellings = new Map();
      forms.set(term, spellings);
    }
    spellings.set(word, (spellings.get(word) ?? 0) + 1);
  }
}

/** The most frequent spelling of a term (ties: lower case first, then alphabetical); the term itself when unknown. */
function spelling(forms: WordForms, term: string): string {
  const spellings = forms.get(term);
  if (!spellings) return term;
  return [...spellings.entries()].sort(
    ([a, x], [b, y]) =>
      y - x || Number(a !== a.toLowerCase()) - Number(b !== b.toLowerCase()) || (a < b ? -1 : a > b ? 1 : 0),
  )[0]![0];
}

/**
 * A cluster's label: its `LABEL_TERMS` top terms, each in its most frequent spelling, in the
 * order they come in the title of its most central issue (terms absent from it after, by
 * weight); terms next to each other in that title are joined by a space ("permission denied"),
 * others by a comma. The first letter is upper case. "Other" for a cluster without terms.
 */
export function clusterLabel(centroid: SparseVector, forms: WordForms, centralTitle: string): string {
  const top = topTerms(centroid, LABEL_TERMS);
  if (top.length === 0) return 'Other';
  const titleTerms = tokenize(centralTitle).map((token) => token.term);
  const position = (term: string) => {
    const at = titleTerms.indexOf(term);
    return at < 0 ? Number.POSITIVE_INFINITY : at;
  };
  const ordered = top
    .map((term, weightRank) => ({ term, at: position(term), weightRank }))
    .sort((a, b) => a.at - b.at || a.weightRank - b.weightRank);
  let label = '';
  ordered.forEach((entry, index) => {
    const previous = ordered[index - 1];
    if (previous) label += Number.isFinite(entry.at) && entry.at === previous.at + 1 ? ' ' : ', ';
    label += spelling(forms, entry.term);
  });
  return label.charAt(0).toUpperCase() + label.slice(1);
}

/**
 * Icons (names of the platform's icon set) by the words of a domain. A cluster takes the icon of
 * the first of its top terms (by weight) found here; `comments` when none is.
 */
const ICON_WORDS: ReadonlyArray<[icon: string, words: string]> = [
  ['download', 'install installer installation setup upgrade downgrade version package npm docker helm binary'],
  ['lock', 'login logout password sso saml oauth authentication authenticate token session mfa 2fa signin'],
  [
    'credit-card',
    'billing invoice payment refund charge charged subscription plan pricing price card receipt seat seats',
  ],
  ['magnifying-glass', 'search results indexing indexed query'],
  ['code', 'api endpoint webhook sdk json graphql openapi curl'],
  ['code-branch', 'git github gitlab sync branch merge commit repository repo'],
  ['user-lock', 'permission permissions access role roles invite invitation member members guest'],
  ['gauge', 'slow performance latency timeout speed lag'],
  ['language', 'translation translate translated language locale'],
  ['file-export', 'export pdf print import'],
  ['globe', 'domain dns hostname ssl certificate https published publish site'],
  ['pen', 'editor editing formatting markdown table'],
  ['bell', 'notification notifications email emails alert'],
  ['gear', 'config configuration setting settings option options environment variable'],
];

/** How many top terms are looked up for an icon. */
const ICON_TERMS = 8;

const ICON_OF_TERM: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  for (const [icon, words] of ICON_WORDS) {
    for (const word of words.split(' ')) {
      const term = termOf(word);
      if (!map.has(term)) map.set(term, icon);
    }
  }
  return map;
})();

export const DEFAULT_ICON = 'comments';

/** A cluster's icon, from its top terms (see `ICON_WORDS`). */
export function clusterIcon(centroid: SparseVector): string {
  for (const term of topTerms(centroid, ICON_TERMS)) {
    const icon = ICON_OF_TERM.get(term);
    if (icon) return icon;
  }
  return DEFAULT_ICON;
}
