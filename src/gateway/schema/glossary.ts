import { z } from 'zod';
import * as op from '../upstream/contract/operations.js';
import type { GlossaryEntry, TranslationLanguage } from '../upstream/contract/types.js';
import { listOf } from '../upstream/operation.js';
import { builder } from './kit/builder.js';
import { listConnection, mapNodes } from './kit/connections.js';
import { ownedIdInput } from './kit/ids.js';
import { linkTo, organizationNode, primeInOrganization } from './kit/loaders.js';
import { declareMutation, inputField, inputObject } from './kit/mutations.js';
import { payloadType } from './kit/payloads.js';
import { restEnum } from './kit/enums.js';
import { upstream } from './kit/upstream-cost.js';
import { OrganizationNode, organizationIdField } from './organizations.js';
import { LanguageEnum } from './translations.js';

/**
 * The translation glossary of an organization (admins): entries giving one term in several
 * languages, which translation runs keep (a run from English into French writes the entry's French
 * term wherever the English one is). A `GlossaryEntry`'s global ID carries its organization.
 */

export const GlossaryEntryNode = organizationNode<GlossaryEntry>('GlossaryEntry', (organizationId, id, ctx) =>
  ctx.api.read(op.getGlossaryEntry, { organizationId, glossaryEntryId: id }),
);

type Term = { language: TranslationLanguage; term: string };

const termsOf = (entry: GlossaryEntry): Term[] =>
  Object.entries(entry.translations).map(([language, term]) => ({ language: language as TranslationLanguage, term }));

const GlossaryTerm = builder.objectRef<Term>('GlossaryTerm').implement({
  description: 'A glossary entry’s term in one language.',
  fields: (t) => ({
    language: t.field({ type: LanguageEnum, description: 'The language.', resolve: (term) => term.language }),
    term: t.exposeString('term', { description: 'The term in that language.' }),
  }),
});

GlossaryEntryNode.implement({
  description: 'An entry of an organization’s translation glossary: one term, as it is said in each language.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the entry on the platform.' }),
    terms: t.field({
      type: [GlossaryTerm],
      description: 'The term in each language the entry gives.',
      resolve: termsOf,
    }),
    term: t.string({
      nullable: true,
      description: 'The term in one language; null when the entry does not give it.',
      args: { language: t.arg({ type: LanguageEnum, required: true, description: 'The language.' }) },
      resolve: (entry, args) => entry.translations[args.language] ?? null,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was added.', resolve: (entry) => entry.createdAt }),
    updatedAt: t.field({ type: 'DateTime', description: 'When it last changed.', resolve: (entry) => entry.updatedAt }),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization whose glossary it is in.',
      extensions: upstream.link,
      resolve: (entry, _args, _ctx, info) => linkTo(OrganizationNode, entry.organizationId, info),
    }),
  }),
});

const GlossaryEdge = builder.edgeObject({
  type: GlossaryEntryNode,
  name: 'GlossaryEntryEdge',
  description: 'A glossary entry of a list, with its cursor.',
});

const GlossaryConnection = builder.connectionObject(
  {
    type: GlossaryEntryNode,
    name: 'GlossaryEntryConnection',
    description: 'A page of glossary entries, with the size of the whole list.',
  },
  GlossaryEdge,
);

builder.objectFields(OrganizationNode, (t) => ({
  glossary: t.connection(
    {
      type: GlossaryEntryNode,
      nullable: true,
      description:
        'The translation glossary (admins; FORBIDDEN for others): oldest first, or by their term in `orderBy`’s language (entries without it last).',
      args: {
        orderBy: t.arg({ type: LanguageEnum, description: 'Sort by the term in this language.' }),
      },
      extensions: upstream.fetch(1),
      resolve: async (org, args, ctx) => {
        const pages = listOf(
          ctx.api,
          op.listGlossaryEntries,
          { organizationId: org.id },
          {
            ...(args.orderBy ? { orderBy: args.orderBy } : {}),
          },
        );
        const connection = await listConnection(args, pages);
        return mapNodes(connection, (items) => primeInOrganization(GlossaryEntryNode, ctx, org.id, items));
      },
    },
    GlossaryConnection,
  ),
}));

// --- Mutation ----------------------------------------------------------------------------------

