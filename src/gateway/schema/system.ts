import type { ApiInformation } from '../upstream/contract/types.js';
import * as op from '../upstream/contract/operations.js';
import { builder } from './kit/builder.js';
import { upstream } from './kit/upstream-cost.js';

const ApiInfo = builder.objectRef<ApiInformation>('ApiInfo').implement({
  description: 'The release of the platform behind this graph, as its API reports it.',
  fields: (t) => ({
    version: t.exposeString('version', { description: 'The platform’s current release.' }),
    build: t.field({
      type: 'DateTime',
      description: 'When that release was built.',
      resolve: (info) => info.build,
    }),
  }),
});

builder.queryFields((t) => ({
  apiInfo: t.field({
    type: ApiInfo,
    description: 'The release of the platform behind this graph: its version and build date.',
    extensions: upstream.fetch(1),
    resolve: (_root, _args, ctx) => ctx.api.read(op.getApiInformation, {}),
  }),
}));
