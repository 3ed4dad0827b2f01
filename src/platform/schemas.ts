import { ExpressionError, parseExpression } from './adaptive/expression.js';
import { z } from 'zod';
import { ROLES } from './access.js';
import { LANGUAGES } from './contract/enums.js';

/** Request-body pieces shared by several route groups. */

export const roleSchema = z.enum(ROLES, { message: `must be one of ${ROLES.join(', ')}` });
export const roleOrGuestSchema = roleSchema.nullable();
export const teamRoleSchema = z.enum(['owner', 'member'], { message: 'must be owner or member' });

/** `inherit` or a role. */
export const defaultLevelSchema = z.union([z.literal('inherit'), roleSchema], {
  message: `must be inherit or one of ${ROLES.join(', ')}`,
});

const HTTP_URL_MAX = 2048;

/** An absolute `http:` or `https:` URL of at most 2048 characters, without whitespace or control characters. */
export const httpUrlSchema = z
  .string()
  .max(HTTP_URL_MAX, `must be an http or https URL of at most ${HTTP_URL_MAX} characters`)
  .refine(isHttpUrl, `must be an http or https URL of at most ${HTTP_URL_MAX} characters`);

function isHttpUrl(value: string): boolean {
  // The URL parser forgives what the stored text must not hold: whitespace and control characters
  // (dropped or trimmed), and backslashes or extra slashes after the scheme (`https:///x`, `https:\\x`).
  if (/[\s\p{Cc}]/u.test(value) || !/^https?:\/\/[^/\\]/i.test(value)) return false;
  const url = URL.parse(value);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

// One emoji: a flag (pair of regional indicators), a keycap, or a pictographic character with an
// optional variation selector, skin-tone modifier and tag sequence (subdivision flags).
const EMOJI_PIECE = String.raw`(?:\p{RI}\p{RI}|[0-9#*]\uFE0F?\u20E3|\p{Extended_Pictographic}[\uFE0E\uFE0F]?\p{Emoji_Modifier}?(?:[\u{E0020}-\u{E007E}]+\u{E007F})?)`;
const EMOJI_SEQUENCE = new RegExp(`^${EMOJI_PIECE}(?:\\u200D?${EMOJI_PIECE})*$`, 'u');
const HEX_CODE_POINTS = /^[0-9a-f]{1,6}(?:-[0-9a-f]{1,6})*$/i;

/**
 * Is `value` an emoji: one or more emoji characters (ZWJ sequences, variation selectors,
 * skin tones and flags included), or their code points in hex (`1f600`, `1f1e9-1f1ea`)?
 */
export function isEmoji(value: string): boolean {
  if (EMOJI_SEQUENCE.test(value)) return true;
  if (!HEX_CODE_POINTS.test(value)) return false;
  const codePoints = value.split('-').map((hex) => Number.parseInt(hex, 16));
  if (codePoints.some((cp) => cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))) return false;
  return EMOJI_SEQUENCE.test(String.fromCodePoint(...codePoints));
}

/** A space emoji: the character(s) of an emoji or its code point in hex, at most 50 characters. */
export const emojiSchema = z
  .string()
  .max(50, 'must be at most 50 characters')
  .refine(isEmoji, 'must be an emoji such as 😀 or its code point in hex such as 1f600');

export const domainSchema = z
  .string()
  .regex(
    /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i,
    'must be a domain name such as example.com',
  );

/** A node of a rich-text document: a block, an inline or a text (after `documentSchema`). */
type DocumentNode =
  | { object: 'block' | 'inline'; type: string; nodes?: DocumentNode[] | undefined; [key: string]: unknown }
  | { object: 'text'; leaves: DocumentLeaf[]; [key: string]: unknown };

interface DocumentLeaf {
  object: 'leaf';
  text: string;
  marks: Array<{ object: 'mark'; type: string; [key: string]: unknown }>;
  [key: string]: unknown;
}

const nodeType = z
  .string({ message: 'is required: the type of the node, such as paragraph' })
  .min(1, 'is required: the type of the node, such as paragraph');

// `object` of a leaf and of a mark can only be `leaf` and `mark`: clients may leave them out, and
// a leaf without marks has none; answers always carry both, as the API description requires.
const markSchema = z.looseObject({ object: z.literal('mark').default('mark'), type: nodeType });
const leafSchema = z.looseObject({
  object: z.literal('leaf').default('leaf'),
  text: z.string({ message: 'must be a string' }),
  marks: z.array(markSchema).default([]),
});
const textNodeSchema = z.looseObject({ object: z.literal('text'), leaves: z.array(leafSchema) });

