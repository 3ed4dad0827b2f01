import { BREAK, type DocumentNode, visit } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { GatewayError } from '../errors.js';
import { perDocument } from '../per-document.js';
import { isBatchItem, partsOf } from '../request-parts.js';

/** What a batched request's server context knows of its operations. */
interface Batch {
  /** How many operations it holds. */
  size: number;
  /** Each operation's own context (a child of the request's server context), in the order of the batch. */
  items: object[];
}

declare module '../request-parts.js' {
  interface RequestParts {
    /** Set on a batched request (a JSON array of operations), seen from each of its operations too. */
    batch?: Batch | undefined;
  }
}

/**
 * Batched requests (a JSON array of operations in one POST, as Apollo's `BatchHttpLink` sends): at
 * most `maxOperations` (0 turns batching off). Each operation runs through the whole chain as its own
 * request does (its persisted id, the response cache, its cost and limits, its caller's budget,
 * reported in its own answer's extensions and logged on its own line), concurrently with the others,
 * and the answer is the array of their answers in order. An operation that would answer in parts
 * (`@defer`, `@stream`, a subscription) is refused in a batch, alone; its neighbours run.
 */
export function useBatches(maxOperations: number): Plugin {
  return {
    onRequestParse({ serverContext }) {
      return {
        onRequestParseDone({ requestParserResult }) {
          if (!Array.isArray(requestParserResult)) return;
          const size = requestParserResult.length;
          if (maxOperations === 0)
            throw batchRefused(
              'BATCHING_DISABLED',
              'This gateway takes one operation per request: send them one by one',
              size,
            );
          if (size === 0)
            throw batchRefused('EMPTY_BATCH', 'A batch holds at least one operation: this one is empty', size);
          if (size > maxOperations) {
            throw batchRefused(
              'BATCH_TOO_LARGE',
              `A batch holds at most ${maxOperations} operations: this one holds ${size}; send the others in another request`,
              size,
              maxOperations,
            );
          }
          partsOf(serverContext).batch = { size, items: [] };
        },
      };
    },
    onParams({ context }) {
      const parts = partsOf(context);
      const batch = parts.batch;
      if (!batch || parts.batchIndex !== undefined) return;
      parts.batchIndex = batch.items.push(context) - 1;
    },
    // Refused from the parsed document, a persisted one's included, before any plugin reserves or reads.
    onExecute({ args, setResultAndStopExecution }) {
      if (isBatchItem(args.contextValue as object) && answersInParts(args.document, args.operationName))
        setResultAndStopExecution({ errors: [incrementalInBatch()] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      if (isBatchItem(args.contextValue as object)) setResultAndStopExecution({ errors: [incrementalInBatch()] });
    },
    // Whatever still answers in parts (an executor that streams without the directives): refused, and ended.
    onExecutionResult({ context, result, setResult }) {
      if (!isBatchItem(context) || !isAsyncIterable(result)) return;
      void result[Symbol.asyncIterator]().return?.();
      setResult({ errors: [incrementalInBatch()] });
    },
  };
}

function incrementalInBatch(): GatewayError {
  return batchRefused(
    'INCREMENTAL_IN_BATCH',
    'An operation answered in parts (@defer, @stream, a subscription) cannot be in a batch: send it alone',
  );
}

/** Whether the operation asks for an answer in parts (`@defer`, `@stream`): once per document. */
const answersInParts = perDocument((document: DocumentNode): boolean => {
  let found = false;
  visit(document, {
    Directive(node) {
      if (node.name.value === 'defer' || node.name.value === 'stream') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
});

function batchRefused(reason: string, message: string, size?: number, max?: number): GatewayError {
  const error = new GatewayError(
    'BAD_USER_INPUT',
    message,
    max === undefined || size === undefined ? {} : { budget: { limit: 'batchOperations', value: size, max } },
  );
  // Over the bound, as yoga's own batching limit answers: the request is too large, not malformed.
  Object.assign(error.extensions, { reason, http: { status: reason === 'BATCH_TOO_LARGE' ? 413 : 400 } });
  return error;
}
