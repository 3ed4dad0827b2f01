import { z } from 'zod';
import { upstream } from '../kit/upstream-cost.js';
import { updateChangeRequestContent } from '../../upstream/change-requests.js';
import type { ChangeRequest } from '../../upstream/contract/types.js';
import { builder } from '../kit/builder.js';
import { FileNode } from '../content/file.js';
import { PageInterface, PAGE_NODE_TYPENAMES, pageIdInput } from '../content/page.js';
import {
  placeFile,
  lightRevision,
  revisionPartId,
  treeIndex,
  type FileHeld,
  type PageHeld,
} from '../content/revision.js';
import { prime } from '../kit/loaders.js';
import { declareMutation, inputField, inputObject } from '../kit/mutations.js';
import { idInput } from '../kit/ids.js';
import { payloadType } from '../kit/payloads.js';
import { restEnum } from '../kit/enums.js';
import { ChangeRequestNode } from './change-request.js';
import { ChangeRequestPayloadField, resolveTarget, targetFields } from './target.js';

/**
 * Content edits of a change request: pages inserted, updated, moved, reverted or deleted, and files
 * uploaded, in one batch (`editChangeRequestContent`).
 */

const pageMetadataFields = {
  title: inputField(
    'String',
    "Title (a markdown document's front matter or leading `# heading` wins over it).",
    z.string().trim().min(1).max(256).nullish(),
  ),
  slug: inputField(
    'String',
    'Slug in its parent (its path segment); derived from the title when left out on insert.',
    z.string().max(100).nullish(),
  ),
  emoji: inputField('String', 'Emoji of the page; an empty string removes it.', z.string().max(50).nullish()),
  icon: inputField('String', 'Icon name of the page; an empty string removes it.', z.string().max(50).nullish()),
  description: inputField('String', 'Description of the page.', z.string().max(1024).nullish()),
  hidden: inputField('Boolean', 'Hidden from the navigation (still reachable).', z.boolean().nullish()),
  noIndex: inputField('Boolean', 'Left out of search.', z.boolean().nullish()),
  noRobotsIndex: inputField('Boolean', 'Not indexed by search engines.', z.boolean().nullish()),
  condition: inputField(
    'String',
    'Adaptive-content condition deciding whether the page shows; an empty string removes it.',
    z.string().max(1024).nullish(),
  ),
  markdown: inputField(
    'String',
    "The page's document as markdown (the platform's flavour: hints, tabs, front matter…). Links may name pages by id, path, file path or the `ref` of a page inserted in the same batch.",
    z
      .string()
      .max(1024 * 1024)
      .nullish(),
  ),
  json: inputField(
    'JSON',
    'The page\'s document as JSON `{ object: "document", data, nodes }`.',
    z.unknown().optional(),
  ),
};

/** The REST `document` of a page change: markdown, JSON, or none. */
function restDocument(
  value: { markdown?: string | null | undefined; json?: unknown },
  ctx: z.RefinementCtx,
): { markdown: string } | { document: unknown } | undefined {
  if (value.markdown != null && value.json != null) {
    ctx.addIssue({ code: 'custom', path: ['markdown'], message: 'give markdown or json, not both' });
    return undefined;
  }
  if (value.markdown != null) return { markdown: value.markdown };
  if (value.json != null) return { document: value.json };
  return undefined;
}

function restMetadata(value: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of [
    'title',
    'slug',
    'emoji',
    'icon',
    'description',
    'hidden',
    'noIndex',
    'noRobotsIndex',
    'condition',
  ]) {
    if (value[key] != null) body[key] = value[key];
  }
  return body;
}

const InsertPageInput = inputObject('InsertPageInput', {
  description: 'A new document page.',
  fields: {
    ...pageMetadataFields,
    into: inputField(
      'ID',
      'The page to put it in (id, global ID, or the `ref` of a page inserted earlier in the batch); the top level when left out.',
      z.string().trim().min(1).nullish(),
    ),
    at: inputField(
      'Int',
      'Zero-based position among its siblings; last when left out.',
      z.number().int().min(0).nullish(),
    ),
    ref: inputField(
      'String',
      'A name for the page within the batch, for links (`./<ref>.md`) and `into` of later changes.',
      z.string().min(1).max(256).nullish(),
    ),
  },
  check: (object) =>
    object.transform((value, ctx) => ({
      operation: 'insert_page' as const,
      ...restMetadata(value),
      ...(value.into != null ? { into: pageRefOrId(value.into) } : {}),
      ...(value.at != null ? { at: value.at } : {}),
      ...(value.ref != null ? { ref: value.ref } : {}),
      document: restDocument(value, ctx) ?? {},
    })),
});

/** An `into` value: a page global ID becomes its platform id; anything else (an id or a ref) stays. */
function pageRefOrId(value: string): string {
  try {
    return revisionPartId(value, PAGE_NODE_TYPENAMES) || value;
  } catch {
    return value;
  }
}