const ActionEnum = restEnum('GlossaryAction', 'What one operation of `updateGlossary` does.', {
  insert: 'Adds an entry with `terms`.',
  update: 'Replaces the terms of the entry `entryId` with `terms`.',
  delete: 'Removes the entry `entryId`.',
});

const TermInput = inputObject('GlossaryTermInput', {
  description: 'A term in one language.',
  fields: {
    language: inputField(LanguageEnum, 'The language.', z.string()),
    term: inputField(
      'String',
      'The term: 1 to 255 characters, on one line.',
      z
        .string()
        .trim()
        .min(1, 'must not be empty')
        .max(255, 'must be at most 255 characters')
        .regex(/^[^\n\r]*$/, 'must be on one line'),
    ),
  },
});

const OperationInput = inputObject('GlossaryOperationInput', {
  description: 'One change to the glossary.',
  fields: {
    action: inputField(ActionEnum, 'What to do.', z.enum(['insert', 'update', 'delete'])),
    entryId: inputField(
      'ID',
      'The entry to update or remove: its platform id or global ID (not with INSERT).',
      ownedIdInput('GlossaryEntry').nullish(),
    ),
    terms: inputField(
      [TermInput.type],
      'The entry’s terms, one per language (INSERT, UPDATE).',
      z.array(TermInput.schema).nullish(),
    ),
  },
  check: (object) =>
    object.superRefine((value, ctx) => {
      if (value.action === 'insert' && value.entryId != null)
        ctx.addIssue({ code: 'custom', path: ['entryId'], message: 'cannot be set with INSERT' });
      if (value.action !== 'insert' && value.entryId == null)
        ctx.addIssue({ code: 'custom', path: ['entryId'], message: `is required with ${value.action.toUpperCase()}` });
      if (value.action !== 'delete' && !value.terms?.length)
        ctx.addIssue({ code: 'custom', path: ['terms'], message: 'must give the term in at least one language' });
      if (value.action === 'delete' && value.terms != null)
        ctx.addIssue({ code: 'custom', path: ['terms'], message: 'cannot be set with DELETE' });
      const languages = (value.terms ?? []).map((term) => term.language);
      if (new Set(languages).size !== languages.length)
        ctx.addIssue({ code: 'custom', path: ['terms'], message: 'must give each language once' });
    }),
});

declareMutation('updateGlossary', {
  description:
    'Changes an organization’s translation glossary (admins): up to 500 operations, all done or, at the first refused, none. Runs of translations apply the glossary from their next run.',
  input: 'The organization and the operations, done in order.',
  fields: {
    organizationId: organizationIdField,
    operations: inputField(
      [OperationInput.type],
      '1 to 500 operations.',
      z
        .array(OperationInput.schema)
        .min(1, 'must hold at least one operation')
        .max(500, 'must hold at most 500 operations'),
    ),
  },
  payload: (name) =>
    payloadType<{ organizationId: string }>(name, (t) => ({
      organization: t.field({
        type: OrganizationNode,
        nullable: true,
        description: 'The organization, whose `glossary` shows the change.',
        extensions: upstream.link,
        resolve: (p, _args, _ctx, info) => (p.organizationId ? linkTo(OrganizationNode, p.organizationId, info) : null),
      }),
    })),
  extensions: upstream.fetch(1),
  // The platform names an operation's entry `id` and its terms `translations`.
  inputPath: (restField) => {
    if (restField?.[0] !== 'operations' || restField.length < 3) return undefined;
    const field = { id: 'entryId', translations: 'terms' }[restField[2] as 'id' | 'translations'];
    return field ? ['operations', restField[1]!, field] : undefined;
  },
  run: async (i, ctx) => {
    const operations = i.operations.map((item) => {
      const translations = Object.fromEntries((item.terms ?? []).map((term) => [term.language, term.term]));
      if (item.action === 'insert') return { type: 'insert' as const, translations };
      const id = item.entryId!;
      return item.action === 'update' ? { type: 'update' as const, id, translations } : { type: 'delete' as const, id };
    });
    await ctx.api.write(op.updateGlossaryEntries, { organizationId: i.organizationId }, { body: { operations } });
    return { organizationId: i.organizationId };
  },
});
