import { z } from 'zod';
import { role, roleOrGuest, user, url } from './common.js';

export const collection = z.object({
  object: z.literal('collection'),
  id: z.string(),
  title: z.string(),
  description: z.string().nullish(),
  organization: z.string(),
  parent: z.string().nullish(),
  defaultLevel: z.union([role, z.literal('inherit')]).nullish(),
  urls: z.object({ location: url.nullish(), app: url.nullish() }),
  permissions: z
    .object({ view: z.boolean(), admin: z.boolean(), viewInviteLinks: z.boolean(), create: z.boolean() })
    .partial(),
});
export type Collection = z.infer<typeof collection>;

export const userPermission = z.object({ permission: roleOrGuest, user });
export type UserPermission = z.infer<typeof userPermission>;
