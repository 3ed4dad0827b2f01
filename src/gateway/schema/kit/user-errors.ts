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
  }),
});
