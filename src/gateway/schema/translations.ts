import { listConnection, mapNodes } from './kit/connections.js';
import type { GatewayContext } from '../context.js';
import { upstream } from './kit/upstream-cost.js';
import { compositeKey } from './kit/ids.js';
import { S } from '../upstream/contract/schemas.js';
import type { TranslationLanguage, TranslationStatus } from '../upstream/contract/types.js';
import {
  createTranslation,
  deleteTranslation,
  getTranslation,
  listTranslations,
  runTranslation,
  type Translation,
  updateTranslation,
} from '../upstream/translations.js';
import { builder } from './kit/builder.js';
import { RevisionNode, revisionStub } from './content/revision.js';
import { linkTo, organizationNode, prime, primeInOrganization, type InOrganization } from './kit/loaders.js';
import { follow, ownedTarget } from './kit/live.js';
import { declareMutation, inputField, inputObject } from './kit/mutations.js';
import { OrganizationNode, organizationIdField } from './organizations.js';
import { deletedPayload, deletionOf, objectPayload } from './kit/payloads.js';
import { DocumentInput, documentInput, DocumentType } from './kit/document.js';
import { idInput } from './kit/ids.js';
import { permissionsType } from './kit/permissions.js';
import { restEnum } from './kit/enums.js';
import { SpaceNode } from './spaces.js';
import { organizationTarget } from './targets.js';

/**
 * Translations of an organization (admins): a source space translated into a result space in
 * another language, by runs in the background. A translation's global ID carries its organization.
 */

type TranslationHeld = InOrganization<Translation>;

export const TranslationNode = organizationNode<Translation>('Translation', (organizationId, id, ctx) =>
  getTranslation(ctx.api, organizationId, id),
);

const primeTranslations = (ctx: GatewayContext, organizationId: string, items: Iterable<Translation>) =>
  primeInOrganization(TranslationNode, ctx, organizationId, items);

const TranslationStatusEnum = restEnum('TranslationStatus', 'Where a translation stands.', {
  pending: 'Never run, or a run is queued.',
  running: 'A run is translating the source now.',
  completed: 'The last run finished: the result space holds the translation of the source as it was then.',
} satisfies Record<TranslationStatus, string>);

export const LanguageEnum = restEnum('TranslationLanguage', 'A language content can be translated from and into.', {
  en: 'English.',
  fr: 'French.',
  de: 'German.',
  es: 'Spanish.',
  it: 'Italian.',
  pt: 'Portuguese.',
  'pt-br': 'Brazilian Portuguese.',
  ru: 'Russian.',
  ja: 'Japanese.',
  zh: 'Chinese (simplified).',
  'zh-tw': 'Chinese (traditional).',
  yue: 'Cantonese.',
  ko: 'Korean.',
  ar: 'Arabic.',
  hi: 'Hindi.',
  nl: 'Dutch.',
  pl: 'Polish.',
  tr: 'Turkish.',
  sv: 'Swedish.',
  no: 'Norwegian.',
  da: 'Danish.',
  fi: 'Finnish.',
  el: 'Greek.',
  cs: 'Czech.',
  hu: 'Hungarian.',
  ro: 'Romanian.',
  th: 'Thai.',
  vi: 'Vietnamese.',
  id: 'Indonesian.',
  ms: 'Malay.',
  he: 'Hebrew.',
  uk: 'Ukrainian.',
  sk: 'Slovak.',
  bg: 'Bulgarian.',
  hr: 'Croatian.',
  lt: 'Lithuanian.',
  lv: 'Latvian.',
  et: 'Estonian.',
  sl: 'Slovenian.',
} satisfies Record<TranslationLanguage, string>);

const TranslationSource = builder.objectRef<TranslationHeld['source']>('TranslationSource').implement({
  description: 'What a translation translates.',
  fields: (t) => ({
    spaceId: t.exposeString('space', { description: 'Platform id of the source space.' }),
    space: t.field({
      type: SpaceNode,
      nullable: true,
      description: 'The source space.',
      extensions: upstream.link,
      resolve: (source, _args, _ctx, info) => linkTo(SpaceNode, source.space, info),
    }),
    language: t.field({
      type: LanguageEnum,
      description: 'Language of the source content.',
      resolve: (source) => source.language,
    }),
  }),
});

type Result = NonNullable<Translation['result']>;

const TranslationResult = builder.objectRef<Result>('TranslationResult').implement({
  description: 'What the last completed run of a translation wrote.',
  fields: (t) => ({
    spaceId: t.exposeString('space', { description: 'Platform id of the result space.' }),
    space: t.field({
      type: SpaceNode,
      nullable: true,
      description: 'The space holding the translated content.',
      extensions: upstream.link,
      resolve: (result, _args, _ctx, info) => linkTo(SpaceNode, result.space, info),
    }),
    revisionId: t.exposeString('revision', { description: 'Platform id of the revision the last run wrote.' }),
    revision: t.field({
      type: RevisionNode,
      nullable: true,
      description: 'The revision of the result space the last run wrote.',
      extensions: upstream.link,
      resolve: (result, _args, _ctx, info) =>
        linkTo(
          RevisionNode,
          compositeKey(result.space, result.revision),
          info,
          revisionStub(result.space, result.revision),
        ),
    }),
    language: t.field({
      type: LanguageEnum,
      nullable: true,
      description: 'Language of the translated content.',
      resolve: (result) => result.language ?? null,
    }),
  }),
});

