import { z } from 'zod';
import { ROLES } from '../access.js';

/** Request-body pieces shared by several route groups. */

export const roleSchema = z.enum(ROLES, { message: `must be one of ${ROLES.join(', ')}` });
export const roleOrGuestSchema = roleSchema.nullable();
export const teamRoleSchema = z.enum(['owner', 'member'], { message: 'must be owner or member' });

/** `inherit` or a role. */
export const defaultLevelSchema = z.union([z.literal('inherit'), roleSchema], {
  message: `must be inherit or one of ${ROLES.join(', ')}`,
});

export const domainSchema = z
  .string()
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, 'must be a domain name such as example.com');

/** A rich-text document. */
export const documentSchema = z.object({
  object: z.literal('document'),
  data: z.record(z.string(), z.unknown()),
  nodes: z.array(z.unknown()),
  meta: z.record(z.string(), z.unknown()).optional(),
});

export const LANGUAGES = [
  'en', 'fr', 'de', 'es', 'it', 'pt', 'pt-br', 'ru', 'ja', 'zh', 'zh-tw', 'yue', 'ko', 'ar', 'hi', 'nl', 'pl', 'tr',
  'sv', 'no', 'da', 'fi', 'el', 'cs', 'hu', 'ro', 'th', 'vi', 'id', 'ms', 'he', 'uk', 'sk', 'bg', 'hr', 'lt', 'lv',
  'et', 'sl',
] as const;
export const languageSchema = z.enum(LANGUAGES, { message: 'must be a supported language code such as en or fr' });

/** Merge rules of an organization: none, or explicit rules. */
export const organizationMergeRulesSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('none') }),
  z.strictObject({
    type: z.literal('rules'),
    rules: z.array(
      z.strictObject({ rule: z.literal('require_specific_reviewers'), users: z.array(z.string().min(1)).min(1) }),
    ),
  }),
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
  return { id: 'space' in pointer ? pointer.space : pointer.collection, placement: position.before ? 'before' : 'after' };
}
