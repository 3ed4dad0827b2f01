import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { LANGUAGES } from '../contract/enums.js';
import {
  badRequest,
  newId,
  notFound,
  now,
  overLimit,
  pageFromArray,
  pageParams,
  pageWindow,
  parseBody,
  parseQuery,
} from '../http.js';
import type { Links } from '../links.js';
import { declareTables, type Db } from '../store/db.js';
import type { Translator, TranslationRequest } from './translator.js';

/**
 * The translation glossary of an organization: entries that each give one term in several
 * languages ("Workspace" in English is "Espace de travail" in French). A translation run from one
 * language into another keeps every term the glossary has in both: the source's term goes to the
 * translator as a placeholder it leaves alone, and comes back as the target's term. Admins only,
 * as translations are.
 */

declareTables('translation-glossary', [
  `
  CREATE TABLE glossary_entries (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    translations TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX glossary_entries_by_org ON glossary_entries(org_id, created_at);
  `,
]);

/** Operations one update takes, and entries one organization's glossary holds. */
export const GLOSSARY_LIMITS = { operations: 500, entries: 5000, termLength: 255 } as const;

interface EntryRow {
  id: string;
  org_id: string;
  translations: string;
  created_at: string;
  updated_at: string;
}

const term = z
  .string({ message: 'must be a term' })
  .trim()
  .min(1, 'must not be empty')
  .max(GLOSSARY_LIMITS.termLength, `must be at most ${GLOSSARY_LIMITS.termLength} characters`)
  .regex(/^[^\n\r]*$/, 'must be on one line');
const translations = z
  .partialRecord(z.enum(LANGUAGES, { message: `must be a language: ${LANGUAGES.join(', ')}` }), term)
  .refine((value) => Object.keys(value).length > 0, 'must give the term in at least one language');
const entryId = z.string({ message: 'must be a glossary entry id' }).min(1, 'must be a glossary entry id');
const operation = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('insert'), translations }),
    z.strictObject({ type: z.literal('update'), id: entryId, translations }),
    z.strictObject({ type: z.literal('delete'), id: entryId }),
  ],
  { message: 'must be an operation: insert, update or delete' },
);
const updateBody = z.strictObject({ operations: z.array(operation) });
const listQuery = z.object({ ...pageParams, orderBy: z.enum(LANGUAGES).optional() });

const entryJson = (row: EntryRow, links: Links) => ({
  object: 'glossary-entry' as const,
  id: row.id,
  translations: JSON.parse(row.translations) as Record<string, string>,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  urls: { location: `${links.api}/orgs/${row.org_id}/translations-glossary/${row.id}` },
});

const entriesOf = (db: Db, orgId: string) =>
  db.prepare('SELECT * FROM glossary_entries WHERE org_id = ? ORDER BY created_at, id').all(orgId) as EntryRow[];

/** Entries by their term in `language` (alphabetically, case and accents aside), those without it last. */
function byTerm(rows: EntryRow[], language: string): EntryRow[] {
  const collate = new Intl.Collator(language, { sensitivity: 'base' }).compare;
  const termOf = (row: EntryRow) => (JSON.parse(row.translations) as Record<string, string>)[language];
  return rows
    .map((row) => ({ row, term: termOf(row) }))
    .sort((a, b) =>
      a.term === undefined ? (b.term === undefined ? 0 : 1) : b.term === undefined ? -1 : collate(a.term, b.term),
    )
    .map(({ row }) => row);
}

/** Adds entries (language → term) to an organization's glossary, made `at`. */
export function insertGlossaryEntries(
  db: Db,
  orgId: string,
  entries: ReadonlyArray<Record<string, string>>,
  at: string,
): void {
  const insert = db.prepare(
    'INSERT INTO glossary_entries (id, org_id, translations, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
  );
  for (const translations of entries) insert.run(newId(), orgId, JSON.stringify(translations), at, at);
}

/** The operations of an update, refused past their count before any is read. */
function parseOperations(body: unknown): z.infer<typeof updateBody>['operations'] {
  const operations = (body as { operations?: unknown } | null)?.operations;
  if (Array.isArray(operations) && operations.length > GLOSSARY_LIMITS.operations) {
    throw overLimit(
      `Invalid body field "operations": at most ${GLOSSARY_LIMITS.operations} operations per update, got ${operations.length}`,
      { limit: 'operations', value: operations.length, max: GLOSSARY_LIMITS.operations },
      400,
    );
  }
  return parseBody(updateBody, body).operations;
}

/**
 * Applies a batch of operations in one transaction: all of them or, at the first refused, none
 * (a 400 naming the operation's place: `operations.3.id`).
 */
