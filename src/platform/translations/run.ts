import { canonicalJson, hashOf } from '../content/blobs.js';
import { prepareDocument, setCurrentRevision, stageIndex } from '../content/current.js';
import type { JSONDocument } from '../../document/model.js';
import {
  getDocument,
  loadRevision,
  PreparedDocument,
  putDocument,
  storeRevision,
  writeContentAhead,
  type ContentPage,
  type RevisionContent,
} from '../content/revisions.js';
import { newId, now } from '../http.js';
import { PermanentJobError, type JobQueue } from '../jobs.js';
import { runAtOnce, runInSlices, writeInSlices, type Steps } from '../slices.js';
import type { SpaceRow } from '../rows.js';
import { applyOrder, planPlacement } from '../tree/positions.js';
import { insertSpace } from '../spaces/store.js';
import type { Db } from '../store/db.js';
import { documentSlots, TextSlots, wordCount } from './extract.js';
import { findTranslation, TRANSLATION_JOB, type TranslationRow } from './store.js';
import { pseudoLocalize, pseudoTranslator, TranslatorError, type Translator } from './translator.js';
import { glossaryPairs, termKeeper, translateKeepingTerms, type TermPair } from './glossary.js';

/**
 * A translation run: the source space's current content, translated, becomes a new revision of
 * the result space (created by the first run: a locked space in the source's collection, in the
 * target language). Pages keep their ids, order, nesting and settings; titles, descriptions, link
 * titles and document text are translated (code, formulas, URLs and references are not). Each
 * page and reusable content keeps the fingerprint of what it was translated from: a later run
 * translates only those whose text changed (or that are new), reuses the stored translation of
 * the others, and follows pages added, removed and moved. A run is planned (what to translate),
 * translated, written ahead (documents, content nodes, search rows: in time slices, nothing
 * reads them yet) and applied in one short transaction that moves the result space's revision.
 * A first run creates the result space before writing to it: empty, without a result until the
 * run completes, and kept for the next run if this one fails.
 */

type ItemKind = 'page' | 'reusable';

/** The texts of a page or reusable content that are translated. */
interface TranslatedFields {
  title: string;
  description?: string;
  linkTitle?: string;
  /** Id of the translated document in `resultSpace`. */
  documentId?: string;
}

interface CachedItem {
  source_hash: string;
  result_space: string;
  translated: string;
}

interface PlannedItem {
  kind: ItemKind;
  id: string;
  /** Fingerprint of the source texts and of the translation settings. */
  hash: string;
  /** A translation kept from an earlier run, with the space its document is in. */
  kept?: { fields: TranslatedFields; resultSpace: string };
  /** Texts to translate: filled in by `slots.apply`; the document is prepared for storing by `prepareWrites`. */
  fresh?: {
    fields: Omit<TranslatedFields, 'documentId'>;
    document: JSONDocument | PreparedDocument | undefined;
    words: number;
  };
}

/** What a run translates. */
export interface RunPlan {
  translation: TranslationRow;
  source: SpaceRow;
  sourceRevision: string;
  content: RevisionContent;
  items: Map<string, PlannedItem>;
  /** Every text to translate, in one list for the translator. */
  slots: TextSlots;
  instructions: JSONDocument;
  /** The glossary's terms from the source's language into the translation's, kept by the translator. */
  glossary: TermPair[];
  startedAt: number;
  /** Where `writeAhead` wrote the run's documents, content nodes and search rows, and the content. */
  writtenAhead?: { spaceId: string; content: RevisionContent };
}

const itemKey = (kind: ItemKind, id: string) => `${kind}:${id}`;

/** The result space of a translation if it is still a live space. */
function liveResultSpace(db: Db, row: TranslationRow): SpaceRow | undefined {
  if (!row.result_space) return undefined;
  return db.prepare('SELECT * FROM spaces WHERE id = ? AND deleted_at IS NULL').get(row.result_space) as
    | SpaceRow
    | undefined;
}

