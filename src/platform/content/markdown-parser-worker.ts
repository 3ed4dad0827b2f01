import { parentPort } from 'node:worker_threads';
import type { TaskAnswer, TaskMessage } from '../task-worker.js';
import { parseMarkdownTree, type ParsedMarkdown } from './markdown-parser.js';

/**
 * The worker thread that parses page markdown for `parseMarkdownOffThread` (markdown-parser.ts):
 * it gets a text and answers its mdast tree, or the budget it went over. The parse is most of
 * the time and garbage a large page costs.
 */

const port = parentPort;
if (!port) throw new Error('markdown-parser-worker runs as a worker thread');

port.on('message', ({ id, request }: TaskMessage<string>) => {
  try {
    port.postMessage({ id, answer: parseMarkdownTree(request) } satisfies TaskAnswer<ParsedMarkdown>);
  } catch (error) {
    port.postMessage({
      id,
      error: error instanceof Error ? error.message : String(error),
    } satisfies TaskAnswer<ParsedMarkdown>);
  }
});
