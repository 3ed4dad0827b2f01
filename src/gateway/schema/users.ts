import type { User } from '../upstream/contract/types.js';
import { getCurrentUser, getUser } from '../upstream/users.js';
import { platformKey } from './kit/ids.js';
import { builder } from './kit/builder.js';
import { loadableNode, prime } from './kit/loaders.js';

/**
 * A user as the node reads it: the description's `User` with `object` and `urls` optional, as the
 * users embedded in answers still parsed with a hand-written shape (`shapes/common.ts`) are.
 */
type UserItem = Omit<User, 'object' | 'urls'> & { urls?: { location?: string | null | undefined } | null | undefined };

export const UserNode = loadableNode<UserItem>('User', {
  load: (id, ctx) => getUser(ctx.api, id),
});

UserNode.implement({
  description: 'A person with an account on the platform.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the user on the platform.' }),
    displayName: t.exposeString('displayName', { description: 'Full name.' }),
    email: t.string({
      nullable: true,
      description: 'E-mail address, when the platform shares it with you.',
      resolve: (user) => user.email ?? null,
    }),
    photoURL: t.string({
      nullable: true,
      description: 'URL of the profile picture.',
      resolve: (user) => user.photoURL ?? null,
    }),
    apiUrl: t.string({
      nullable: true,
      description: 'URL of this user in the REST API.',
      resolve: (user) => user.urls?.location ?? null,
    }),
  }),
});

builder.queryFields((t) => ({
  viewer: t.field({
    type: UserNode,
    description: 'The user whose token authorizes this request.',
    resolve: async (_root, _args, ctx) => {
      const viewer = await getCurrentUser(ctx.api);
      prime(UserNode, ctx, [viewer]);
      return viewer;
    },
  }),
  user: t.field({
    type: UserNode,
    nullable: true,
    description: 'A user by id (platform id or global ID); null with NOT_FOUND when not visible to you.',
    args: { id: t.arg.id({ required: true, description: 'Platform id or global ID of the user.' }) },
    resolve: (_root, args) => platformKey(String(args.id), 'User'),
  }),
}));