const TranslationStats = builder.objectRef<Translation['stats']>('TranslationStats').implement({
  description: 'What the runs of a translation did.',
  fields: (t) => ({
    runs: t.exposeInt('runs', { description: 'Runs completed.' }),
    totalWords: t.exposeInt('totalWords', { description: 'Words translated over all runs.' }),
    totalPages: t.exposeInt('totalPages', { description: 'Distinct pages translated over all runs.' }),
    totalDuration: t.exposeFloat('totalDuration', { description: 'Time spent by all runs, in seconds.' }),
    latestRunDuration: t.exposeFloat('latestRunDuration', { description: 'Time spent by the latest run, in seconds.' }),
    latestPages: t.exposeInt('latestPages', {
      description: 'Pages the latest run translated (those whose text changed since the run before).',
    }),
    latestWords: t.exposeInt('latestWords', { description: 'Words the latest run translated.' }),
  }),
});

const TranslationPermissions = permissionsType<Translation['permissions']>(
  'TranslationPermissions',
  'What you may do with a translation.',
  {
    view: 'Can see the translation.',
    edit: 'Can change, run and delete the translation (admins).',
  },
);

const TranslationRunError = builder
  .objectRef<NonNullable<Translation['lastRunError']>>('TranslationRunError')
  .implement({
    description: 'Why a run of a translation failed; the result of the run before stays.',
    fields: (t) => ({
      message: t.exposeString('message', {
        description: 'What went wrong (the translator unreachable or refusing, say).',
      }),
      failedAt: t.field({ type: 'DateTime', description: 'When the run gave up.', resolve: (error) => error.failedAt }),
    }),
  });

TranslationNode.implement({
  description: 'A source space translated into another language, kept in step run after run (admins manage them).',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the translation on the platform.' }),
    status: t.field({
      type: TranslationStatusEnum,
      description: 'Where the translation stands.',
      resolve: (tr) => tr.status,
    }),
    language: t.field({
      type: LanguageEnum,
      description: 'Language it translates into.',
      resolve: (tr) => tr.language,
    }),
    source: t.field({
      type: TranslationSource,
      description: 'The space it translates and its language.',
      resolve: (tr) => tr.source,
    }),
    result: t.field({
      type: TranslationResult,
      nullable: true,
      description: 'The translated content; null until the first run completed.',
      resolve: (tr) => tr.result ?? null,
    }),
    instructions: t.field({
      type: DocumentType,
      nullable: true,
      description: 'Guidance given to the translator (tone, terms to keep).',
      resolve: (tr) => tr.instructions ?? null,
    }),
    lastRunError: t.field({
      type: TranslationRunError,
      nullable: true,
      description: 'Why the last run failed; null when it completed (or the platform does not say).',
      resolve: (tr) => tr.lastRunError ?? null,
    }),
    stats: t.field({ type: TranslationStats, description: 'What its runs did.', resolve: (tr) => tr.stats }),
    permissions: t.field({
      type: TranslationPermissions,
      description: 'What you may do with it.',
      resolve: (tr) => tr.permissions,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was created.', resolve: (tr) => tr.createdAt }),
    updatedAt: t.field({
      type: 'DateTime',
      description: 'When it last changed (a run included).',
      resolve: (tr) => tr.updatedAt,
    }),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization it belongs to.',
      extensions: upstream.link,
      resolve: (tr, _args, _ctx, info) => linkTo(OrganizationNode, tr.organizationId, info),
    }),
  }),
});

const TranslationEdge = builder.edgeObject({
  type: TranslationNode,
  name: 'TranslationEdge',
  description: 'A translation of a list, with its cursor.',
});

const TranslationConnection = builder.connectionObject(
  {
    type: TranslationNode,
    name: 'TranslationConnection',
    description: 'A page of translations, with the size of the whole list.',
  },
  TranslationEdge,
);

builder.objectFields(OrganizationNode, (t) => ({
  translations: t.connection(
    {
      type: TranslationNode,
      nullable: true,
      description: 'Translations of the organization, oldest first (admins; FORBIDDEN for others).',
      resolve: async (org, args, ctx) => {
        const connection = await listConnection(args, listTranslations(ctx.api, org.id));
        return mapNodes(connection, (items) => primeTranslations(ctx, org.id, items));
      },
    },
    TranslationConnection,
  ),
}));

// --- Mutations ---------------------------------------------------------------------------------

const languageCode = S.TranslationLanguage;