function flattenPages(pages: readonly ContentPage[]): ContentPage[] {
  return pages.flatMap((page) => [page, ...flattenPages(page.pages)]);
}

/**
 * What a run of the translation must translate now; undefined when the translation is gone.
 * The source must be a live space (else the run fails for good).
 */
export function prepareRun(db: Db, translationId: string, translator: Pick<Translator, 'id'>): RunPlan | undefined {
  return runAtOnce(planRun(db, translationId, translator));
}

/** The planning of a run, one page or reusable content per step. */
function* planRun(db: Db, translationId: string, translator: Pick<Translator, 'id'>): Steps<RunPlan | undefined> {
  const startedAt = Date.now();
  const translation = findTranslation(db, translationId);
  if (!translation) return undefined;
  const source = db.prepare('SELECT * FROM spaces WHERE id = ?').get(translation.source_space) as SpaceRow | undefined;
  if (!source || source.deleted_at)
    throw new PermanentJobError('the source space is deleted: restore it to run the translation');
  const revision = loadRevision(db, source.id, source.revision);
  if (!revision) throw new Error(`Revision ${source.revision} of space ${source.id} is missing`);
  const instructions = JSON.parse(translation.instructions) as JSONDocument;
  const glossary = glossaryPairs(db, translation.org_id, translation.source_language, translation.language);
  // What decides a translation beyond the source texts: changing any translates everything again.
  const settings = hashOf(
    canonicalJson({
      translator: translator.id,
      from: translation.source_language,
      to: translation.language,
      instructions,
      // Absent without terms, so that translations made before the glossary keep their pages.
      ...(glossary.length > 0 ? { glossary } : {}),
    }),
  );
  const target = liveResultSpace(db, translation)?.id;
  const cached = new Map(
    (
      db
        .prepare(
          'SELECT kind, item_id, source_hash, result_space, translated FROM translation_items WHERE translation_id = ?',
        )
        .all(translation.id) as Array<CachedItem & { kind: ItemKind; item_id: string }>
    ).map((row) => [itemKey(row.kind, row.item_id), row]),
  );

  const slots = new TextSlots();
  const items = new Map<string, PlannedItem>();
  const planItem = (
    kind: ItemKind,
    id: string,
    fields: Omit<TranslatedFields, 'documentId'>,
    documentId: string | undefined,
  ) => {
    const hash = hashOf(canonicalJson({ settings, ...fields, documentId: documentId ?? null }));
    const stored = cached.get(itemKey(kind, id));
    if (stored && stored.source_hash === hash) {
      const kept = JSON.parse(stored.translated) as TranslatedFields;
      // Its document is read from the space it was written to when the result space changed.
      if (!kept.documentId || stored.result_space === target || getDocument(db, stored.result_space, kept.documentId)) {
        items.set(itemKey(kind, id), { kind, id, hash, kept: { fields: kept, resultSpace: stored.result_space } });
        return;
      }
    }
    const first = slots.texts.length;
    const translated: Omit<TranslatedFields, 'documentId'> = { ...fields };
    for (const field of ['title', 'description', 'linkTitle'] as const) {
      const text = fields[field];
      if (text !== undefined) slots.add(text, (value) => (translated[field] = value));
    }
    const body = documentId ? getDocument<JSONDocument>(db, source.id, documentId) : undefined;
    const document = body ? documentSlots(body, slots) : undefined;
    const words = slots.texts.slice(first).reduce((sum, text) => sum + wordCount(text), 0);
    items.set(itemKey(kind, id), { kind, id, hash, fresh: { fields: translated, document, words } });
  };
  for (const page of flattenPages(revision.content.pages)) {
    planItem(
      'page',
      page.id,
      {
        title: page.title,
        ...(page.description ? { description: page.description } : {}),
        ...(page.linkTitle ? { linkTitle: page.linkTitle } : {}),
      },
      page.documentId,
    );
    yield;
  }
  for (const reusable of revision.content.reusableContents) {
    planItem('reusable', reusable.id, { title: reusable.title }, reusable.documentId);
    yield;
  }
  return {
    translation,
    source,
    sourceRevision: revision.id,
    content: revision.content,
    items,
    slots,
    instructions,
    glossary,
    startedAt,
  };
}

