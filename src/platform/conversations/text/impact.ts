import { fold } from './terms.js';
import { CONVERSATION_IMPACTS } from '../../contract/enums.js';

/**
 * The estimated end-user impact of an issue, from signals in the user's own words (the levels of
 * the platform's description of conversation issues):
 * - `low`: minor friction; the user can go on with little or no guidance;
 * - `medium`: noticeable friction or partial blocking: a blocking word ("can't", "unable",
 *   "stuck", "blocked", "crash", "urgent", "production"…) or repetition ("again", "still",
 *   "every time", "keeps"…, or the same problem raised in more than one message of the user);
 * - `high`: fully blocking and repeated (both signals above), or a risk of data loss ("lost",
 *   "deleted", "disappeared", "wiped", "corrupted", "overwritten"…).
 * Knows neither HTTP nor SQL.
 */

export const IMPACTS = CONVERSATION_IMPACTS;
export type Impact = (typeof IMPACTS)[number];

export interface ImpactSignals {
  blocking: boolean;
  repetition: boolean;
  dataLoss: boolean;
}

const BLOCKING =
  /\b(?:can'?t|cannot|can not|couldn'?t|unable|impossible|stuck|block(?:ed|ing|s|er)?|no way to|won'?t (?:start|load|open|run|save|build|deploy|publish)|crash(?:es|ed|ing)?|outage|(?:is|are|went) down|urgent(?:ly)?|asap|critical|production|prod|nothing works|completely broken|show-?stopper|at all|locked out)\b/u;

const REPETITION =
  /\b(?:again|still|keeps?|kept|every time|each time|everytime|repeatedly|several times|multiple times|many times|(?:second|third|fourth|fifth) time|over and over|for (?:days|weeks|hours)|same (?:error|problem|issue|thing)|recurring|re-?occurr?(?:ing|ed|s)?|always)\b/u;

const DATA_LOSS =
  /\b(?:data loss|lost (?:all|my|our|the|some|every|work|data|content|changes|pages?)|los(?:e|ing) (?:all|my|our|the|data|content|changes|work)|(?:got |were |was |been )?(?:deleted|wiped|erased)|disappear(?:ed|s|ing)?|vanish(?:ed|es)?|corrupt(?:ed|ion|s)?|overwr(?:itten|ote|ites)|gone missing|is gone|are gone|missing (?:data|content|pages?|changes))\b/u;

/** The signals found in a text (the words of one issue). */
export function impactSignals(text: string): ImpactSignals {
  const folded = fold(text);
  return { blocking: BLOCKING.test(folded), repetition: REPETITION.test(folded), dataLoss: DATA_LOSS.test(folded) };
}

/** The impact that signals give (see the module's description). */
export function impactOf(signals: ImpactSignals): Impact {
  if (signals.dataLoss || (signals.blocking && signals.repetition)) return 'high';
  if (signals.blocking || signals.repetition) return 'medium';
  return 'low';
}

export const impactRank = (impact: Impact): number => IMPACTS.indexOf(impact);

/** The higher of impacts; `low` for none. */
export function maxImpact(impacts: Iterable<Impact>): Impact {
  let best: Impact = 'low';
  for (const impact of impacts) if (impactRank(impact) > impactRank(best)) best = impact;
  return best;
}

/**
 * The impact of a cluster: the highest impact that at least a quarter of its issues reach (a
 * `high` issue counts as `medium` too), so one loud issue does not make a large cluster high and
 * a small cluster takes the impact of its worst issue.
 */
export function clusterImpact(impacts: readonly Impact[]): Impact {
  if (impacts.length === 0) return 'low';
  const quorum = Math.ceil(impacts.length / 4);
  const atLeast = (level: Impact) => impacts.filter((impact) => impactRank(impact) >= impactRank(level)).length;
  if (atLeast('high') >= quorum) return 'high';
  if (atLeast('medium') >= quorum) return 'medium';
  return 'low';
}
