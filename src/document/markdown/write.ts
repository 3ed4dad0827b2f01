/**
 * Writing blocks as mdast flow content. Tag blocks become `gitbookTagLine` nodes around their
 * content (`{% hint style="info" %}`, children, `{% endhint %}`), expandables `<details>` HTML
 * around theirs, images `<figure>` HTML, drawings `<img class="gitbook-drawing">` and tables of
 * cards `<table data-view="cards">` HTML; the rest map to plain mdast nodes.
 */
import type { BlockContent, DefinitionContent, List, ListItem as MdListItem, RootContent } from 'mdast';
import type { Block, Fragment, ListItem, Paragraph } from '../model.js';
import type { WriteContext } from './context.js';
import { writeDetailsHead, writeDrawing, writeFigures } from './html.js';
import { writeInlines } from './inline-write.js';
import type { GitbookTagLine } from './syntax.js';
import { writeCardsTable, writeTable } from './table.js';
import { keptTag } from './kept.js';
import { closeTag, openTag } from './tags.js';

type Flow = BlockContent | DefinitionContent;

const tag = (value: string, role: GitbookTagLine['role'] = 'open'): GitbookTagLine => ({
  type: 'gitbookTagLine',
  value,
  role,
});
const end = (name: string): GitbookTagLine => tag(closeTag(name), 'close');
const paragraphs = (nodes: Paragraph[], ctx: WriteContext): Flow[] =>
  nodes.map((p) => ({ type: 'paragraph', children: writeInlines(p.nodes, ctx) }));
const captionOf = (fragments: Array<Fragment<Paragraph>>): Paragraph[] =>
  fragments.find((f) => f.fragment === 'caption')?.nodes ?? [];
const withCaption = (name: string, open: string, caption: Paragraph[], ctx: WriteContext): Flow[] =>
  caption.length ? [tag(open), ...paragraphs(caption, ctx), end(name)] : [tag(open, 'void')];

/** Writes blocks as flow content. */
export function writeFlow(blocks: Block[], ctx: WriteContext): Flow[] {
  return blocks.flatMap((block) => writeBlock(block, ctx));
}

