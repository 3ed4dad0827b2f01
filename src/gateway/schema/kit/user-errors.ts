import type { Budget } from '../../errors.js';
import { builder } from './builder.js';

/** Why a mutation could not be carried out: every payload's `userErrors` say it with one of these. */
export const USER_ERROR_CODES = [
  'BAD_USER_INPUT',
  'NOT_FOUND',
  'FORBIDDEN',
  'CONFLICT',
  'PRECONDITION_FAILED',
] as const;
export type UserErrorCode = (typeof USER_ERROR_CODES)[number];

export const UserErrorCodeEnum = builder.enumType('UserErrorCode', {
  description: 'Why a mutation could not be carried out.',
  values: {
    BAD_USER_INPUT: { description: 'The input is invalid: `field` names the culprit when known.' },
    NOT_FOUND: { description: 'A resource named by the input does not exist or is not visible to you.' },
    FORBIDDEN: { description: 'Your role does not allow this change.' },
    CONFLICT: { description: 'The change conflicts with the current state (for example: nothing to update).' },
    PRECONDITION_FAILED: { description: 'The resource is not in a state that allows this change.' },
  },
});

export interface UserErrorShape {
  message: string;
  code: UserErrorCode;
  field: string[] | null;
  upstreamStatus: number | null;
  /** The budget the input went past, when that is why it was refused. */
  budget?: Budget | null | undefined;
}

export const UserError = builder.objectRef<UserErrorShape>('UserError').implement({
  description: 'An expected failure of a mutation: nothing was changed by the failing step.',
  fields: (t) => ({
    message: t.exposeString('message', { description: 'What went wrong, for people.' }),
    code: t.field({ type: UserErrorCodeEnum, description: 'What went wrong, for programs.', resolve: (e) => e.code }),
    field: t.exposeStringList('field', {
      nullable: true,
      description: 'Path of the input field at fault, from the root of `input` (for example `["title"]`).',
    }),
    upstreamStatus: t.exposeInt('upstreamStatus', {
      nullable: true,
      description: 'HTTP status of the platform when the platform refused the change.',
    }),
    limit: t.string({
      nullable: true,
      description:
        'The budget the input went past (`markdownBytes`, `markdownNodes`, `documentBytes`, `uploadBytes`…), when that is why it was refused; `value` and `max` say by how much.',
      resolve: (e) => e.budget?.limit ?? null,
    }),
    value: t.float({
      nullable: true,
      description: 'What was counted of the input against `limit` (bytes, nodes…), when it was refused for it.',
      resolve: (e) => e.budget?.value ?? null,
    }),
    max: t.float({
      nullable: true,
      description: 'The most `limit` allows, when the input was refused for it.',
      resolve: (e) => e.budget?.max ?? null,
    }),
  }),
});
