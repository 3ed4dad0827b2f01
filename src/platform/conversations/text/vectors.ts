/**
 * TF-IDF vectors of issues and their cosine similarity. A term's weight in an issue is
 * `(1 + ln tf) × idf`, with the smoothed `idf = ln((1 + N) / (1 + df)) + 1` over the N issues of
 * the corpus (df: how many of them hold the term); every vector is scaled to unit length, so the
 * cosine similarity of two issues is the dot product of their vectors. Vectors are sparse (a map
 * from term to weight). Knows neither HTTP nor SQL.
 */

export type SparseVector = ReadonlyMap<string, number>;

/** Term counts of one issue. */
export type TermCounts = ReadonlyMap<string, number>;

/** Document frequencies of a corpus, and the idf they give. */
export class Corpus {
  private readonly df = new Map<string, number>();
  private documents = 0;

  constructor(documents: Iterable<TermCounts> = []) {
    for (const counts of documents) this.add(counts);
  }

  /** Counts one more document. */
  add(counts: TermCounts): void {
    this.documents += 1;
    for (const term of counts.keys()) this.df.set(term, (this.df.get(term) ?? 0) + 1);
  }

  get size(): number {
    return this.documents;
  }

  idf(term: string): number {
    return Math.log((1 + this.documents) / (1 + (this.df.get(term) ?? 0))) + 1;
  }

  /** The unit TF-IDF vector of a document's term counts (empty for a document without terms). */
  vector(counts: TermCounts): SparseVector {
    const weights = new Map<string, number>();
    for (const [term, count] of counts) {
      if (count > 0) weights.set(term, (1 + Math.log(count)) * this.idf(term));
    }
    return normalize(weights);
  }
}

/** The vector scaled to unit length (an empty or zero vector stays as it is). */
export function normalize(vector: Map<string, number>): Map<string, number> {
  let sum = 0;
  for (const weight of vector.values()) sum += weight * weight;
  if (sum === 0) return vector;
  const norm = Math.sqrt(sum);
  for (const [term, weight] of vector) vector.set(term, weight / norm);
  return vector;
}

/** Dot product of two sparse vectors (their cosine similarity when both have unit length). */
export function dot(a: SparseVector, b: SparseVector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let sum = 0;
  for (const [term, weight] of small) {
    const other = large.get(term);
    if (other !== undefined) sum += weight * other;
  }
  return sum;
}

/** Cosine similarity of two vectors of any length (0 when one is empty). */
export function cosine(a: SparseVector, b: SparseVector): number {
  const norms = Math.sqrt(dot(a, a) * dot(b, b));
  return norms === 0 ? 0 : dot(a, b) / norms;
}

/**
 * The centroid of unit vectors: their mean, not rescaled. Its dot product with a unit vector is
 * that vector's average cosine similarity to the members, which is how an issue is compared
 * with a cluster (the average linkage of a cluster of one).
 */
export function centroid(vectors: readonly SparseVector[]): Map<string, number> {
  const sum = new Map<string, number>();
  for (const vector of vectors) for (const [term, weight] of vector) sum.set(term, (sum.get(term) ?? 0) + weight);
  if (vectors.length > 0) for (const [term, weight] of sum) sum.set(term, weight / vectors.length);
  return sum;
}
