import { z } from 'zod';
import { documentFromLines } from '../../../document/lines.js';
import { UnparsedBody } from '../../upstream/bodies.js';
import { builder } from './builder.js';

/** A rich-text document as the gateway holds it: parsed, or a large body not parsed yet. */
export type DocumentValue = JsonDocumentShape | UnparsedBody<JsonDocumentShape>;
type JsonDocumentShape = { object: 'document'; data: Record<string, unknown>; nodes: unknown[] };

/** A rich-text document (descriptions, comments, instructions), read as JSON or as plain text. */
export const DocumentType = builder.objectRef<DocumentValue>('Document').implement({
  description: 'A rich-text document (descriptions, instructions, summaries).',
  fields: (t) => ({
    json: t.field({
      type: 'JSON',
      description: 'The document as the platform stores it: `{ object: "document", data, nodes }`.',
      // A large document read unparsed goes into the answer as its text came (checked in a worker thread).
      resolve: (doc, _args, ctx) => (doc instanceof UnparsedBody ? ctx.conversions.answerable(doc) : doc),
    }),
    text: t.string({
      description:
        'The plain text of the document, without markup: one line per block. Converted here, without an upstream request: once per document however many fields ask, charged in `gatewayPoints` by its size (a point per started 64 KiB of JSON).',
      resolve: (doc, _args, ctx) => ctx.conversions.convert('text', doc),
    }),
  }),
});

/** A rich-text document given by a client, as plain text or as JSON (`documentInput` checks it). */
export const DocumentInput = builder.inputType('DocumentInput', {
  description: 'A rich-text document: give either `text` (plain text, one paragraph per line) or `json`.',
  fields: (t) => ({
    text: t.string({ description: 'Plain text; each line becomes a paragraph.' }),
    json: t.field({ type: 'JSON', description: 'A full document `{ object: "document", data, nodes }`.' }),
  }),
});

const documentJson = z.object({
  object: z.literal('document', { message: 'must be a document: { object: "document", data, nodes }' }),
  data: z.record(z.string(), z.unknown()),
  nodes: z.array(z.unknown()),
  meta: z.record(z.string(), z.unknown()).optional(),
});

/** Zod for DocumentInput: exactly one of `text` or `json`, turned into a platform document. */
export const documentInput = z
  .object({ text: z.string().max(100_000).nullish(), json: z.unknown().optional() })
  .superRefine((value, ctx) => {
    const given = (value.text != null ? 1 : 0) + (value.json != null ? 1 : 0);
    if (given !== 1) ctx.addIssue({ code: 'custom', message: 'give exactly one of text or json' });
  })
  .transform((value, ctx) => {
    if (value.text != null) return documentFromLines(value.text);
    const parsed = documentJson.safeParse(value.json);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: ['json', ...issue.path] });
      return z.NEVER;
    }
    return parsed.data;
  });