/** Keeps a space title within the 50 characters of the API. */
function resultTitle(source: SpaceRow, language: string): string {
  const suffix = ` (${language.toUpperCase()})`;
  return `${source.title.slice(0, 50 - suffix.length).trimEnd()}${suffix}`;
}

/** Creates the result space of a translation's first run (or of a run after it was deleted). */
function createResultSpace(db: Db, translation: TranslationRow, sourceId: string): SpaceRow {
  // The source as it is now: it may have moved since the run started.
  const source = db.prepare('SELECT * FROM spaces WHERE id = ?').get(sourceId) as SpaceRow;
  // Private until its admins publish it: it is a machine translation. Locked: it is written
  // by the translation only (edits would be overwritten by the next run).
  const id = insertSpace(db, {
    orgId: source.org_id,
    parentId: source.parent_id,
    title: resultTitle(source, translation.language),
    emoji: source.emoji,
    visibility: 'private',
    editMode: 'locked',
    language: translation.language,
  });
  // Right after its source, as a duplicate is.
  applyOrder(
    db,
    planPlacement(
      db,
      source.org_id,
      source.parent_id,
      { kind: 'space', id },
      { after: { type: 'space', space: source.id } },
    ).order,
  );
  // It has no result until a run completes in it.
  db.prepare('UPDATE translations SET result_space = ?, result_revision = NULL WHERE id = ?').run(id, translation.id);
  return db.prepare('SELECT * FROM spaces WHERE id = ?').get(id) as SpaceRow;
}

/**
 * Puts the translations (`translated`, one per `plan.slots.texts`) in place and writes ahead, in
 * time slices, everything `applyRun`'s transaction would otherwise do on the request thread: the
 * result space (created empty on a first run: it has no result until the run completes), the
 * translated documents (validated, serialized and stored by hash: nothing reads them until a
 * revision points at them) and the result space's search rows (`stageIndex`).
 */
export async function writeAhead(db: Db, plan: RunPlan, translated: readonly string[]): Promise<void> {
  plan.slots.apply(translated);
  const resultSpace = db.transaction(() => {
    const translation = findTranslation(db, plan.translation.id);
    return translation && (liveResultSpace(db, translation) ?? createResultSpace(db, translation, plan.source.id));
  })();
  if (!resultSpace) return;
  await runInSlices(prepareDocuments(db, plan, resultSpace.id));
  const final = finalFields(plan);
  const write = itemWriter(db, plan, resultSpace.id, final);
  const stillThere = db.prepare('SELECT 1 FROM translations WHERE id = ?').pluck(true);
  await writeInSlices(db, plan.items.entries(), ([key, item]) => {
    // Deleted meanwhile: `applyRun` will do nothing, and nothing more is written.
    if (stillThere.get(plan.translation.id)) write(key, item);
  });
  const content = await writeContentAhead(db, resultContent(plan, final));
  await stageIndex(db, resultSpace.id, content);
  plan.writtenAhead = { spaceId: resultSpace.id, content };
}

/**
 * Writes an item of a run to the result space: its translated document (a kept one is copied
 * when the result space was replaced) and what it was translated from. The latter is what later
 * runs reuse, so it may be written ahead of the run's revision: it names documents the result
 * space holds already.
 */