const UpdatePageInput = inputObject('UpdatePageInput', {
  description: 'Changes to an existing page: its document, its metadata, where it is.',
  fields: {
    pageId: inputField('ID', 'The page (platform id or global ID).', pageIdInput),
    ...pageMetadataFields,
    into: inputField(
      'ID',
      'Move it into this page; explicitly null moves it to the top level; left out, it stays under its parent.',
      z.string().trim().min(1).nullable().optional(),
    ),
    at: inputField('Int', 'Zero-based position among its (new) siblings.', z.number().int().min(0).nullish()),
  },
  check: (object) =>
    object.transform((value, ctx) => {
      const document = restDocument(value, ctx);
      return {
        operation: 'update_page' as const,
        page: value.pageId,
        ...restMetadata(value),
        ...(value.into !== undefined ? { into: value.into === null ? null : pageRefOrId(value.into) } : {}),
        ...(value.at != null ? { at: value.at } : {}),
        ...(document ? { document } : {}),
      };
    }),
});

const DeletePageInput = inputObject('DeletePageInput', {
  description: 'A page to delete, with the pages nested in it.',
  fields: { pageId: inputField('ID', 'The page (platform id or global ID).', pageIdInput) },
  check: (object) => object.transform((value) => ({ operation: 'delete_page' as const, page: value.pageId })),
});

const RevertPageInput = inputObject('RevertPageInput', {
  description: 'A page to put back as it was in a revision: whole, or some of its blocks.',
  fields: {
    pageId: inputField('ID', 'The page (platform id or global ID).', pageIdInput),
    revisionId: inputField(
      'ID',
      'The revision to go back to; the live revision the change request is based on when left out.',
      idInput('Revision').nullish(),
    ),
    blocks: inputField(
      ['String'],
      'Keys of the blocks to revert; the whole page when left out.',
      z.array(z.string().min(1)).min(1).max(1000).nullish(),
    ),
  },
  check: (object) =>
    object.transform((value) => ({
      operation: 'revert_page' as const,
      page: value.pageId,
      ...(value.revisionId ? { revision: value.revisionId.split('/').at(-1) } : {}),
      ...(value.blocks ? { block: value.blocks } : {}),
    })),
});

const FileUploadInput = inputObject('FileUploadInput', {
  description: 'A file to add: its bytes as base64 (at most 1 MB) or an http(s) URL the platform fetches.',
  fields: {
    name: inputField('String', 'File name with its extension, 1 to 256 characters.', z.string().min(1).max(256)),
    base64: inputField(
      'String',
      'The bytes, base64-encoded (needs contentType).',
      z.string().max(1_500_000, 'must encode at most 1 MB').nullish(),
    ),
    url: inputField(
      'String',
      'A public http(s) URL to fetch the bytes from.',
      z.string().url('must be an http(s) URL').max(2048).nullish(),
    ),
    contentType: inputField(
      'String',
      'MIME type (required with base64; overrides the fetched type).',
      z.string().max(255).nullish(),
    ),
    ref: inputField(
      'String',
      'A name for the file within the batch, for links (`./<ref>`) of pages in it.',
      z.string().min(1).max(256).nullish(),
    ),
  },
  check: (object) =>
    object
      .superRefine((value, ctx) => {
        if ((value.base64 == null) === (value.url == null))
          ctx.addIssue({ code: 'custom', path: ['base64'], message: 'give exactly one of base64 or url' });
        if (value.base64 != null && value.contentType == null)
          ctx.addIssue({ code: 'custom', path: ['contentType'], message: 'is required with base64' });
      })
      .transform((value) => Object.fromEntries(Object.entries(value).filter(([, entry]) => entry != null))),
});

const InsertFilesInput = inputObject('InsertFilesInput', {
  description: 'Files to add to the content.',
  fields: {
    files: inputField([FileUploadInput.type], '1 to 20 files.', z.array(FileUploadInput.schema).min(1).max(20)),
  },
  check: (object) => object.transform((value) => ({ operation: 'insert_files' as const, files: value.files })),
});

const ContentChangeInput = inputObject('ContentChangeInput', {
  description: 'One change to the content of a change request: set exactly one field.',
  oneOf: true,
  fields: {
    insertPage: inputField(InsertPageInput.type, 'Insert a document page.', InsertPageInput.schema.optional()),
    updatePage: inputField(UpdatePageInput.type, 'Change a page.', UpdatePageInput.schema.optional()),
    deletePage: inputField(
      DeletePageInput.type,
      'Delete a page and the pages in it.',
      DeletePageInput.schema.optional(),
    ),
    revertPage: inputField(
      RevertPageInput.type,
      'Revert a page, or some of its blocks.',
      RevertPageInput.schema.optional(),
    ),
    insertFiles: inputField(InsertFilesInput.type, 'Add files.', InsertFilesInput.schema.optional()),
  },
  check: (object) =>
    object.transform((value, ctx) => {
      const given = Object.values(value).filter((entry) => entry != null);
      if (given.length !== 1) {
        ctx.addIssue({
          code: 'custom',
          message: 'set exactly one of insertPage, updatePage, deletePage, revertPage or insertFiles',
        });
        return z.NEVER;
      }
      return given[0]!;
    }),
});

