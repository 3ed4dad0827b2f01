import {
  DirectiveLocation,
  GraphQLBoolean,
  GraphQLDirective,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLString,
} from 'graphql';

/**
 * `@defer` and `@stream`, as the incremental delivery proposal defines them (their arguments are the
 * ones graphql-yoga's executor reads). Declared with the schema, so that `schema.graphql`, GraphiQL
 * and codegen know them; `useDeferStream` finds them there and leaves the schema as it is.
 */
export const deferDirective = new GraphQLDirective({
  name: 'defer',
  description:
    'Sends this fragment after the rest of the answer, in a later payload (`multipart/mixed` or `text/event-stream`), so the first payload does not wait for its upstream requests.',
  locations: [DirectiveLocation.FRAGMENT_SPREAD, DirectiveLocation.INLINE_FRAGMENT],
  args: {
    if: {
      type: new GraphQLNonNull(GraphQLBoolean),
      defaultValue: true,
      description: 'Deferred when true (the default); false sends the fragment with the rest.',
    },
    label: {
      type: GraphQLString,
      description: 'Names the later payload that carries the fragment (`label` of its `incremental` entry).',
    },
  },
});

export const streamDirective = new GraphQLDirective({
  name: 'stream',
  description:
    'Sends the items of this list one by one after the first `initialCount`, in later payloads, as they resolve.',
  locations: [DirectiveLocation.FIELD],
  args: {
    if: {
      type: new GraphQLNonNull(GraphQLBoolean),
      defaultValue: true,
      description: 'Streamed when true (the default); false sends the whole list with the rest.',
    },
    label: {
      type: GraphQLString,
      description: 'Names the later payloads that carry the items (`label` of their `incremental` entries).',
    },
    initialCount: {
      type: GraphQLInt,
      defaultValue: 0,
      description: 'Items sent in the first payload, before the rest are streamed.',
    },
  },
});
