import { impactOf, impactSignals, type Impact, type ImpactSignals } from './impact.js';
import { sentences, shorten } from './sentences.js';
import { runAtOnce, type Steps } from '../../slices.js';
import { fold, tokenize } from './terms.js';
import { cosine } from './vectors.js';

/**
 * Splits a conversation into issues: one per distinct problem the user raises, found by sentence
 * segmentation and similarity (not one issue per message). Knows neither HTTP nor SQL.
 *
 * 1. The user's words: the sentences (see `sentences.ts`) of the messages of role `user` (of
 *    every message when none has that role: some sources do not tell who wrote what). Answers
 *    of agents and bots are not the user's problems.
 * 2. Informative sentences: those with at least `MIN_TERMS` terms (see `terms.ts`) that do not
 *    close the conversation ("Never mind, I found it"). The others ("Hi!", "Any update?",
 *    "Still broken.") join no issue, but their impact signals count for the issue under
 *    discussion ("Still broken" is repetition).
 * 3. Grouping, in order: a sentence joins the issue whose words it shares most (cosine of term
 *    counts at least `JOIN_SIMILARITY`), unless it opens with a change of topic ("Also,",
 *    "Another thing", "Separately"…). Otherwise a sentence that raises a problem (an error or
 *    failure word, a negation, "no results", a question…) and does not point back ("It…",
 *    "Sure, …", "the same error") opens a new issue; any other sentence adds detail to the issue
 *    under discussion (the last one that grew), or waits for the first issue when none is open
 *    yet. When nothing raised a problem, the informative sentences are one issue (a feature
 *    request, feedback). At most `MAX_ISSUES` issues: past them, a sentence joins the issue it
 *    is most similar to.
 * 4. The subject names the conversation: it is the title (and part of the words) of its only
 *    issue, or the issue itself when the messages said nothing informative. The subject of a
 *    conversation of several issues may name any or all of them ("SSO and rate limits"): it is
 *    left out.
 * 5. Each issue: a title (the subject, else its first sentence that raises a problem, without an
 *    opening such as "Also,", at most `MAX_TITLE_LENGTH` characters), its sentences as details
 *    (one paragraph per message), its impact from its sentences and from repetition across
 *    messages (see `impact.ts`), and its term counts.
 */

export interface ConversationInput {
  subject?: string | undefined;
  parts: ReadonlyArray<{ role: string; body: string }>;
}

export interface IssueDraft {
  title: string;
  /** The issue's sentences, by message, in order (without the subject). */
  paragraphs: string[][];
  impact: Impact;
  signals: ImpactSignals;
  /** Term counts of the issue's sentences and subject. */
  terms: Map<string, number>;
  /** Every word of the issue as written, for labels. */
  text: string;
}

export const MIN_TERMS = 2;
export const JOIN_SIMILARITY = 0.15;
export const MAX_ISSUES = 8;
export const MAX_TITLE_LENGTH = 120;

/** Words that raise a problem: failures, errors, negations, requests for help, questions. */
const PROBLEM =
  /\b(?:error|errors|fail(?:s|ed|ing|ure)?|broken|break(?:s|ing)?|bug|bugs|crash(?:es|ed|ing)?|loops?|looping|stopped|can'?t|cannot|can not|couldn'?t|unable|doesn'?t|don'?t|didn'?t|won'?t|isn'?t|aren'?t|wasn'?t|not|no|nothing|zero|empty|no longer|never (?:works?|loads?|finish(?:es)?|completes?|arrives?|shows?)|wrong|missing|stuck|denied|invalid|refus(?:e|es|ed)|reject(?:s|ed)?|timed? ?out|expired|lost|disappear(?:ed|s)?|confus(?:ing|ed)|unclear|slow|how (?:do|can|to|should)|is there (?:a|any) way|why|where|what'?s the)\b|\?/u;

/** Openings that change the topic. */
const NEW_TOPIC =
  /^(?:also|another (?:thing|issue|problem|question)|separately|one more thing|unrelated(?:ly)?|on another note|on a different note|additionally|second(?:ly)?|besides|and another|oh,? and|p\.?s\.?|btw|by the way|different (?:question|issue|topic))\b/u;

/**
 * Sentences that point back to what was said: openings with a pronoun or an answer to an agent
 * ("Sure, …", "Yes, …", "Still …"), endings with a pronoun, "the same error".
 */
