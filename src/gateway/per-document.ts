import type { DocumentNode } from 'graphql';

// Its own module at the top level: the telemetry, the policy plugins and the conversion pool each
// read facts of the operation a request runs, which depend on its parsed document alone. yoga keeps
// one parsed document per text (see `parsedDocumentCache`), so a fact computed once per document
// and operation name is computed once per operation the gateway serves, not once per request.

/**
 * `compute` made once per parsed document and operation name: later calls with the same document
 * return what the first computed. Kept with the document (a WeakMap), so it goes when yoga's cache
 * lets the document go.
 */
export function perDocument<T>(
  compute: (document: DocumentNode, operationName: string | null | undefined) => T,
): (document: DocumentNode, operationName: string | null | undefined) => T {
  const known = new WeakMap<DocumentNode, Map<string, T>>();
  return (document, operationName) => {
    let byName = known.get(document);
    if (!byName) {
      byName = new Map();
      known.set(document, byName);
    }
    const name = operationName ?? '';
    if (byName.has(name)) return byName.get(name)!;
    const fact = compute(document, operationName);
    byName.set(name, fact);
    return fact;
  };
}
