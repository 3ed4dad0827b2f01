import { type DocumentNode, execute, Kind, visit, BREAK } from 'graphql';
import type { Plugin } from 'graphql-yoga';

const incrementalDocuments = new WeakMap<DocumentNode, boolean>();

/** Whether a document asks for an answer in parts (`@defer` or `@stream` anywhere in it). */
function isIncremental(document: DocumentNode): boolean {
  let incremental = incrementalDocuments.get(document);
  if (incremental === undefined) {
    incremental = false;
    visit(document, {
      [Kind.DIRECTIVE](node) {
        if (node.name.value !== 'defer' && node.name.value !== 'stream') return undefined;
        incremental = true;
        return BREAK;
      },
    });
    incrementalDocuments.set(document, incremental);
  }
  return incremental;
}

/**
 * Queries and mutations without `@defer` or `@stream` run on graphql-js's own executor, which
 * writes each object's keys in the order of its selection, as the GraphQL specification asks of
 * a serialized answer. yoga's executor (kept for answers in parts and subscriptions) writes the
 * fields that resolved at once before those that waited on the upstream, so `{ viewer { … }
 * __typename }` was answered with `__typename` first. An operation refused before it runs (a
 * variable that does not fit its type, an unknown operation name) is answered by yoga's executor,
 * which marks those errors as the request's (HTTP 400).
 */
export function useOrderedExecution(): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (isIncremental(args.document)) return;
      setExecuteFn((executionArgs) => {
        const result = execute(executionArgs);
        return result instanceof Promise || 'data' in result ? result : executeFn(executionArgs);
      });
    },
  };
}
