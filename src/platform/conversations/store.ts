import { createHash } from 'node:crypto';
import { badRequest, laterThan, newId, notFound, notFoundInBody, type PageWindow } from '../http.js';
import type { Db } from '../store/db.js';
import { documentOf, paragraph, type JSONDocument } from '../../document/model.js';
import { agglomerateSteps, clusterCentroid, nearestCluster, type Clusterable } from './text/cluster.js';
import { addWords, byCentrality, clusterIcon, clusterLabel, type WordForms } from './text/describe.js';
import { clusterImpact, maxImpact, type Impact } from './text/impact.js';
import { splitIssuesSteps } from './text/split.js';
import { runAtOnce, runInSlices, type Steps } from '../slices.js';
import { Corpus } from './text/vectors.js';

/**
 * Conversations of an organization (support chats, tickets, feedback sent by other tools), the
 * issues found in them and the clusters of those issues. Ingesting a conversation splits it
 * into issues at once (text/split.ts); the new issues of an ingest then join the existing
 * cluster they are most similar to, and those that join none are clustered among themselves
 * (text/cluster.ts), each group a new cluster. A conversation ingested again under the same id
 * replaces the first: unchanged text keeps its issues, changed text is split again. Clusters
 * whose issues changed get their label, icon, summary, impact and counts again; a cluster left
 * without issues is deleted, unless a change request names it. An ingest runs in steps
 * (`ingestConversationsInSlices`): a megabyte of text takes seconds to split and cluster, which
 * must not hold the platform's other requests. Plain functions over the store; the routes
 * parse, authorize and call them.
 */

/** Most conversations one ingest takes. */
export const MAX_INGEST_BATCH = 100;
/** Characters of text (subject and messages) one conversation may hold. */
export const MAX_CONVERSATION_CHARS = 100_000;
/** Characters of text (subjects and messages) one ingest may hold, all its conversations together. */
export const MAX_INGEST_CHARS = 2_000_000;
/** Most central issues of a cluster whose words spell its label (the others only weigh in its terms). */
export const LABEL_SAMPLE = 10;

/** The source of conversations ingested without one. */
export const DEFAULT_SOURCE = 'api';

export interface ConversationRow {
  org_id: string;
  id: string;
  source: string;
  subject: string | null;
  url: string | null;
  /** JSON map of strings. */
  attributes: string;
  /** `metadata.createdAt` as given, if given. */
  metadata_created_at: string | null;
  /** JSON array of `{ type, role, body }`. */
  parts: string;
  /** Hash of what issues are made of (subject and parts): unchanged text is not split again. */
  fingerprint: string;
  impact: Impact;
  created_at: string;
  ingested_at: string;
  processed_at: string;
  updated_at: string;
}

export interface IssueRow {
  id: string;
  org_id: string;
  conversation_id: string;
  position: number;
  cluster_id: string | null;
  title: string;
  /** JSON of a Document. */
  details: string;
  impact: Impact;
  /** JSON `[[term, count], …]`. */
  terms: string;
  /** The issue's sentences as written, for cluster labels. */
  body: string;
  created_at: string;
  ingested_at: string;
}

export interface ClusterRow {
  id: string;
  org_id: string;
  label: string;
  icon: string;
  /** JSON of a Document. */
  summary: string;
  impact: Impact;
  muted: 0 | 1;
  issue_count: number;
  conversation_count: number;
  /** JSON map from source to number of conversations. */
  sources: string;
  created_at: string;
  updated_at: string;
}

/** A conversation as an ingest gives it (validated by the route). */
export interface ConversationInput {
  id: string;
  subject?: string | undefined;
  source?: string | undefined;
  metadata?:
    | { url?: string | undefined; attributes?: Record<string, string> | undefined; createdAt?: string | undefined }
    | undefined;
  parts: Array<{ type: 'message'; role: string; body: string }>;
}

export interface IngestResult {
  created: number;
  updated: number;
  unchanged: number;
}

/** A document of one paragraph per text. */
function textDocument(texts: readonly string[]): JSONDocument {
  const document = documentOf(texts.map((text) => paragraph(text)));
  document.data = { schemaVersion: 1 };
  return document;
}

function fingerprintOf(input: ConversationInput): string {
  const material = JSON.stringify([input.subject ?? null, input.parts.map((part) => [part.role, part.body])]);
  return createHash('sha256').update(material).digest('hex');
}

function readTerms(row: Pick<IssueRow, 'terms'>): Map<string, number> {
  return new Map(JSON.parse(row.terms) as Array<[string, number]>);
}

