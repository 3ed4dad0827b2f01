import { z } from 'zod';
import { dateTime } from './common.js';

export const team = z.object({
  object: z.literal('team').optional(),
  id: z.string(),
  title: z.string(),
  members: z.number().int().default(0),
  spaces: z.number().int().default(0),
  createdAt: dateTime,
  permissions: z.object({ admin: z.boolean(), view: z.boolean() }).partial().default({}),
});
export type Team = z.infer<typeof team>;