const POINTS_BACK =
  /^(?:it|it's|this|that|these|those|they|which|same|then|so|but|and|sure|yes|yeah|yep|no|nope|ok|okay|right|exactly|indeed|still)\b|\b(?:it|them|this one|that one)\W*$|\bsame (?:error|problem|issue|thing|message|result)\b/u;

/** Sentences that close a conversation rather than raise anything ("Never mind, I found it"). */
const RESOLVED =
  /\b(?:never ?mind|found (?:it|the answer|the solution|a solution)|figured (?:it )?out|that worked|(?:it )?works now|solved|resolved|all good|no longer needed)\b/u;

interface Unit {
  /** -1 for the subject, else the index of the message among the user's messages. */
  message: number;
  text: string;
  terms: Map<string, number>;
}

interface Group {
  units: Unit[];
  terms: Map<string, number>;
  /** Texts that count for the impact: the group's sentences and the short ones said about it. */
  signalText: string[];
  messages: Set<number>;
}

function counts(text: string): Map<string, number> {
  const map = new Map<string, number>();
  for (const { term } of tokenize(text)) map.set(term, (map.get(term) ?? 0) + 1);
  return map;
}

function addCounts(into: Map<string, number>, from: ReadonlyMap<string, number>): void {
  for (const [term, count] of from) into.set(term, (into.get(term) ?? 0) + count);
}

/**
 * The issues of a conversation, in the order they were first raised (none when nothing informative
 * was said). The platform runs the steps (`splitIssuesSteps`, inside an ingest's); this form, the
 * same steps at once, is kept as the splitter's plain entry point, which the unit tests call and
 * compare the steps with.
 */
export function splitIssues(conversation: ConversationInput): IssueDraft[] {
  return runAtOnce(splitIssuesSteps(conversation));
}

/** `splitIssues` in steps (see `slices.ts`): a pause after each sentence read. */
export function* splitIssuesSteps(conversation: ConversationInput): Steps<IssueDraft[]> {
  const parts = conversation.parts.some((part) => part.role.toLowerCase() === 'user')
    ? conversation.parts.filter((part) => part.role.toLowerCase() === 'user')
    : conversation.parts;
  const units: Unit[] = [];
  for (const [message, part] of parts.entries()) {
    for (const text of sentences(part.body)) {
      units.push({ message, text, terms: counts(text) });
      yield;
    }
  }

  const groups: Group[] = [];
  let pending: Unit[] = [];
  let pendingSignals: string[] = [];
  let current: Group | undefined;
  const open = (unit: Unit): Group => {
    const group: Group = {
      units: [...pending, unit],
      terms: new Map(),
      signalText: [...pendingSignals],
      messages: new Set(),
    };
    for (const member of group.units) {
      addCounts(group.terms, member.terms);
      group.signalText.push(member.text);
      group.messages.add(member.message);
    }
    pending = [];
    pendingSignals = [];
    groups.push(group);
    return group;
  };
  const join = (group: Group, unit: Unit) => {
    group.units.push(unit);
    addCounts(group.terms, unit.terms);
    group.signalText.push(unit.text);
    group.messages.add(unit.message);
  };

  /** Makes the sentences waiting for an issue an issue of their own. */
  const openPending = () => {
    const [first, ...rest] = pending;
    pending = [];
    const group = open(first!);
    for (const unit of rest) join(group, unit);
  };

  for (const unit of units) {
    const folded = fold(unit.text);
    if (unit.terms.size < MIN_TERMS || RESOLVED.test(folded)) {
      if (current) current.signalText.push(unit.text);
      else pendingSignals.push(unit.text);
      continue;
    }
    let best: Group | undefined;
    let bestSimilarity = -1;
    for (const group of groups) {
      const similarity = cosine(unit.terms, group.terms);
      if (similarity > bestSimilarity) {
        best = group;
        bestSimilarity = similarity;
      }
    }
    const newTopic = NEW_TOPIC.test(folded);
    const raises = PROBLEM.test(folded) && !POINTS_BACK.test(folded);
    if (best && !newTopic && bestSimilarity >= JOIN_SIMILARITY) {
      current = best;
      join(current, unit);
    } else if ((raises || newTopic) && groups.length < MAX_ISSUES) {
      // What waited for an issue was another topic than the one this sentence changes to.
      if (newTopic && pending.length > 0) openPending();
      current = open(unit);
    } else if (groups.length >= MAX_ISSUES) {
      current = best!;
      join(current, unit);
    } else if (current) join(current, unit);
    else pending.push(unit);
  }
  // Nothing raised a problem: what was said is one issue, if anything informative was.
  if (groups.length === 0 && pending.length > 0) openPending();

  // The subject names the conversation: the title of its only issue (or the issue itself when
  // the messages said nothing informative). A conversation of several issues has a subject that
  // may name any or all of them ("SSO and rate limits"): it is left out.
  const subject = conversation.subject?.replace(/\s+/g, ' ').trim();
  const subjectUnit: Unit | undefined = subject ? { message: -1, text: subject, terms: counts(subject) } : undefined;
  if (subjectUnit && subjectUnit.terms.size >= MIN_TERMS && groups.length <= 1) {
    const group = groups[0] ?? open(subjectUnit);
    if (group.units[0] !== subjectUnit) {
      group.units.unshift(subjectUnit);
      addCounts(group.terms, subjectUnit.terms);
      group.signalText.push(subjectUnit.text);
    }
  }

  return groups.map((group) => draft(group));
}

/** A sentence as a title: without an opening that changes the topic, capitalized, shortened. */
function titleOf(text: string): string {
  const match = NEW_TOPIC.exec(fold(text));
  const rest = match ? text.slice(match[0].length).replace(/^[\s,;:.-]+/u, '') : text;
  const title = rest || text;
  return shorten(title.charAt(0).toUpperCase() + title.slice(1), MAX_TITLE_LENGTH);
}

function draft(group: Group): IssueDraft {
  const subject = group.units.find((unit) => unit.message === -1);
  const titleUnit = subject ?? group.units.find((unit) => PROBLEM.test(fold(unit.text))) ?? group.units[0]!;
  const paragraphs: string[][] = [];
  let lastMessage: number | undefined;
  for (const unit of group.units) {
    if (unit === subject) continue;
    if (unit.message !== lastMessage) paragraphs.push([]);
    paragraphs[paragraphs.length - 1]!.push(unit.text);
    lastMessage = unit.message;
  }
  if (paragraphs.length === 0) paragraphs.push([titleUnit.text]);
  const signals = impactSignals(group.signalText.join('\n'));
  // The same problem raised again in a later message of the user is repetition too.
  const userMessages = [...group.messages].filter((message) => message >= 0);
  if (userMessages.length > 1) signals.repetition = true;
  return {
    title: titleOf(titleUnit.text),
    paragraphs,
    impact: impactOf(signals),
    signals,
    terms: group.terms,
    text: group.units.map((unit) => unit.text).join('\n'),
  };
}