/** Characters of text a conversation holds: its subject and its messages. */
export function conversationChars(input: Pick<ConversationInput, 'subject' | 'parts'>): number {
  return (input.subject?.length ?? 0) + input.parts.reduce((sum, part) => sum + part.body.length, 0);
}

/**
 * Ingests conversations into an organization at `at`, all at once (demo data). Each is created,
 * or replaces the one of the same id; new issues are clustered. Conversations of one batch are
 * taken in order, so a later one of the same id wins.
 */
export function ingestConversations(
  db: Db,
  orgId: string,
  inputs: readonly ConversationInput[],
  at: string,
): IngestResult {
  return runAtOnce(ingestSteps(db, orgId, inputs, at));
}

/**
 * Ingests under way, by database and organization: the next one of an organization waits for them.
 * The one place ingests are put in order, whoever asks (the API, the clustering resumed at start).
 */
const ingestsUnderWay = new WeakMap<Db, Map<string, Promise<unknown>>>();

/**
 * `ingestConversations` a slice of time at a time, so that the seconds a megabyte of text takes
 * (splitting it, clustering its issues) leave the platform answering other requests. Ingests of
 * one organization run one after the other.
 */
export function ingestConversationsInSlices(
  db: Db,
  orgId: string,
  inputs: readonly ConversationInput[],
  at: string,
): Promise<IngestResult> {
  let queue = ingestsUnderWay.get(db);
  if (!queue) {
    queue = new Map();
    ingestsUnderWay.set(db, queue);
  }
  const ingest = () => runInSlices(ingestSteps(db, orgId, inputs, at));
  const run = (queue.get(orgId) ?? Promise.resolve()).then(ingest, ingest);
  queue.set(orgId, run);
  const forget = () => {
    if (queue.get(orgId) === run) queue.delete(orgId);
  };
  run.then(forget, forget);
  return run;
}

/**
 * An ingest in steps: each conversation is split and written in a transaction of its own; then
 * the issues of the organization that have no cluster yet (those just written, and any an
 * interrupted ingest left) are clustered; then the clusters that changed are described again,
 * one after the other.
 */
function* ingestSteps(db: Db, orgId: string, inputs: readonly ConversationInput[], at: string): Steps<IngestResult> {
  const result: IngestResult = { created: 0, updated: 0, unchanged: 0 };
  /** Clusters whose issues (or their conversations' sources) changed. */
  const touched = new Set<string>();
  for (const input of inputs) {
    yield;
    const written = yield* writeConversation(db, orgId, input, at);
    result[written.outcome] += 1;
    for (const cluster of written.touched) touched.add(cluster);
  }
  // Nothing to cluster or describe (an ingest of unchanged conversations): the organization's
  // vectors, which take time in proportion to all its issues, are not read.
  if (touched.size === 0 && !hasUnclusteredIssues(db, orgId)) return result;
  yield;
  const vectors = yield* issueVectors(db, orgId);
  for (const cluster of yield* clusterPendingIssues(db, orgId, vectors, at)) touched.add(cluster);
  for (const cluster of [...touched].sort()) {
    yield;
    yield* refreshCluster(db, cluster, vectors, at);
  }
  return result;
}

/**
 * Splits and writes one conversation (the write one transaction): created, updated with its
 * issues found again, or unchanged (its metadata only). Its new issues have no cluster yet.
 * Answers what happened and the clusters of its former issues. What it read before splitting
 * still holds when it writes: ingests of an organization run one after the other.
 */
