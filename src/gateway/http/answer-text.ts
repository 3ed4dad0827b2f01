import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { stringifyAnswer } from '../upstream/bodies.js';

/**
 * Answers are written with `stringifyAnswer`: yoga serializes a result with its own `stringify`
 * when it has one. An upstream body passed on as it came (a large document's `json`) then goes
 * into the answer's text without being parsed and serialized again on the request's thread. A
 * result in parts (`@defer`, subscriptions) is serialized as before, each body parsed once.
 */
export function useAnswerText(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result)) setResult(result.map((one) => ({ ...one, stringify: stringifyAnswer })));
      else if (!isAsyncIterable(result)) setResult({ ...result, stringify: stringifyAnswer });
    },
  };
}
