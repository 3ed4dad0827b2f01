import { runAtOnce, type Steps } from '../../slices.js';
import { centroid, dot, type SparseVector } from './vectors.js';

/**
 * Clustering of issues by their unit TF-IDF vectors, offline and deterministic:
 * - `agglomerate`: average-linkage agglomerative clustering with a similarity threshold. Every
 *   issue starts alone; the two clusters with the highest average pairwise cosine similarity
 *   merge, again and again, until no two clusters are at least `threshold` similar. The number of
 *   clusters comes from the data. Issues are taken in the order of their ids and ties go to the
 *   lowest positions, so the same issues always give the same clusters.
 * - `nearestCluster`: the incremental step: a new issue joins the existing cluster it is most
 *   similar to on average (its dot product with the cluster's centroid, the mean of its members'
 *   vectors), when that similarity reaches the same threshold, which keeps both steps one
 *   criterion; else it belongs to no existing cluster.
 * Knows neither HTTP nor SQL.
 */

/**
 * The average cosine similarity two clusters need to be one (the distance threshold of the
 * agglomerative clustering is 1 minus it). Tuned on the corpus of the unit tests: complaints
 * about one problem written in different words reach it, unrelated complaints sharing a word
 * or two ("page", "error") do not.
 */
export const SIMILARITY_THRESHOLD = 0.15;

export interface Clusterable {
  id: string;
  vector: SparseVector;
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Groups items by average-linkage agglomerative clustering (see the module's description): the
 * ids of each cluster in id order, the clusters ordered by their first id. O(n²) memory and
 * about O(n²) time for the merges (each cluster's best neighbour is kept and only refreshed
 * when it merged), fine for the thousand issues of one ingest. The platform runs the steps
 * (`agglomerateSteps`, inside an ingest's); this form, the same steps at once, is kept as the
 * algorithm's plain entry point, which the unit tests call and compare the steps with.
 */
export function agglomerate(items: readonly Clusterable[], threshold = SIMILARITY_THRESHOLD): string[][] {
  return runAtOnce(agglomerateSteps(items, threshold));
}

/** `agglomerate` in steps (see `slices.ts`): a pause after each row of similarities and each merge. */
export function* agglomerateSteps(items: readonly Clusterable[], threshold = SIMILARITY_THRESHOLD): Steps<string[][]> {
  const sorted = [...items].sort(byId);
  const n = sorted.length;
  const sim = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    yield;
    for (let j = i + 1; j < n; j++) {
      const s = dot(sorted[i]!.vector, sorted[j]!.vector);
      sim[i * n + j] = s;
      sim[j * n + i] = s;
    }
  }
  const size = new Int32Array(n).fill(1);
  const active = new Uint8Array(n).fill(1);
  const members: number[][] = sorted.map((_, i) => [i]);
  // The most similar other cluster of each cluster (the lowest position on ties) and how similar.
  const best = new Int32Array(n).fill(-1);
  const bestSim = new Float64Array(n).fill(-Infinity);

  const refresh = (i: number) => {
    best[i] = -1;
    bestSim[i] = -Infinity;
    for (let j = 0; j < n; j++) {
      if (j === i || !active[j]) continue;
      const s = sim[i * n + j]!;
      if (s > bestSim[i]!) {
        best[i] = j;
        bestSim[i] = s;
      }
    }
  };
  for (let i = 0; i < n; i++) refresh(i);

  for (;;) {
    yield;
    let a = -1;
    for (let i = 0; i < n; i++) if (active[i] && best[i]! >= 0 && (a < 0 || bestSim[i]! > bestSim[a]!)) a = i;
    if (a < 0 || bestSim[a]! < threshold) break;
    let b = best[a]!;
    // The cluster at the lower position absorbs the other.
    if (b < a) [a, b] = [b, a];
    for (let k = 0; k < n; k++) {
      if (!active[k] || k === a || k === b) continue;
      // Lance–Williams update for average linkage: the size-weighted mean of the two similarities.
      const s = (size[a]! * sim[a * n + k]! + size[b]! * sim[b * n + k]!) / (size[a]! + size[b]!);
      sim[a * n + k] = s;
      sim[k * n + a] = s;
    }
    size[a] = size[a]! + size[b]!;
    active[b] = 0;
    members[a]!.push(...members[b]!);
    refresh(a);
    for (let k = 0; k < n; k++) {
      if (!active[k] || k === a) continue;
      if (best[k] === a || best[k] === b) refresh(k);
      else {
        const s = sim[k * n + a]!;
        if (s > bestSim[k]! || (s === bestSim[k]! && a < best[k]!)) {
          best[k] = a;
          bestSim[k] = s;
        }
      }
    }
  }

  const groups: string[][] = [];
  for (let i = 0; i < n; i++) {
    if (active[i]) groups.push(members[i]!.sort((x, y) => x - y).map((index) => sorted[index]!.id));
  }
  return groups;
}

/** A cluster as the incremental step sees it: its id and centroid (see `vectors.centroid`). */
export interface ClusterCentroid {
  id: string;
  centroid: SparseVector;
}

/** The centroid of a cluster of items. */
export function clusterCentroid(items: readonly Clusterable[]): Map<string, number> {
  return centroid(items.map((item) => item.vector));
}

/**
 * The existing cluster a new issue joins: the one whose members it is most similar to on
 * average (the lowest id on ties), when that reaches `threshold`; else undefined.
 */
export function nearestCluster(
  vector: SparseVector,
  clusters: readonly ClusterCentroid[],
  threshold = SIMILARITY_THRESHOLD,
): { id: string; similarity: number } | undefined {
  let found: { id: string; similarity: number } | undefined;
  for (const cluster of clusters) {
    const similarity = dot(vector, cluster.centroid);
    if (!found || similarity > found.similarity || (similarity === found.similarity && cluster.id < found.id)) {
      found = { id: cluster.id, similarity };
    }
  }
  return found && found.similarity >= threshold ? found : undefined;
}
