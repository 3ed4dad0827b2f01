/**
 * Page markdown parsed in a worker thread: the seconds a large page takes leave the platform's
 * event loop free. The parse itself is the document module's (`parseMarkdown`); this module
 * only moves it off the request thread and answers the worker's limits as budgets.
 */
import type { Root } from 'mdast';
import {
  checkMarkdownBeforeParsing,
  MarkdownLimitError,
  MarkdownTooDeepError,
  MAX_MARKDOWN_NESTING,
  parseMarkdown,
} from '../../document/markdown.js';
import { isPlainText } from '../../document/markdown/segments.js';
import { TaskWorker, TaskWorkerError } from '../task-worker.js';

/**
 * A parsed page: its tree, the budget it went over, or `tooDeep` for a parse that ran out of
 * stack (an error crosses threads as data).
 */
export type ParsedMarkdown =
  | { root: Root }
  | { over: { limit: string; value: number; max: number; message: string } }
  | { tooDeep: true };

/**
 * Parses a page's markdown that passed `checkMarkdownBeforeParsing`, within the budgets the parse
 * itself counts (`MARKDOWN_LIMITS` nodes, block length, definitions): the work of the parse worker.
 */
export function parseMarkdownTree(markdown: string): ParsedMarkdown {
  try {
    return { root: parseMarkdown(markdown) };
  } catch (error) {
    // The stack ran out: nesting the scan before the parse does not see.
    if (error instanceof RangeError) return { tooDeep: true };
    if (!(error instanceof MarkdownLimitError)) throw error;
    const { limit, value, max, message } = error;
    return { over: { limit, value, max, message } };
  }
}

/** Longest a page's parse may take, and the heap it may use, in the parse worker. */
export const MARKDOWN_PARSE_LIMITS = { timeoutMs: 30_000, maxHeapMb: 256 } as const;

const parser = new TaskWorker<string, ParsedMarkdown>({
  from: import.meta.url,
  name: 'markdown-parser-worker',
  fallback: parseMarkdownTree,
  ...MARKDOWN_PARSE_LIMITS,
});

/**
 * Parses a page's markdown in the parse worker (the seconds a large page takes leave the event
 * loop free; plain paragraphs only, a pass over the text, are read here), for
 * `markdownToDocument(markdown, { tree })`. Throws a `MarkdownLimitError` for a budget passed, and
 * for a parse that took longer than `MARKDOWN_PARSE_LIMITS.timeoutMs` (`markdownParseMs`) or more
 * heap than `maxHeapMb` (`markdownParseHeapMb`).
 */
export async function parseMarkdownOffThread(markdown: string): Promise<Root> {
  // Linear and quick, and done here only: a text over these budgets never goes to the worker.
  checkMarkdownBeforeParsing(markdown);
  let parsed: ParsedMarkdown;
  try {
    // Plain paragraphs only are read without the parser, in a pass over the text (see
    // `plainParagraphs`): here, rather than in the worker, whose start and the copy of the tree
    // back would cost more than the read.
    parsed = isPlainText(markdown) ? parseMarkdownTree(markdown) : await parser.run(markdown);
  } catch (error) {
    if (!(error instanceof TaskWorkerError) || error.reason === 'closed') throw error;
    const [limit, max] =
      error.reason === 'timeout'
        ? ['markdownParseMs', MARKDOWN_PARSE_LIMITS.timeoutMs]
        : ['markdownParseHeapMb', MARKDOWN_PARSE_LIMITS.maxHeapMb];
    throw new MarkdownLimitError(
      limit,
      max,
      max,
      `the markdown could not be read: ${error.message}, the limit is ${max}`,
    );
  }
  if ('root' in parsed) return parsed.root;
  if ('tooDeep' in parsed) throw new MarkdownTooDeepError(MAX_MARKDOWN_NESTING + 1);
  const { limit, value, max, message } = parsed.over;
  throw new MarkdownLimitError(limit, value, max, message);
}
