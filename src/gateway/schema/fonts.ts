import { z } from 'zod';
import { listConnection, mapNodes } from './kit/connections.js';
import type { GatewayContext } from '../context.js';
import { upstream } from './kit/upstream-cost.js';
import { createFont, createStorageUpload, deleteFont, getFont, listFonts, updateFont } from '../upstream/fonts.js';
import { S } from '../upstream/contract/schemas.js';
import type {
  CustomizationFontDefinition as CustomFont,
  FontSource as FontSourceModel,
  StorageUploadKind,
} from '../upstream/contract/types.js';
import { builder } from './kit/builder.js';
import { linkTo, organizationNode, primeInOrganization } from './kit/loaders.js';
import { declareMutation, inputField, inputObject } from './kit/mutations.js';
import { OrganizationNode, organizationIdField } from './organizations.js';
import { deletedPayload, deletionOf, objectPayload, payloadType } from './kit/payloads.js';
import { noNull } from './kit/mutations.js';
import { restEnum } from './kit/enums.js';
import { organizationTarget } from './targets.js';
import { compositeKey } from './kit/ids.js';

/**
 * Custom fonts of an organization (for its sites' customization) and the storage uploads their
 * files go through. A font's global ID carries its organization.
 */

export const CustomFontNode = organizationNode<CustomFont>('CustomFont', (organizationId, id, ctx) =>
  getFont(ctx.api, organizationId, id),
);

const primeFonts = (ctx: GatewayContext, organizationId: string, fonts: Iterable<CustomFont>) =>
  primeInOrganization(CustomFontNode, ctx, organizationId, fonts);

/** The formats of a font file, with what each is. */
const FONT_FORMATS = {
  woff: 'WOFF 1.0 (`font/woff`).',
  woff2: 'WOFF 2.0 (`font/woff2`).',
} satisfies Record<NonNullable<FontSourceModel['format']>, string>;

const FontFormatEnum = restEnum('FontFormat', 'Format of a web font file.', FONT_FORMATS);

type Face = CustomFont['fontFaces'][number];

const FontSource = builder.objectRef<FontSourceModel>('FontSource').implement({
  description: 'A file of a font face.',
  fields: (t) => ({
    url: t.exposeString('url', {
      description: 'Where the file is served, with its font content type and CORS open to every origin.',
    }),
    format: t.field({
      type: FontFormatEnum,
      nullable: true,
      description: 'Format of the file.',
      resolve: (source) => source.format ?? null,
    }),
  }),
});

const FontFace = builder.objectRef<Face>('FontFace').implement({
  description: 'One weight of a font, with its file.',
  fields: (t) => ({
    weight: t.exposeInt('weight', { description: 'Numeric weight, 1 to 1000 (400 regular, 700 bold).' }),
    sources: t.field({ type: [FontSource], description: 'Files of this weight.', resolve: (face) => face.sources }),
  }),
});

CustomFontNode.implement({
  description:
    'A font an organization uploaded for its sites: a family with a WOFF or WOFF2 file per weight, always with the regular weight (400).',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the font on the platform.' }),
    fontFamily: t.exposeString('fontFamily', { description: 'Family name used in CSS, 1 to 50 characters.' }),
    fontFaces: t.field({
      type: [FontFace],
      description: 'The weights of the font, lightest first.',
      resolve: (font) => font.fontFaces,
    }),
    weights: t.field({
      type: ['Int'],
      description: 'The weights the font has, lightest first.',
      resolve: (font) => font.fontFaces.map((face) => face.weight),
    }),
    canEdit: t.boolean({
      description: 'Whether you may change or delete the font (admins).',
      resolve: (font) => font.permissions.edit,
    }),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization the font belongs to.',
      extensions: upstream.link,
      resolve: (font, _args, _ctx, info) => linkTo(OrganizationNode, font.organizationId, info),
    }),
  }),
});

const CustomFontEdge = builder.edgeObject({
  type: CustomFontNode,
  name: 'CustomFontEdge',
  description: 'A custom font of a list, with its cursor.',
});

const CustomFontConnection = builder.connectionObject(
  {
    type: CustomFontNode,
    name: 'CustomFontConnection',
    description: 'A page of custom fonts, with the size of the whole list.',
  },
  CustomFontEdge,
);

builder.objectFields(OrganizationNode, (t) => ({
  fonts: t.connection(
    {
      type: CustomFontNode,
      nullable: true,
      description: 'Custom fonts of the organization, oldest first (members read them).',
      resolve: async (org, args, ctx) => {
        const connection = await listConnection(args, listFonts(ctx.api, org.id));
        return mapNodes(connection, (fonts) => primeFonts(ctx, org.id, fonts));
      },
    },
    CustomFontConnection,
  ),
}));