function applyOperations(db: Db, orgId: string, operations: z.infer<typeof updateBody>['operations']): void {
  const at = now();
  db.transaction(() => {
    operations.forEach((op, index) => {
      if (op.type === 'insert') {
        insertGlossaryEntries(db, orgId, [op.translations], at);
        return;
      }
      const changed =
        op.type === 'update'
          ? db
              .prepare('UPDATE glossary_entries SET translations = ?, updated_at = ? WHERE id = ? AND org_id = ?')
              .run(JSON.stringify(op.translations), at, op.id, orgId).changes
          : db.prepare('DELETE FROM glossary_entries WHERE id = ? AND org_id = ?').run(op.id, orgId).changes;
      if (changed === 0)
        throw badRequest(
          `Invalid body field "operations.${index}.id": no glossary entry ${op.id} in this organization`,
        );
    });
    const count = db.prepare('SELECT COUNT(*) FROM glossary_entries WHERE org_id = ?').pluck(true).get(orgId) as number;
    if (count > GLOSSARY_LIMITS.entries) {
      throw overLimit(
        `Invalid body field "operations": a glossary holds at most ${GLOSSARY_LIMITS.entries} entries, this update makes ${count}`,
        { limit: 'entries', value: count, max: GLOSSARY_LIMITS.entries },
        400,
      );
    }
  })();
}

type OrgParams = { organizationId: string };

/** `listGlossaryEntries`, `updateGlossaryEntries`, `getGlossaryEntry`. */
export function glossaryRoutes(app: FastifyInstance): void {
  app.get<{ Params: OrgParams }>('/orgs/:organizationId/translations-glossary', async (request) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const query = parseQuery(listQuery, request.query);
    const rows = entriesOf(db, org.id);
    return pageFromArray(query.orderBy ? byTerm(rows, query.orderBy) : rows, pageWindow(query), (row) =>
      entryJson(row, links),
    );
  });

  app.put<{ Params: OrgParams }>('/orgs/:organizationId/translations-glossary', async (request, reply) => {
    const { db, access } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    applyOperations(db, org.id, parseOperations(request.body));
    return reply.code(204).send();
  });

  app.get<{ Params: OrgParams & { glossaryEntryId: string } }>(
    '/orgs/:organizationId/translations-glossary/:glossaryEntryId',
    async (request) => {
      const { db, access, links } = request.ctx;
      const org = access.requireOrg(request.params.organizationId, 'admin');
      const row = db
        .prepare('SELECT * FROM glossary_entries WHERE id = ? AND org_id = ?')
        .get(request.params.glossaryEntryId, org.id) as EntryRow | undefined;
      if (!row) throw notFound('Glossary entry');
      return entryJson(row, links);
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Translation runs
// ---------------------------------------------------------------------------------------------

/** A glossary term in a run's source language and the term to write in its target language. */
export type TermPair = readonly [source: string, target: string];

/** The pairs of terms an organization's glossary gives from `from` into `to`, in a stable order. */
export function glossaryPairs(db: Db, orgId: string, from: string, to: string): TermPair[] {
  const pairs: TermPair[] = [];
  for (const row of entriesOf(db, orgId)) {
    const terms = JSON.parse(row.translations) as Record<string, string>;
    if (terms[from] && terms[to]) pairs.push([terms[from], terms[to]]);
  }
  return pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A placeholder a translator leaves as it is: digits in brackets that are no letters of any language. */
const placeholder = (index: number) => `⟪${index}⟫`;
const PLACEHOLDERS = /⟪\s*(\d+)\s*⟫/g;

/**
 * What keeps the glossary's terms through a translator: `protect` sends each source term found as
 * a whole word (any case; the longest first, so "API key" wins over "API") as a placeholder, and
 * `restore` puts the target term in its place in the translation. A placeholder the translator
 * lost loses its term.
 */
export function termKeeper(pairs: readonly TermPair[]) {
  const ordered = pairs.map((pair, index) => ({ pair, index })).sort((a, b) => b.pair[0].length - a.pair[0].length);
  const alternatives = ordered.map(({ pair }) => `(${pair[0].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})`);
  const terms = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'giu');
  return {
    protect: (texts: readonly string[]) =>
      pairs.length === 0
        ? [...texts]
        : texts.map((text) =>
            text.replace(terms, (...match: unknown[]) => {
              const groups = match.slice(1, ordered.length + 1) as Array<string | undefined>;
              return placeholder(ordered[groups.findIndex((group) => group !== undefined)]!.index);
            }),
          ),
    restore: (texts: readonly string[]) =>
      texts.map((text) => text.replace(PLACEHOLDERS, (whole, index: string) => pairs[Number(index)]?.[1] ?? whole)),
  };
}

/** Translates `request.texts` keeping the glossary's `pairs` (`termKeeper`). */
export async function translateKeepingTerms(
  translator: Translator,
  request: TranslationRequest,
  pairs: readonly TermPair[],
): Promise<string[]> {
  const keeper = termKeeper(pairs);
  return keeper.restore(await translator.translate({ ...request, texts: keeper.protect(request.texts) }));
}