function itemWriter(
  db: Db,
  plan: RunPlan,
  spaceId: string,
  final: Map<string, TranslatedFields>,
): (key: string, item: PlannedItem) => void {
  const at = now();
  const save = db.prepare(
    `INSERT INTO translation_items (translation_id, kind, item_id, source_hash, result_space, translated, translated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (translation_id, kind, item_id) DO UPDATE SET
       source_hash = excluded.source_hash, result_space = excluded.result_space, translated = excluded.translated, translated_at = excluded.translated_at`,
  );
  const moveKept = db.prepare(
    'UPDATE translation_items SET result_space = ? WHERE translation_id = ? AND kind = ? AND item_id = ?',
  );
  return (key, item) => {
    const fields = final.get(key)!;
    if (item.kept) {
      if (item.kept.resultSpace === spaceId) return;
      // The result space was replaced: its documents move to the new one.
      if (fields.documentId) putDocument(db, spaceId, getDocument(db, item.kept.resultSpace, fields.documentId));
      moveKept.run(spaceId, plan.translation.id, item.kind, item.id);
      return;
    }
    if (item.fresh!.document) putDocument(db, spaceId, item.fresh!.document);
    save.run(plan.translation.id, item.kind, item.id, item.hash, spaceId, JSON.stringify(fields), at);
  };
}

/** Validates and serializes the translated documents for the result space, one per step. */
function* prepareDocuments(db: Db, plan: RunPlan, resultSpace: string): Steps<void> {
  for (const item of plan.items.values()) {
    if (!item.fresh?.document) continue;
    item.fresh.document = prepareDocument(db, resultSpace, item.fresh.document);
    yield;
  }
}

/** The texts of every page and reusable content once the run is applied (document ids are those of any space). */
function finalFields(plan: RunPlan): Map<string, TranslatedFields> {
  const final = new Map<string, TranslatedFields>();
  for (const [key, item] of plan.items) {
    if (item.kept) {
      final.set(key, item.kept.fields);
      continue;
    }
    const { fields, document } = item.fresh!;
    final.set(key, { ...fields, ...(document ? { documentId: documentIdOf(document) } : {}) });
  }
  return final;
}

/** A document's id, prepared or not (the id derives from the bytes, whatever the space). */
const documentIdOf = (document: JSONDocument | PreparedDocument) =>
  (document instanceof PreparedDocument ? document : new PreparedDocument(document)).id;

/** The result space's content: the source's, translated. */
function resultContent(plan: RunPlan, final: Map<string, TranslatedFields>): RevisionContent {
  const translatePage = (page: ContentPage): ContentPage => {
    const {
      git: _git,
      pages: children,
      documentId: _document,
      description: _description,
      linkTitle: _linkTitle,
      ...rest
    } = page;
    const fields = final.get(itemKey('page', page.id))!;
    return {
      ...rest,
      title: fields.title,
      ...(fields.description !== undefined ? { description: fields.description } : {}),
      ...(fields.linkTitle !== undefined ? { linkTitle: fields.linkTitle } : {}),
      ...(fields.documentId ? { documentId: fields.documentId } : {}),
      pages: children.map(translatePage),
    };
  };
  return {
    pages: plan.content.pages.map(translatePage),
    // Files are shared (stored by hash); Git locations belong to the source's repository.
    files: plan.content.files.map(({ git: _git, ...file }) => file),
    reusableContents: plan.content.reusableContents.map(({ git: _git, documentId: _document, ...reusable }) => {
      const fields = final.get(itemKey('reusable', reusable.id))!;
      return { ...reusable, title: fields.title, ...(fields.documentId ? { documentId: fields.documentId } : {}) };
    }),
    variables: plan.content.variables,
  };
}

/**
 * Writes a run's outcome (translations put in place, by `writeAhead` or by `translated`): the
 * result space gets a new current revision, the kept translations and statistics are updated.
 * After `writeAhead`, its documents and search rows are written already and this only records
 * them; otherwise (seeding, or a result space replaced meanwhile) it writes them itself. Does
 * nothing when the translation was deleted meanwhile.
 */