const TranslationSourceInput = inputObject('TranslationSourceInput', {
  description: 'The space to translate and the language of its content.',
  fields: {
    spaceId: inputField(
      'ID',
      'The source space: platform id or global ID (a space of the organization).',
      idInput('Space'),
    ),
    language: inputField(LanguageEnum, 'Language of the source content.', languageCode),
  },
});

const TranslationPayload = (name: string, description = 'The translation after the change.') =>
  objectPayload(name, 'translation', TranslationNode, description);

async function translationPayload(ctx: GatewayContext, organizationId: string, written: Promise<Translation>) {
  return { translation: primeTranslations(ctx, organizationId, [await written])[0]! };
}

const { fields: translationTarget, resolve: resolveTranslation } = organizationTarget(
  'Translation',
  'translationId',
  'The translation: its global ID, or its platform id with `organizationId`.',
);

declareMutation('createTranslation', {
  description:
    'Sets up the translation of a space into another language (admins); nothing is translated until it runs. One per source space and language (CONFLICT).',
  input: 'The source, the language to translate into, and instructions for the translator.',
  fields: {
    organizationId: organizationIdField,
    language: inputField(LanguageEnum, 'Language to translate into.', languageCode),
    source: inputField(
      TranslationSourceInput.type,
      'The space to translate and its language.',
      TranslationSourceInput.schema,
    ),
    instructions: inputField(
      DocumentInput,
      'Guidance for the translator (tone, terms to keep as they are).',
      documentInput.nullish(),
    ),
  },
  check: (input) =>
    input.refine((value) => value.language !== value.source.language, {
      message: 'must differ from the language of the source',
      path: ['language'],
    }),
  payload: (name) =>
    objectPayload(name, 'translation', TranslationNode, 'The new translation.', {
      type: TranslationEdge,
      what: 'translation',
      lists: '`Organization.translations`',
    }),
  run: (i, ctx) =>
    translationPayload(
      ctx,
      i.organizationId,
      createTranslation(ctx.api, i.organizationId, {
        language: i.language,
        source: { space: i.source.spaceId, language: i.source.language },
        ...(i.instructions != null && { instructions: i.instructions }),
      }),
    ),
});

declareMutation('updateTranslation', {
  description: 'Replaces the instructions of a translation (admins); they apply from its next run.',
  input: 'The translation and its new instructions.',
  fields: {
    ...translationTarget,
    instructions: inputField(DocumentInput, 'The new guidance for the translator.', documentInput),
  },
  check: (input) => input.transform(resolveTranslation),
  payload: TranslationPayload,
  run: (i, ctx) =>
    translationPayload(
      ctx,
      i.organizationId,
      updateTranslation(ctx.api, i.organizationId, i.translationId, { instructions: i.instructions }),
    ),
});

declareMutation('runTranslation', {
  description:
    'Starts a run of a translation (admins): in the background, it translates the pages whose text changed since the last run into the result space (created by the first run). Merges into the source start runs too.',
  input: 'The translation to run.',
  fields: translationTarget,
  check: (input) => input.transform(resolveTranslation),
  payload: (name) =>
    TranslationPayload(name, 'The translation once the run was asked for (PENDING or RUNNING until it completes).'),
  extensions: upstream.fetch(2),
  run: async (i, ctx) => {
    await runTranslation(ctx.api, i.organizationId, i.translationId);
    return translationPayload(ctx, i.organizationId, getTranslation(ctx.api, i.organizationId, i.translationId));
  },
});

declareMutation('deleteTranslation', {
  description: 'Deletes a translation (admins); its result space stays, as content of its own.',
  input: 'The translation to delete.',
  fields: translationTarget,
  check: (input) => input.transform(resolveTranslation),
  payload: (name) => deletedPayload(name, 'True when the translation was deleted, false when it did not exist.'),
  run: (i, ctx) =>
    deletionOf(
      'Translation',
      compositeKey(i.organizationId, i.translationId),
      deleteTranslation(ctx.api, i.organizationId, i.translationId),
    ),
});

builder.subscriptionField('translationUpdated', (t) =>
  t.field({
    type: TranslationNode,
    description:
      'A translation: first as it is, then after each change, its runs included (queued, running, done or failed). Ends with NOT_FOUND when it is deleted or no longer visible to you.',
    args: {
      translationId: t.arg.id({
        required: true,
        description: 'The translation: its global ID, or its platform id with `organizationId`.',
      }),
      organizationId: t.arg.id({
        description: 'Platform id or global ID of the organization; required when `translationId` is not a global ID.',
      }),
    },
    extensions: upstream.follow(1),
    subscribe: (_root, args, ctx) => {
      const at = ownedTarget(String(args.translationId), 'Translation', 'translationId', args.organizationId);
      return follow(ctx, `translation ${at.organizationId} ${at.id}`, async (api) => ({
        ...(await getTranslation(api, at.organizationId, at.id)),
        organizationId: at.organizationId,
      }));
    },
    resolve: (translation, _args, ctx) => {
      prime(TranslationNode, ctx, [translation]);
      return translation;
    },
  }),
);