// --- Mutations ---------------------------------------------------------------------------------

const fontFamily = z.string().trim().min(1, 'must be 1 to 50 characters').max(50, 'must be 1 to 50 characters');
const weight = z.number().int('must be an integer').min(1, 'must be 1 to 1000').max(1000, 'must be 1 to 1000');
const storageKey = z.string().min(1, 'must be 1 to 512 characters').max(512, 'must be 1 to 512 characters');
const distinctWeights = (faces: ReadonlyArray<{ weight: number }>) =>
  new Set(faces.map((face) => face.weight)).size === faces.length;

const FontFaceInput = inputObject('FontFaceInput', {
  description: 'A weight of a font and the uploaded file (see `uploadFile`) that draws it.',
  fields: {
    weight: inputField('Int', 'Numeric weight, 1 to 1000 (400 regular, 700 bold).', weight),
    storageKey: inputField(
      'String',
      'Storage key of an uploaded WOFF or WOFF2 file of the organization (`uploadFile` answers it).',
      storageKey,
    ),
  },
});

const FontFaceChangeInput = inputObject('FontFaceChangeInput', {
  description: 'A weight to set or remove.',
  fields: {
    weight: inputField('Int', 'Numeric weight, 1 to 1000.', weight),
    storageKey: inputField(
      'String',
      'Storage key of an uploaded WOFF or WOFF2 file for this weight; null removes the weight (not 400).',
      storageKey.nullable(),
    ),
  },
});

const FontPayload = (name: string, description = 'The font after the change.') =>
  objectPayload(name, 'font', CustomFontNode, description);

async function fontPayload(ctx: GatewayContext, organizationId: string, written: Promise<CustomFont>) {
  return { font: primeFonts(ctx, organizationId, [await written])[0]! };
}

const { fields: fontTarget, resolve: resolveFont } = organizationTarget(
  'CustomFont',
  'fontId',
  'The font: its global ID, or its platform id with `organizationId`.',
);

declareMutation('createCustomFont', {
  description:
    'Adds a custom font to an organization (admins) from uploaded WOFF or WOFF2 files; it needs the regular weight (400), else PRECONDITION_FAILED.',
  input: 'The font: its family name and a file per weight.',
  fields: {
    organizationId: organizationIdField,
    fontFamily: inputField('String', 'Family name used in CSS, 1 to 50 characters.', fontFamily),
    fontFaces: inputField(
      [FontFaceInput.type],
      'A file per weight, each weight once; one of them 400.',
      z
        .array(FontFaceInput.schema)
        .min(1, 'must give at least one font face')
        .max(20, 'must give at most 20 font faces')
        .refine(distinctWeights, 'must give each weight once'),
    ),
  },
  payload: (name) =>
    objectPayload(name, 'font', CustomFontNode, 'The new font.', {
      type: CustomFontEdge,
      what: 'font',
      lists: '`Organization.fonts`',
    }),
  run: (i, ctx) =>
    fontPayload(
      ctx,
      i.organizationId,
      createFont(ctx.api, i.organizationId, { fontFamily: i.fontFamily, fontFaces: i.fontFaces }),
    ),
});

declareMutation('updateCustomFont', {
  description:
    'Renames a custom font or sets and removes its weights (admins); removing the regular weight (400) is PRECONDITION_FAILED and changes nothing.',
  input: 'The font and what to change; fields left out stay.',
  fields: {
    ...fontTarget,
    fontFamily: inputField('String', 'New family name, 1 to 50 characters.', fontFamily.nullish()),
    fontFaces: inputField(
      [FontFaceChangeInput.type],
      'Weights to set (with a file) or remove (with null); other weights stay.',
      z
        .array(FontFaceChangeInput.schema)
        .max(20, 'must give at most 20 font faces')
        .refine(distinctWeights, 'must give each weight once')
        .nullish(),
    ),
  },
  check: (input) =>
    input
      .superRefine(noNull(['fontFamily', 'fontFaces']))
      .refine((value) => value.fontFamily != null || value.fontFaces != null, {
        message: 'Give fontFamily or fontFaces to change',
        path: ['fontFamily'],
      })
      .transform(resolveFont),
  payload: FontPayload,
  run: (i, ctx) =>
    fontPayload(
      ctx,
      i.organizationId,
      updateFont(ctx.api, i.organizationId, i.fontId, {
        ...(i.fontFamily != null && { fontFamily: i.fontFamily }),
        ...(i.fontFaces != null && { fontFaces: i.fontFaces }),
      }),
    ),
});