export function applyRun(db: Db, plan: RunPlan, translated?: readonly string[]): void {
  if (translated) plan.slots.apply(translated);
  db.transaction(() => {
    const translation = findTranslation(db, plan.translation.id);
    if (!translation) return;
    const resultSpace = liveResultSpace(db, translation) ?? createResultSpace(db, translation, plan.source.id);
    const spaceId = resultSpace.id;
    // Written ahead to this space: only the revision moves here. Otherwise (seeding, or a result
    // space replaced meanwhile) the items are written now.
    let content = plan.writtenAhead?.spaceId === spaceId ? plan.writtenAhead.content : undefined;
    if (!content) {
      const final = finalFields(plan);
      const write = itemWriter(db, plan, spaceId, final);
      for (const [key, item] of plan.items) write(key, item);
      content = resultContent(plan, final);
    }
    const fresh = [...plan.items.values()].flatMap((item) =>
      item.fresh ? [{ kind: item.kind, words: item.fresh.words }] : [],
    );
    const pages = fresh.filter((item) => item.kind === 'page').length;
    const words = fresh.reduce((sum, item) => sum + item.words, 0);
    const at = now();
    const revision = storeRevision(db, {
      spaceId,
      type: 'edits',
      parents: [resultSpace.revision],
      content,
      createdAt: at,
    });
    setCurrentRevision(db, spaceId, revision);
    const duration = Math.max(0, Date.now() - plan.startedAt);
    db.prepare(
      `UPDATE translations SET result_space = ?, result_revision = ?, source_revision = ?, runs = runs + 1,
         total_words = total_words + ?, total_duration_ms = total_duration_ms + ?, latest_duration_ms = ?,
         latest_pages = ?, latest_words = ?, last_error = NULL, last_error_at = NULL, updated_at = ?
       WHERE id = ?`,
    ).run(spaceId, revision, plan.sourceRevision, words, duration, duration, pages, words, at, translation.id);
  })();
}

/** A queued run. */
export interface TranslationJob {
  translation: string;
}

/**
 * Registers translation runs on the queue. A run interrupted by a restart runs again; a run whose
 * translator fails is retried (see `RUN_ATTEMPTS`), and one that fails for good leaves the
 * translation as it was (its last result, `completed`, or `pending` before any) with the reason
 * in `lastRunError`.
 */
export function registerTranslations(queue: JobQueue, translator: Translator): void {
  queue.register<TranslationJob>(TRANSLATION_JOB, {
    interrupted: 'resume',
    async run({ translation }, { db }) {
      const plan = await runInSlices(planRun(db, translation, translator));
      if (!plan) return;
      let translated: string[] = [];
      if (plan.slots.texts.length > 0) {
        try {
          translated = await translateKeepingTerms(
            translator,
            {
              texts: plan.slots.texts,
              source: plan.translation.source_language,
              target: plan.translation.language,
              instructions: plan.instructions,
            },
            plan.glossary,
          );
        } catch (error) {
          if (error instanceof TranslatorError && !error.retryable) throw new PermanentJobError(error.message);
          throw error;
        }
      }
      await writeAhead(db, plan, translated);
      applyRun(db, plan);
    },
    failed({ translation }, reason, { db }) {
      db.prepare('UPDATE translations SET last_error = ?, last_error_at = ? WHERE id = ?').run(
        reason,
        now(),
        translation,
      );
    },
  });
}

/**
 * Stores a demo translation (`demo-content/translations.json`) with one completed run, made at seed time,
 * synchronously, with pseudo-localization.
 */
export function seedDemoTranslation(
  db: Db,
  orgId: string,
  translation: { sourceSpaceId: string; sourceLanguage: string; language: string; instructions: unknown },
  createdAt: string,
): void {
  const id = newId();
  db.prepare(
    `INSERT INTO translations (id, org_id, source_space, source_language, language, instructions, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    orgId,
    translation.sourceSpaceId,
    translation.sourceLanguage,
    translation.language,
    JSON.stringify(translation.instructions),
    createdAt,
    createdAt,
  );
  const plan = prepareRun(db, id, pseudoTranslator)!;
  const keeper = termKeeper(plan.glossary);
  applyRun(db, plan, keeper.restore(keeper.protect(plan.slots.texts).map(pseudoLocalize)));
}