function* writeConversation(
  db: Db,
  orgId: string,
  input: ConversationInput,
  at: string,
): Steps<{ outcome: keyof IngestResult; touched: string[] }> {
  const existing = db.prepare('SELECT * FROM conversations WHERE org_id = ? AND id = ?').get(orgId, input.id) as
    | ConversationRow
    | undefined;
  const fingerprint = fingerprintOf(input);
  const createdAt = input.metadata?.createdAt
    ? new Date(input.metadata.createdAt).toISOString()
    : (existing?.created_at ?? at);
  const source = input.source ?? input.metadata?.attributes?.source ?? DEFAULT_SOURCE;
  const metadata = [
    source,
    input.metadata?.url ?? null,
    JSON.stringify(input.metadata?.attributes ?? {}),
    input.metadata?.createdAt ?? null,
    createdAt,
  ] as const;
  const clustersOf = () =>
    db
      .prepare(
        'SELECT DISTINCT cluster_id FROM conversation_issues WHERE org_id = ? AND conversation_id = ? AND cluster_id IS NOT NULL',
      )
      .pluck(true)
      .all(orgId, input.id) as string[];

  if (existing && existing.fingerprint === fingerprint) {
    return db.transaction(() => {
      db.prepare(
        'UPDATE conversations SET source = ?, url = ?, attributes = ?, metadata_created_at = ?, created_at = ?, updated_at = ? WHERE org_id = ? AND id = ?',
      ).run(...metadata, at, orgId, input.id);
      db.prepare('UPDATE conversation_issues SET created_at = ? WHERE org_id = ? AND conversation_id = ?').run(
        createdAt,
        orgId,
        input.id,
      );
      return { outcome: 'unchanged' as const, touched: existing.source !== source ? clustersOf() : [] };
    })();
  }

  const drafts = yield* splitIssuesSteps({ subject: input.subject, parts: input.parts });
  const impact = maxImpact(drafts.map((draft) => draft.impact));
  return db.transaction(() => {
    let touched: string[] = [];
    if (existing) {
      touched = clustersOf();
      db.prepare('DELETE FROM conversation_issues WHERE org_id = ? AND conversation_id = ?').run(orgId, input.id);
      db.prepare(
        `UPDATE conversations SET source = ?, url = ?, attributes = ?, metadata_created_at = ?, created_at = ?,
           subject = ?, parts = ?, fingerprint = ?, impact = ?, processed_at = ?, updated_at = ? WHERE org_id = ? AND id = ?`,
      ).run(
        ...metadata,
        input.subject ?? null,
        JSON.stringify(input.parts),
        fingerprint,
        impact,
        at,
        at,
        orgId,
        input.id,
      );
    } else {
      db.prepare(
        `INSERT INTO conversations (org_id, id, source, url, attributes, metadata_created_at, created_at, subject, parts, fingerprint,
           impact, ingested_at, processed_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        orgId,
        input.id,
        ...metadata,
        input.subject ?? null,
        JSON.stringify(input.parts),
        fingerprint,
        impact,
        at,
        at,
        at,
      );
    }
    const insertIssue = db.prepare(
      `INSERT INTO conversation_issues (id, org_id, conversation_id, position, title, details, impact, terms, body, created_at, ingested_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    drafts.forEach((draft, position) => {
      const details = textDocument(draft.paragraphs.map((sentences) => sentences.join(' ')));
      insertIssue.run(
        newId(),
        orgId,
        input.id,
        position,
        draft.title,
        JSON.stringify(details),
        draft.impact,
        JSON.stringify([...draft.terms]),
        draft.text,
        createdAt,
        at,
      );
    });
    return { outcome: existing ? ('updated' as const) : ('created' as const), touched };
  })();
}

/** True when issues of the organization have no cluster yet: those of an ingest under way, or of an interrupted one. */
function hasUnclusteredIssues(db: Db, orgId: string): boolean {
  return (
    db.prepare('SELECT 1 FROM conversation_issues WHERE org_id = ? AND cluster_id IS NULL LIMIT 1').get(orgId) !==
    undefined
  );
}

interface IssueVector extends Clusterable {
  clusterId: string | null;
}

/** Issues read at a time: the organization's are read a page at a time, between pauses. */
const ISSUE_PAGE = 500;

/**
 * Every issue of an organization with its TF-IDF vector over all of them (the corpus). Only ids,
 * clusters and term counts are read: the issues' text stays in the database until a cluster's
 * description needs it.
 */
function* issueVectors(db: Db, orgId: string): Steps<Map<string, IssueVector>> {
  const page = db.prepare(
    'SELECT id, cluster_id, terms FROM conversation_issues WHERE org_id = ? AND id > ? ORDER BY id LIMIT ?',
  );
  const rows: Array<Pick<IssueRow, 'id' | 'cluster_id'>> = [];
  const counts: Array<Map<string, number>> = [];
  for (let after = ''; ; ) {
    yield;
    const found = page.all(orgId, after, ISSUE_PAGE) as Array<Pick<IssueRow, 'id' | 'cluster_id' | 'terms'>>;
    for (const row of found) {
      rows.push({ id: row.id, cluster_id: row.cluster_id });
      counts.push(readTerms(row));
    }
    if (found.length < ISSUE_PAGE) break;
    after = found[found.length - 1]!.id;
  }
  const corpus = new Corpus(counts);
  const vectors = new Map<string, IssueVector>();
  for (const [index, row] of rows.entries()) {
    if (index % ISSUE_PAGE === 0) yield;
    vectors.set(row.id, { id: row.id, clusterId: row.cluster_id, vector: corpus.vector(counts[index]!) });
  }
  return vectors;
}

/**
 * Puts the issues without a cluster in clusters: each joins the existing cluster nearest to it
 * (as the clusters were before, so the order of the new issues does not matter), or else is
 * clustered with the other new issues that joined none, each group a new cluster (written in one
 * transaction). Answers the clusters that changed.
 */
function* clusterPendingIssues(
  db: Db,
  orgId: string,
  vectors: Map<string, IssueVector>,
  at: string,
): Steps<Set<string>> {
  const changed = new Set<string>();
  const members = new Map<string, IssueVector[]>();
  const pending: IssueVector[] = [];
  for (const issue of vectors.values()) {
    if (issue.clusterId) members.set(issue.clusterId, [...(members.get(issue.clusterId) ?? []), issue]);
    else pending.push(issue);
  }
  if (pending.length === 0) return changed;
  const centroids = [...members.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([id, items]) => ({ id, centroid: clusterCentroid(items) }));
  yield;
  const joining: Array<[issue: IssueVector, clusterId: string]> = [];
  const alone: IssueVector[] = [];
  for (const issue of pending.sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const nearest = nearestCluster(issue.vector, centroids);
    if (nearest) joining.push([issue, nearest.id]);
    else alone.push(issue);
  }
  const groups = yield* agglomerateSteps(alone);
  db.transaction(() => {
    const assign = db.prepare('UPDATE conversation_issues SET cluster_id = ? WHERE id = ?');
    for (const [issue, clusterId] of joining) {
      assign.run(clusterId, issue.id);
      issue.clusterId = clusterId;
      changed.add(clusterId);
    }
    for (const group of groups) {
      const clusterId = newId();
      db.prepare(
        `INSERT INTO conversation_clusters (id, org_id, label, icon, summary, impact, muted, issue_count, conversation_count, sources, created_at, updated_at)
         VALUES (?, ?, '', '', '{}', 'low', 0, 0, 0, '{}', ?, ?)`,
      ).run(clusterId, orgId, at, at);
      for (const id of group) {
        assign.run(clusterId, id);
        vectors.get(id)!.clusterId = clusterId;
      }
      changed.add(clusterId);
    }
  })();
  return changed;
}

/** `at`, or just after `previous` when `at` is not later (updates stay in order). */
function after(previous: string, at: string): string {
  const before = Date.parse(previous);
  return Date.parse(at) > before ? at : new Date(before + 1).toISOString();
}

/** Describes a cluster again from its issues; deletes it when it has none and no change request names it. */
function* refreshCluster(db: Db, clusterId: string, vectors: Map<string, IssueVector>, at: string): Steps<void> {
  const cluster = db.prepare('SELECT * FROM conversation_clusters WHERE id = ?').get(clusterId) as
    | ClusterRow
    | undefined;
  if (!cluster) return;
  // Not the issues' details: a large cluster's would take longer to read than all the rest.
  const issues = db
    .prepare('SELECT id, impact FROM conversation_issues WHERE cluster_id = ? ORDER BY id')
    .all(clusterId) as Array<Pick<IssueRow, 'id' | 'impact'>>;
  const updatedAt = after(cluster.updated_at, at);
  if (issues.length === 0) {
    if (db.prepare('SELECT 1 FROM change_requests WHERE cluster_id = ?').get(clusterId)) {
      db.prepare(
        "UPDATE conversation_clusters SET issue_count = 0, conversation_count = 0, sources = '{}', updated_at = ? WHERE id = ?",
      ).run(updatedAt, clusterId);
    } else {
      db.prepare('DELETE FROM conversation_clusters WHERE id = ?').run(clusterId);
    }
    return;
  }
  const items = issues.map((issue) => vectors.get(issue.id)!);
  const centroid = clusterCentroid(items);
  yield;
  const central = byCentrality(items, centroid);
  const textOf = db.prepare('SELECT title, body FROM conversation_issues WHERE id = ?');
  const texts = new Map<string, Pick<IssueRow, 'title' | 'body'>>();
  // Each issue read once, for the label and the summary alike. An issue gone since (its
  // organization deleted meanwhile) describes nothing.
  const text = (item: IssueVector) => {
    let found = texts.get(item.id);
    if (!found) {
      found = (textOf.get(item.id) as Pick<IssueRow, 'title' | 'body'> | undefined) ?? { title: '', body: '' };
      texts.set(item.id, found);
    }
    return found;
  };
  // Spellings from the most central issues: reading the words of every issue again would cost
  // each ingest time in proportion to the clusters it touches, however small the ingest.
  const forms: WordForms = new Map();
  for (const item of central.slice(0, LABEL_SAMPLE)) {
    yield;
    const { title, body } = text(item);
    addWords(forms, `${title}\n${body}`);
  }
  yield;
  // An extractive summary: the most central issue, and how the next ones put it.
  const title = text(central[0]!).title;
  const others = new Set<string>();
  for (const item of central.slice(1)) {
    if (others.size === 2) break;
    const other = text(item).title;
    if (other !== title) others.add(other);
  }
  const summary = textDocument([
    title,
    ...(others.size ? [`Also reported as: ${[...others].map((other) => `“${other}”`).join('; ')}.`] : []),
  ]);
  const sources = db
    .prepare(
      `SELECT c.source AS source, COUNT(DISTINCT c.id) AS count FROM conversations c
       WHERE c.org_id = ? AND c.id IN (SELECT conversation_id FROM conversation_issues WHERE cluster_id = ?)
       GROUP BY c.source ORDER BY c.source`,
    )
    .all(cluster.org_id, clusterId) as Array<{ source: string; count: number }>;
  db.prepare(
    `UPDATE conversation_clusters SET label = ?, icon = ?, summary = ?, impact = ?, issue_count = ?, conversation_count = ?, sources = ?, updated_at = ?
     WHERE id = ?`,
  ).run(
    clusterLabel(centroid, forms, title),
    clusterIcon(centroid),
    JSON.stringify(summary),
    clusterImpact(issues.map((issue) => issue.impact)),
    issues.length,
    sources.reduce((sum, row) => sum + row.count, 0),
    JSON.stringify(Object.fromEntries(sources.map((row) => [row.source, row.count]))),
    updatedAt,
    clusterId,
  );
}

// --- Reads ----------------------------------------------------------------------------------------

export function requireConversation(db: Db, orgId: string, id: string): ConversationRow {
  const row = db.prepare('SELECT * FROM conversations WHERE org_id = ? AND id = ?').get(orgId, id) as
    | ConversationRow
    | undefined;
  if (!row) throw notFound('Conversation');
  return row;
}

export function requireIssue(db: Db, orgId: string, id: string): IssueRow {
  const row = db.prepare('SELECT * FROM conversation_issues WHERE org_id = ? AND id = ?').get(orgId, id) as
    | IssueRow
    | undefined;
  if (!row) throw notFound('Conversation issue');
  return row;
}

export function requireCluster(db: Db, orgId: string, id: string): ClusterRow {
  const row = db.prepare('SELECT * FROM conversation_clusters WHERE org_id = ? AND id = ?').get(orgId, id) as
    | ClusterRow
    | undefined;
  if (!row) throw notFound('Issue cluster');
  return row;
}

/**
 * The cluster a change request names in its body `field`: a 404 naming the field when the
 * organization has no such cluster, a 400 when it is muted (muted clusters are left out of
 * change request creation).
 */
export function requireClusterForChangeRequest(db: Db, orgId: string, id: string, field: string): ClusterRow {
  const row = db.prepare('SELECT * FROM conversation_clusters WHERE org_id = ? AND id = ?').get(orgId, id) as
    | ClusterRow
    | undefined;
  if (!row) throw notFoundInBody('Issue cluster', field, id);
  if (row.muted)
    throw badRequest(
      `Invalid body field "${field}": the issue cluster ${id} is muted: unmute it to link change requests to it`,
    );
  return row;
}

export function listConversations(
  db: Db,
  orgId: string,
  filter: { source?: string | undefined },
  window: PageWindow,
): { rows: ConversationRow[]; count: number } {
  const where = ['org_id = ?'];
  const params: unknown[] = [orgId];
  if (filter.source) {
    where.push('source = ?');
    params.push(filter.source);
  }
  const clause = where.join(' AND ');
  const count = db
    .prepare(`SELECT COUNT(*) FROM conversations WHERE ${clause}`)
    .pluck(true)
    .get(...params) as number;
  const rows = db
    .prepare(`SELECT * FROM conversations WHERE ${clause} ORDER BY created_at DESC, id LIMIT ? OFFSET ?`)
    .all(...params, window.limit, window.offset) as ConversationRow[];
  return { rows, count };
}

export function listIssues(
  db: Db,
  orgId: string,
  filter: { cluster?: string | undefined; conversation?: string | undefined },
  window: PageWindow,
): { rows: IssueRow[]; count: number } {
  const where = ['org_id = ?'];
  const params: unknown[] = [orgId];
  if (filter.cluster) {
    where.push('cluster_id = ?');
    params.push(filter.cluster);
  }
  if (filter.conversation) {
    where.push('conversation_id = ?');
    params.push(filter.conversation);
  }
  const clause = where.join(' AND ');
  const count = db
    .prepare(`SELECT COUNT(*) FROM conversation_issues WHERE ${clause}`)
    .pluck(true)
    .get(...params) as number;
  const rows = db
    .prepare(
      `SELECT * FROM conversation_issues WHERE ${clause} ORDER BY created_at DESC, conversation_id, position LIMIT ? OFFSET ?`,
    )
    .all(...params, window.limit, window.offset) as IssueRow[];
  return { rows, count };
}

export const CLUSTER_ORDER_BY = ['updatedAt', 'createdAt', 'issues', 'conversations', 'impact'] as const;
export type ClusterOrderBy = (typeof CLUSTER_ORDER_BY)[number];

const CLUSTER_SORT: Record<ClusterOrderBy, string> = {
  updatedAt: 'updated_at',
  createdAt: 'created_at',
  issues: 'issue_count',
  conversations: 'conversation_count',
  impact: "CASE impact WHEN 'high' THEN 2 WHEN 'medium' THEN 1 ELSE 0 END",
};

export function listClusters(
  db: Db,
  orgId: string,
  filter: { order?: 'asc' | 'desc' | undefined; orderBy?: ClusterOrderBy | undefined; muted?: boolean | undefined },
  window: PageWindow,
): { rows: ClusterRow[]; count: number } {
  const where = ['org_id = ?'];
  const params: unknown[] = [orgId];
  if (filter.muted !== undefined) {
    where.push('muted = ?');
    params.push(filter.muted ? 1 : 0);
  }
  const clause = where.join(' AND ');
  const direction = filter.order === 'asc' ? 'ASC' : 'DESC';
  // Ties (same count, same impact) fall back to the most recently updated, then to the id.
  const order = `${CLUSTER_SORT[filter.orderBy ?? 'updatedAt']} ${direction}, updated_at ${direction}, id`;
  const count = db
    .prepare(`SELECT COUNT(*) FROM conversation_clusters WHERE ${clause}`)
    .pluck(true)
    .get(...params) as number;
  const rows = db
    .prepare(`SELECT * FROM conversation_clusters WHERE ${clause} ORDER BY ${order} LIMIT ? OFFSET ?`)
    .all(...params, window.limit, window.offset) as ClusterRow[];
  return { rows, count };
}

/** Mutes or unmutes a cluster; answers the row after. */
export function setClusterMuted(db: Db, cluster: ClusterRow, muted: boolean): ClusterRow {
  if (Boolean(cluster.muted) !== muted) {
    db.prepare('UPDATE conversation_clusters SET muted = ?, updated_at = ? WHERE id = ?').run(
      muted ? 1 : 0,
      laterThan(cluster.updated_at),
      cluster.id,
    );
  }
  return requireCluster(db, cluster.org_id, cluster.id);
}

/** When the issues of a cluster created since `since` (an ISO date) were created: its weekly pulse. */
export function clusterIssueDates(db: Db, clusterId: string, since: string): string[] {
  return db
    .prepare('SELECT created_at FROM conversation_issues WHERE cluster_id = ? AND created_at >= ?')
    .pluck(true)
    .all(clusterId, since) as string[];
}

/**
 * Gives a cluster another id (the demo data names its clusters), its issues and change requests
 * following; a 404 when there is no such cluster.
 */
export function renameCluster(db: Db, orgId: string, id: string, newClusterId: string): void {
  requireCluster(db, orgId, id);
  db.transaction(() => {
    db.prepare('UPDATE conversation_clusters SET id = ? WHERE id = ?').run(newClusterId, id);
    db.prepare('UPDATE change_requests SET cluster_id = ? WHERE cluster_id = ?').run(newClusterId, id);
  })();
}

/** The cluster an issue of a conversation is in (the first issue unless `position` is given). */
export function clusterOfConversation(db: Db, orgId: string, conversationId: string, position = 0): string | undefined {
  return db
    .prepare('SELECT cluster_id FROM conversation_issues WHERE org_id = ? AND conversation_id = ? AND position = ?')
    .pluck(true)
    .get(orgId, conversationId, position) as string | undefined;
}