const ContentEditKindEnum = restEnum('ContentEditKind', 'What a batch of content changes did to a page.', {
  created_page: 'The page was created (inserted, or restored by a revert).',
  updated_page: 'The page was changed.',
  deleted_page: 'The page was deleted.',
});

interface ContentEditHeld {
  kind: 'created_page' | 'updated_page' | 'deleted_page';
  pageId: string;
  ref?: string | undefined;
  spaceId: string;
  revisionId: string;
}

const ContentEdit = builder.objectRef<ContentEditHeld>('ContentEdit').implement({
  description: 'What a batch of content changes did to one page.',
  fields: (t) => ({
    kind: t.field({ type: ContentEditKindEnum, description: 'Created, updated or deleted.', resolve: (e) => e.kind }),
    pageId: t.exposeString('pageId', { description: 'Platform id of the page.' }),
    ref: t.string({
      nullable: true,
      description: 'The `ref` the insert gave it, if any.',
      resolve: (e) => e.ref ?? null,
    }),
    page: t.field({
      type: PageInterface,
      nullable: true,
      description:
        'The page as the change request now has it; null for a deleted page. Reads the tree of its content once.',
      extensions: upstream.fetch(1),
      resolve: async (e, _a, ctx): Promise<PageHeld | null> => {
        if (e.kind === 'deleted_page') return null;
        return (await treeIndex(ctx, lightRevision(e.spaceId, e.revisionId, false))).byId.get(e.pageId) ?? null;
      },
    }),
  }),
});

/**
 * The input path of a change the platform refused: its REST body holds `changes.<i>.<field>`, the
 * input `changes.<i>.<kind>.<field>`, with ids named `…Id` (`page` → `updatePage.pageId`).
 */
function changePath(restField: string[] | null, _code: unknown, input: Record<string, unknown>): string[] | undefined {
  if (restField?.[0] !== 'changes' || restField.length < 3) return undefined;
  const [, index, field, ...rest] = restField as [string, string, string, ...string[]];
  const change = (input.changes as Array<Record<string, Record<string, unknown>>> | undefined)?.[Number(index)];
  const kind = change && Object.keys(change).find((key) => change[key] != null);
  if (!kind) return undefined;
  const named = `${field}Id` in (change[kind] ?? {}) ? `${field}Id` : field;
  return ['changes', index, kind, named, ...rest];
}

declareMutation('editChangeRequestContent', {
  description:
    'Applies 1 to 50 changes to the content of a change request, in order, as one new revision: all of them, or none when one is invalid (the error names it). Edit role.',
  input: 'The change request and the changes.',
  fields: {
    ...targetFields,
    changes: inputField(
      [ContentChangeInput.type],
      'The changes, applied in order.',
      z.array(ContentChangeInput.schema).min(1, 'must hold 1 to 50 changes').max(50, 'must hold 1 to 50 changes'),
    ),
  },
  check: (input) => input.transform(resolveTarget),
  inputPath: changePath,
  payload: (name) =>
    payloadType<{ changeRequest: ChangeRequest; edits: ContentEditHeld[]; insertedFiles: FileHeld[] }>(name, (t) => ({
      changeRequest: t.field({
        ...ChangeRequestPayloadField('The change request with its new content.'),
        resolve: (p) => p.changeRequest ?? null,
      }),
      edits: t.field({
        type: [ContentEdit],
        nullable: true,
        description: 'What the batch did to each page it touched, in the order it touched them.',
        resolve: (p) => p.edits ?? null,
      }),
      insertedFiles: t.field({
        type: [FileNode],
        nullable: true,
        description: 'The files the batch added, in order.',
        resolve: (p) => p.insertedFiles ?? null,
      }),
    })),
  run: async ({ spaceId, changeRequestId, changes }, ctx) => {
    const data = await updateChangeRequestContent(ctx.api, spaceId, changeRequestId, changes);
    const changeRequest = data.changeRequest;
    prime(ChangeRequestNode, ctx, [changeRequest]);
    return {
      changeRequest,
      edits: data.changes.map((change) => ({
        kind: change.object,
        pageId: typeof change.page === 'string' ? change.page : change.page.id,
        ref: 'ref' in change ? (change.ref ?? undefined) : undefined,
        spaceId,
        revisionId: changeRequest.revision,
      })),
      insertedFiles: (data.insertedFiles ?? []).map((file) =>
        placeFile(file, spaceId, changeRequest.revision, undefined),
      ),
    };
  },
});