function writeBlock(block: Block, ctx: WriteContext): Flow[] {
  switch (block.type) {
    case 'paragraph':
      return [{ type: 'paragraph', children: writeInlines(block.nodes, ctx) }];
    case 'heading-1':
    case 'heading-2':
    case 'heading-3': {
      const depth = block.type === 'heading-1' ? 2 : block.type === 'heading-2' ? 3 : 4;
      const anchor = block.data.id
        ? [{ type: 'html' as const, value: ` <a href="#${block.data.id}" id="${block.data.id}"></a>` }]
        : [];
      return [{ type: 'heading', depth, children: [...writeInlines(block.nodes, ctx), ...anchor] }];
    }
    case 'list-ordered':
    case 'list-unordered':
    case 'list-tasks': {
      const list: List = {
        type: 'list',
        ordered: block.type === 'list-ordered',
        spread: false,
        children: block.nodes.map((item) => writeItem(item, block.type === 'list-tasks', ctx)),
      };
      if (block.type === 'list-ordered') list.start = block.data.start ?? 1;
      return [list];
    }
    case 'list-item':
    case 'tabs-item':
      return writeFlow(block.nodes, ctx);
    case 'divider':
      return [{ type: 'thematicBreak' }];
    case 'blockquote':
      return [{ type: 'blockquote', children: writeFlow(block.nodes, ctx) }];
    case 'hint':
      return [
        tag(openTag('hint', { style: block.data.style, icon: block.data.icon })),
        ...writeFlow(block.nodes, ctx),
        end('hint'),
      ];
    case 'code': {
      const { syntax, title, overflow, lineNumbers, expandable, fullWidth, collapsedLineCount } = block.data;
      const fence: Flow = {
        type: 'code',
        lang: syntax || null,
        value: block.nodes.map((line) => codeLineText(line.nodes)).join('\n'),
      };
      const attrs = { title, overflow, lineNumbers, expandable, fullWidth, collapsedLineCount };
      if (Object.values(attrs).every((v) => v === undefined)) return [fence];
      return [tag(openTag('code', attrs)), fence, end('code')];
    }
    case 'code-line':
      return [{ type: 'code', value: codeLineText(block.nodes) }];
    case 'math':
      return [{ type: 'math', value: block.data.formula }];
    case 'images':
      return [{ type: 'html', value: writeFigures(block, ctx) }];
    case 'image':
      return [
        {
          type: 'html',
          value: writeFigures(
            { object: 'block', type: 'images', key: '', data: {}, nodes: [block], isVoid: false },
            ctx,
          ),
        },
      ];
    case 'file':
      return withCaption(
        'file',
        openTag('file', { src: ctx.refs.toHref(block.data.ref) }),
        captionOf(block.fragments),
        ctx,
      );
    case 'embed':
      return withCaption(
        'embed',
        openTag('embed', { url: block.data.url, fullWidth: block.data.fullWidth }),
        captionOf(block.fragments),
        ctx,
      );
    case 'tabs':
      return [
        tag(openTag('tabs', { fullWidth: block.data.fullWidth })),
        ...block.nodes.flatMap((item) => [
          tag(openTag('tab', { title: item.data.title ?? '', icon: item.data.icon })),
          ...writeFlow(item.nodes, ctx),
          end('tab'),
        ]),
        end('tabs'),
      ];
    case 'expandable': {
      const [title, body] = block.fragments;
      return [
        {
          type: 'html',
          value: writeDetailsHead(block.data.defaultExpanded === true, title.nodes[0]?.nodes ?? [], ctx),
        },
        ...writeFlow(body.nodes, ctx),
        { type: 'html', value: '</details>' },
      ];
    }
    case 'table':
      return [
        block.data.view.type === 'cards'
          ? { type: 'html', value: writeCardsTable(block, ctx) }
          : writeTable(block, ctx),
      ];
    case 'drawing': {
      const html = writeDrawing(block, ctx);
      return html === undefined ? [] : [{ type: 'html', value: html }];
    }
    case 'content-ref': {
      const href = ctx.refs.toHref(block.data.ref);
      return [
        tag(openTag('content-ref', { url: href })),
        { type: 'paragraph', children: [{ type: 'link', url: href, children: [{ type: 'text', value: href }] }] },
        end('content-ref'),
      ];
    }
    case 'reusable-content':
      return [tag(openTag('include', {}, [ctx.refs.toHref(block.data.ref)]), 'void')];
    default: {
      const kept = keptTag(block);
      if (kept) {
        const inner = block.isVoid
          ? [
              {
                type: 'paragraph' as const,
                children: [
                  {
                    type: 'text' as const,
                    value:
                      kept.name === 'openapi-operation' || kept.name === 'openapi-schemas'
                        ? `OpenAPI ${String(kept.attrs.spec ?? '')}`
                        : '',
                  },
                ],
              },
            ]
          : writeFlow(block.nodes ?? [], ctx);
        return [tag(kept.open ?? openTag(kept.name, kept.attrs)), ...inner, end(kept.name)];
      }
      // Blocks the converter does not model: their content, without them.
      return [...writeFlow(block.nodes ?? [], ctx), ...(block.fragments ?? []).flatMap((f) => writeFlow(f.nodes, ctx))];
    }
  }
}

/**
 * The text of a code line: its texts, and an expression or annotation inside it as its own text
 * (a fence holds text only).
 */
function codeLineText(nodes: ReadonlyArray<unknown>): string {
  return nodes
    .map((node) => {
      const value = node as { leaves?: Array<{ text: string }>; data?: { expression?: unknown }; nodes?: unknown[] };
      if (Array.isArray(value.leaves)) return value.leaves.map((leaf) => leaf.text).join('');
      if (typeof value.data?.expression === 'string') return value.data.expression;
      return Array.isArray(value.nodes) ? codeLineText(value.nodes) : '';
    })
    .join('');
}

function writeItem(item: ListItem, task: boolean, ctx: WriteContext): MdListItem {
  return {
    type: 'listItem',
    spread: false,
    checked: task ? item.data.checked === true : null,
    children: writeFlow(item.nodes, ctx),
  };
}

/** Flow nodes after which a tag line may follow on the next line (they cannot run on into it). */
const CLOSED = new Set<RootContent['type']>([
  'gitbookTagLine',
  'paragraph',
  'heading',
  'code',
  'math',
  'thematicBreak',
]);

/**
 * Content sits right against the tags around it, as GitBook writes it (`{% hint %}`, the
 * content, `{% endhint %}` on consecutive lines); blocks are separated by blank lines otherwise.
 */
export function joinTags(left: RootContent, right: RootContent): number | undefined {
  if (left.type === 'gitbookTagLine' && left.role === 'open') return 0;
  if (right.type === 'gitbookTagLine' && right.role === 'close' && CLOSED.has(left.type)) return 0;
  return undefined;
}