const childNodes: z.ZodType<DocumentNode[]> = z.lazy(() => z.array(nodeSchema));
const blockNodeSchema = z.looseObject({ object: z.literal('block'), type: nodeType, nodes: childNodes.optional() });
const inlineNodeSchema = z.looseObject({ object: z.literal('inline'), type: nodeType, nodes: childNodes.optional() });
const nodeSchema = z.discriminatedUnion('object', [blockNodeSchema, inlineNodeSchema, textNodeSchema], {
  message: 'must be a node whose object is block, inline or text',
});

/**
 * A rich-text document: blocks at the top, every block and inline node with its `type`, text
 * nodes with their leaves. Node-specific fields pass through unchanged; leaves and marks get
 * their implied `object` (and leaves their `marks`) filled in.
 */
export const documentSchema = z.object({
  object: z.literal('document'),
  data: z.record(z.string(), z.unknown()),
  nodes: z.array(
    z.looseObject({
      object: z.literal('block', { message: 'must be block: the top level of a document holds blocks' }),
      type: nodeType,
      nodes: childNodes.optional(),
    }),
  ),
  meta: z.record(z.string(), z.unknown()).optional(),
});

/**
 * A stored document in the form answers carry (see `documentSchema`); one stored before that
 * form was enforced is completed the same way, and anything unreadable is returned as stored.
 */
export function normalizedDocument(stored: unknown): unknown {
  const parsed = documentSchema.safeParse(stored);
  return parsed.success ? parsed.data : stored;
}

export { LANGUAGES };
export const languageSchema = z.enum(LANGUAGES, { message: 'must be a supported language code such as en or fr' });

/** Merge rules that name users: who must review, one of whom must review, who may bypass. */
export const USER_MERGE_RULES = [
  'require_specific_reviewers',
  'require_one_of_specific_reviewers',
  'allow_bypass',
] as const;

/** Merge rules that stand alone. */
export const PLAIN_MERGE_RULES = [
  'require_at_least_one_review',
  'require_at_least_one_approved_review',
  'require_all_reviews_approved',
  'require_up_to_date_change_request',
  'require_change_request_subject',
  'require_change_request_description',
  'require_author_to_merge',
] as const;

/**
 * One merge rule. The platform evaluates every kind it accepts; agent reviews and custom
 * expressions are refused (there is no review agent, and expressions are not evaluated).
 */
export const mergeRuleSchema = z.union([
  z.strictObject({ rule: z.enum(USER_MERGE_RULES), users: z.array(z.string().min(1)).min(1) }),
  z.strictObject({
    rule: z.enum(PLAIN_MERGE_RULES, {
      message: `must be one of ${[...USER_MERGE_RULES, ...PLAIN_MERGE_RULES].join(', ')}`,
    }),
  }),
]);

export type MergeRule = z.infer<typeof mergeRuleSchema>;

/** Merge rules of an organization: none, or explicit rules. */
export const organizationMergeRulesSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('none') }),
  z.strictObject({ type: z.literal('rules'), rules: z.array(mergeRuleSchema).max(50, 'must list at most 50 rules') }),
]);

/** Merge rules of a space: those of an organization, or `inherit` (from the organization). */
export const spaceMergeRulesSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('inherit') }),
  ...organizationMergeRulesSchema.options,
]);

export type SpaceMergeRules = z.infer<typeof spaceMergeRulesSchema>;

/**
 * A sibling to move next to. The documented form is `{ type: 'space', space: <id> }` for
 * spaces and collections alike; `{ type: 'collection', collection: <id> }` is accepted too.
 */
const pointerSchema = z.union([
  z.strictObject({ type: z.literal('space'), space: z.string().min(1) }),
  z.strictObject({ type: z.literal('collection'), collection: z.string().min(1) }),
]);

export const movePositionSchema = z
  .strictObject({ before: pointerSchema, after: pointerSchema })
  .partial()
  .refine((p) => (p.before ? 1 : 0) + (p.after ? 1 : 0) === 1, 'must set exactly one of before or after');

export type MovePosition = z.infer<typeof movePositionSchema>;

export function pointerId(position: MovePosition): { id: string; placement: 'before' | 'after' } {
  const pointer = (position.before ?? position.after)!;
  return {
    id: 'space' in pointer ? pointer.space : pointer.collection,
    placement: position.before ? 'before' : 'after',
  };
}

/** A condition (of a page, site space or section): at most 1024 characters, in the language the platform evaluates. */
export const conditionSchema = z
  .string()
  .max(1024, 'must be at most 1024 characters')
  .superRefine((value, context) => {
    if (value.trim() === '') return;
    try {
      parseExpression(value);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      context.addIssue({ code: 'custom', message: `is not a condition the platform can evaluate: ${error.message}` });
    }
  });