declareMutation('deleteCustomFont', {
  description: 'Deletes a custom font (admins).',
  input: 'The font to delete.',
  fields: fontTarget,
  check: (input) => input.transform(resolveFont),
  payload: (name) => deletedPayload(name, 'True when the font was deleted, false when it did not exist.'),
  run: (i, ctx) =>
    deletionOf('CustomFont', compositeKey(i.organizationId, i.fontId), deleteFont(ctx.api, i.organizationId, i.fontId)),
});

// --- Uploads -----------------------------------------------------------------------------------

/** A file of a GraphQL multipart request (the `File` of the fetch API that yoga hands resolvers). */
interface UploadedFile {
  name: string;
  type: string;
  size: number;
  arrayBuffer(): Promise<ArrayBuffer>;
}

builder.scalarType('Upload', {
  description:
    'A file sent with the GraphQL multipart request specification (`multipart/form-data` with `operations`, `map` and the files). Input only.',
  serialize: () => {
    throw new Error('Upload is an input-only scalar');
  },
  parseValue: (value) => value,
});

/** Largest file `uploadFile` takes (the platform's limit). */
export const MAX_UPLOAD_FILE_BYTES = 10 * 1024 * 1024;

const uploadedFile = z
  .custom<UploadedFile>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      typeof (value as UploadedFile).arrayBuffer === 'function' &&
      typeof (value as UploadedFile).name === 'string',
    'must be a file sent as a multipart upload (see the GraphQL multipart request specification)',
  )
  .refine(
    (file) => file.size >= 1 && file.size <= MAX_UPLOAD_FILE_BYTES,
    `must be 1 to ${MAX_UPLOAD_FILE_BYTES} bytes`,
  );

const StorageKindEnum = restEnum('StorageUploadKind', 'What an uploaded file is for.', {
  customization_font: 'A font file (WOFF or WOFF2) for a custom font; admins only.',
  import_file: 'A file to import content from; needs the create role.',
  organization_file: 'Any other file of the organization; needs the edit role.',
} satisfies Record<StorageUploadKind, string>);

interface UploadedModel {
  key: string;
  name: string;
  contentType: string;
  size: number;
}

const StoredFile = builder.objectRef<UploadedModel>('StoredFile').implement({
  description: 'A file uploaded to the storage of an organization.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'Storage key naming the file, for example in `createCustomFont`.' }),
    name: t.exposeString('name', { description: 'Name of the file as uploaded.' }),
    contentType: t.exposeString('contentType', { description: 'Media type the file was uploaded with.' }),
    size: t.exposeInt('size', { description: 'Size in bytes.' }),
  }),
});

declareMutation('uploadFile', {
  description:
    'Uploads a file to the storage of an organization and answers its storage key. Send it as a GraphQL multipart request (`multipart/form-data`), at most 10 MiB; font files need admins.',
  input: 'The file and what it is for.',
  fields: {
    organizationId: organizationIdField,
    kind: inputField(StorageKindEnum, 'What the file is for (decides who may upload it).', S.StorageUploadKind),
    file: inputField('Upload', 'The file, as a part of the multipart request.', uploadedFile),
    contentType: inputField(
      'String',
      'Media type of the file; default the one the multipart part declares (font files: font/woff or font/woff2).',
      z
        .string()
        .regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a media type such as font/woff2')
        .nullish(),
    ),
  },
  payload: (name) =>
    payloadType<{ file: UploadedModel }>(name, (t) => ({
      file: t.field({
        type: StoredFile,
        nullable: true,
        description: 'The stored file.',
        resolve: (payload) => payload.file ?? null,
      }),
    })),
  extensions: upstream.fetch(2),
  run: async (i, ctx) => {
    const bytes = new Uint8Array(await i.file.arrayBuffer());
    const name = i.file.name || 'file';
    const contentType = i.contentType ?? (/^[\w.+-]+\/[\w.+-]+$/.test(i.file.type) ? i.file.type : fontTypeOf(name));
    const data = await createStorageUpload(ctx.api, i.organizationId, {
      file: { name, type: contentType, size: bytes.byteLength },
      kind: i.kind,
    });
    await ctx.api.upload(data.url, bytes, contentType);
    return { file: { key: data.key, name, contentType, size: bytes.byteLength } };
  },
});

/** A media type for a file sent without one, from its extension. */
function fontTypeOf(name: string): string {
  const extension = name.toLowerCase().split('.').pop();
  const format = Object.keys(FONT_FORMATS).find((known) => known === extension);
  return format ? `font/${format}` : 'application/octet-stream';
}
