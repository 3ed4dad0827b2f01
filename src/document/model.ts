/**
 * The JSON document model of page bodies (the API description's `JSONDocument`): TypeScript
 * types, the zod schema that validates documents from API input, and helpers to build nodes.
 *
 * A document is a tree of blocks; paragraphs and headings hold texts and inlines; a text holds
 * leaves, each a run of characters with its marks. Some void blocks carry further content in
 * `fragments` (an image's caption, an expandable's title and body, a table's cells).
 *
 * Every block, inline, text and fragment has a `key` here: the API description makes it
 * optional, `documentSchema` fills in the missing ones, and the markdown converter derives or
 * keeps them (see markdown/keys.ts). Blocks always carry `data` (possibly `{}`).
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// Content references
// ---------------------------------------------------------------------------------------------

export interface ContentRefFile {
  kind: 'file';
  file: string;
  space?: string;
}
export interface ContentRefUrl {
  kind: 'url';
  url: string;
}
export interface ContentRefPage {
  kind: 'page';
  page: string;
  space?: string;
}
export interface ContentRefAnchor {
  kind: 'anchor';
  anchor: string;
  space?: string;
  page?: string;
}
export interface ContentRefUser {
  kind: 'user';
  user: string;
}
export interface ContentRefCollection {
  kind: 'collection';
  collection: string;
}
export interface ContentRefSpace {
  kind: 'space';
  space: string;
}
export interface ContentRefReusableContent {
  kind: 'reusable-content';
  reusableContent: string;
  space?: string;
}
export interface ContentRefTag {
  kind: 'tag';
  tag: string;
  space?: string;
}
export interface ContentRefOpenAPI {
  kind: 'openapi';
  spec: string;
}

/** A reference to content: a file, page, anchor, space, URL and so on. */
export type ContentRef =
  | ContentRefFile
  | ContentRefUrl
  | ContentRefPage
  | ContentRefAnchor
  | ContentRefUser
  | ContentRefCollection
  | ContentRefSpace
  | ContentRefReusableContent
  | ContentRefTag
  | ContentRefOpenAPI;

// ---------------------------------------------------------------------------------------------
// Texts, leaves and marks
// ---------------------------------------------------------------------------------------------

export const TEXT_COLORS = [
  'default',
  'green',
  'blue',
  'red',
  'orange',
  'yellow',
  'purple',
  'pink',
  'violet',
  'cyan',
  '$primary',
  '$info',
  '$success',
  '$warning',
  '$danger',
  '$tint',
] as const;
export type TextColor = (typeof TEXT_COLORS)[number];

/**
 * Mark types in their canonical order: the markdown converter writes a leaf's marks in this
 * order, outermost first, and `leaf()` sorts them the same way.
 */
export const MARK_TYPES = [
  'bold',
  'italic',
  'strikethrough',
  'color',
  'keyboard',
  'superscript',
  'subscript',
  'code',
] as const;
export type MarkType = (typeof MARK_TYPES)[number];

export interface PlainMark {
  object: 'mark';
  type: Exclude<MarkType, 'color'>;
}
export interface ColorMark {
  object: 'mark';
  type: 'color';
  data: { text: TextColor; background: TextColor };
}
export type Mark = PlainMark | ColorMark;

export interface Leaf {
  object: 'leaf';
  text: string;
  marks: Mark[];
}
export interface Text {
  object: 'text';
  key: string;
  leaves: Leaf[];
}

// ---------------------------------------------------------------------------------------------
// Inlines
// ---------------------------------------------------------------------------------------------

export interface LinkInline {
  object: 'inline';
  type: 'link';
  key: string;
  data: { ref: ContentRef };
  nodes: Text[];
}
export interface EmojiInline {
  object: 'inline';
  type: 'emoji';
  key: string;
  data: { code: string };
  isVoid: true;
}
export interface MathInline {
  object: 'inline';
  type: 'inline-math';
  key: string;
  data: { formula: string };
  isVoid: true;
}
export interface MentionInline {
  object: 'inline';
  type: 'mention';
  key: string;
  data: { ref: ContentRef };
  isVoid: true;
}
/** A variable or other expression shown inline (`space.vars.product`). */
export interface ExpressionInline {
  object: 'inline';
  type: 'expression';
  key: string;
  data: { expression: string };
  isVoid: true;
}
/** An icon of the icon set by name (`check`), optionally in a color. */
export interface IconInline {
  object: 'inline';
  type: 'icon';
  key: string;
  data: { icon: string; color?: TextColor };
  isVoid: true;
}
/** What a button without a link does: open search or the assistant (prefilled), or a selection. */
export type DocumentAction =
  | { action: 'search'; query?: string }
  | { action: 'ask'; query?: string }
  | { action: 'select'; slug: string };
interface ButtonBase {
  label: string;
  kind: 'primary' | 'secondary';
  size?: 'small' | 'medium' | 'large';
  /** An icon name, shown before the label. */
  icon?: string;
}
/** A button: a link (`ref`) or an action. */
export type ButtonData = ButtonBase & ({ ref: ContentRef; action?: never } | { action: DocumentAction; ref?: never });
export interface ButtonInline {
  object: 'inline';
  type: 'button';
  key: string;
  data: ButtonData;
  isVoid: true;
}
/** An image in the flow of text: `size` `line` is the height of a line, `original` its own size. */
export interface InlineImage {
  object: 'inline';
  type: 'inline-image';
  key: string;
  data: {
    ref: ContentRefUrl | ContentRefFile;
    refDark?: ContentRefUrl | ContentRefFile;
    caption?: string;
    alt?: string;
    size?: 'original' | 'line';
  };
  isVoid: true;
}

/** Inline types of the API description that the converter does not model (kept as they are). */
export const OTHER_INLINE_TYPES = ['annotation'] as const;
export interface OtherInline {
  object: 'inline';
  type: (typeof OTHER_INLINE_TYPES)[number];
  key: string;
  data: Record<string, unknown>;
  nodes?: Array<Text | Inline>;
  fragments?: Fragment[];
  isVoid?: boolean;
}

export type Inline =
  | LinkInline
  | EmojiInline
  | MathInline
  | MentionInline
  | ExpressionInline
  | IconInline
  | ButtonInline
  | InlineImage
  | OtherInline;
/** What paragraphs and headings hold. */
export type InlineContent = Text | Inline;

// ---------------------------------------------------------------------------------------------
// Blocks
// ---------------------------------------------------------------------------------------------

export type TextAlignment = 'start' | 'center' | 'end';
export type HintStyle = 'info' | 'warning' | 'danger' | 'success';
export type HeadingType = 'heading-1' | 'heading-2' | 'heading-3';

export interface Fragment<N extends Block = Block> {
  object: 'fragment';
  key: string;
  /** The fragment's name: `caption`, `expandable-title`, `expandable-body`, or a table cell's ID. */
  fragment: string;
  type?: string;
  nodes: N[];
}

export interface Paragraph {
  object: 'block';
  type: 'paragraph';
  key: string;
  data: { align?: TextAlignment };
  nodes: InlineContent[];
}
export interface Heading {
  object: 'block';
  type: HeadingType;
  key: string;
  /** `id`: a custom anchor (exported as `<a href="#id" id="id"></a>`). */
  data: { id?: string; align?: TextAlignment };
  nodes: InlineContent[];
  /** `id`: the anchor in URLs, `data.id` or else derived from the heading's text. */
  meta: { id: string };
}
export interface ListItem {
  object: 'block';
  type: 'list-item';
  key: string;
  data: { checked?: boolean };
  nodes: Block[];
}
export interface ListOrdered {
  object: 'block';
  type: 'list-ordered';
  key: string;
  data: { start?: number };
  nodes: ListItem[];
}
export interface ListUnordered {
  object: 'block';
  type: 'list-unordered';
  key: string;
  data: Record<string, never>;
  nodes: ListItem[];
}
export interface ListTasks {
  object: 'block';
  type: 'list-tasks';
  key: string;
  data: Record<string, never>;
  nodes: ListItem[];
}
export interface Divider {
  object: 'block';
  type: 'divider';
  key: string;
  data: Record<string, never>;
  isVoid: true;
}
export interface Blockquote {
  object: 'block';
  type: 'blockquote';
  key: string;
  data: Record<string, never>;
  nodes: Block[];
}
export interface Hint {
  object: 'block';
  type: 'hint';
  key: string;
  data: { style: HintStyle; icon?: string };
  nodes: Block[];
}
export interface CodeData {
  syntax?: string;
  title?: string;
  overflow?: 'scroll' | 'wrap';
  lineNumbers?: boolean;
  fullWidth?: boolean;
  expandable?: boolean;
  collapsedLineCount?: number;
}
export interface CodeLine {
  object: 'block';
  type: 'code-line';
  key: string;
  data: { highlighted?: boolean };
  nodes: Text[];
}
export interface Code {
  object: 'block';
  type: 'code';
  key: string;
  data: CodeData;
  nodes: CodeLine[];
}
export interface MathBlock {
  object: 'block';
  type: 'math';
  key: string;
  data: { formula: string };
  isVoid: true;
}
/** A length in pixels, or with a unit. */
export type Length = number | { unit: string; value: number };
export interface Image {
  object: 'block';
  type: 'image';
  key: string;
  data: {
    ref: ContentRefUrl | ContentRefFile;
    refDark?: ContentRefUrl | ContentRefFile;
    width?: Length;
    height?: Length;
    alt?: string;
  };
  /** Empty, or one `caption` fragment of paragraphs. */
  fragments: Array<Fragment<Paragraph>>;
  isVoid: true;
}
export interface Images {
  object: 'block';
  type: 'images';
  key: string;
  data: { align?: 'center' | 'left' | 'right'; fullWidth?: boolean; withFrame?: boolean };
  nodes: Image[];
  /** Required by the API description (`false`): images hold their image blocks. */
  isVoid: false;
}
/** A file; `fragments` holds an optional `caption` (as for images; the API description lists none). */
export interface FileBlock {
  object: 'block';
  type: 'file';
  key: string;
  data: { ref: ContentRefFile };
  fragments: Array<Fragment<Paragraph>>;
  isVoid: true;
}
/** An embedded URL; `fragments` holds an optional `caption` (as for images; the API description lists none). */
export interface Embed {
  object: 'block';
  type: 'embed';
  key: string;
  data: { url: string; fullWidth?: boolean };
  fragments: Array<Fragment<Paragraph>>;
  isVoid: true;
}
export interface TabsItem {
  object: 'block';
  type: 'tabs-item';
  key: string;
  data: { title?: string; icon?: string; slug?: string };
  nodes: Block[];
  meta: { id: string };
}
export interface Tabs {
  object: 'block';
  type: 'tabs';
  key: string;
  data: { fullWidth?: boolean };
  nodes: TabsItem[];
}
export interface Expandable {
  object: 'block';
  type: 'expandable';
  key: string;
  data: { defaultExpanded?: boolean };
  /** `expandable-title` (one paragraph) then `expandable-body`. */
  fragments: [Fragment<Paragraph>, Fragment];
  meta: { id: string };
  isVoid: true;
}
export interface ContentRefBlock {
  object: 'block';
  type: 'content-ref';
  key: string;
  data: { ref: ContentRef };
  isVoid: true;
}
/** A drawing made in the editor, stored as an SVG file (the API description leaves `ref` optional). */
export interface Drawing {
  object: 'block';
  type: 'drawing';
  key: string;
  data: { ref?: ContentRefFile };
  // Never present: declared so that code reading `nodes` of the blocks it does not list type-checks.
  nodes?: never;
  isVoid: true;
}
export interface ReusableContent {
  object: 'block';
  type: 'reusable-content';
  key: string;
  data: { ref: ContentRefReusableContent };
  isVoid: true;
}

/** A table column (`DocumentTableDefinition`); the converter writes `text` columns. */
export interface TableDefinition {
  id: string;
  title: string;
  type: 'text' | 'number' | 'checkbox' | 'files' | 'users' | 'rating' | 'select' | 'content-ref' | 'image';
  textAlignment?: 'left' | 'center' | 'right';
  [field: string]: unknown;
}
export type TableValue = number | string | null | boolean | string[] | ContentRef | Record<string, unknown>;
export interface TableRecord {
  orderIndex: string;
  values: Record<string, TableValue>;
}
export interface TableGridView {
  type: 'grid';
  /** Definition IDs in display order. */
  columns: string[];
  hideHeader: boolean;
  columnWidths?: Record<string, number>;
  stickyHeader?: boolean;
  stickyFirstColumn?: boolean;
  useNewSizing?: boolean;
}
/** Cards (`DocumentTableViewCards`): one card per record, showing the `columns`. */
export interface TableCardsView {
  type: 'cards';
  cardSize: 'medium' | 'large';
  /** Definition IDs shown on each card, in order. */
  columns: string[];
  /** The column whose value (a content reference) each card links to. */
  targetDefinition?: string;
  /** The column whose value (files or an image) is each card's cover. */
  coverDefinition?: string;
  coverDefinitionDark?: string;
  hideColumnTitle?: boolean;
  /** Whether cards wrap onto several rows (the default) or scroll in one. */
  wrap?: boolean;
}
/**
 * A table: `data.definition` holds the columns, `data.records` the rows (ordered by
 * `orderIndex`), and the value of a `text` column in a record is the name of the fragment in
 * `fragments` that holds that cell's paragraphs.
 */
export interface Table {
  object: 'block';
  type: 'table';
  key: string;
  data: {
    view: TableGridView | TableCardsView;
    records: Record<string, TableRecord>;
    definition: Record<string, TableDefinition>;
    cellMerges?: Array<{ anchor: { record: string; column: string }; rowSpan: number; colSpan: number }>;
    fullWidth?: boolean;
    search?: boolean;
  };
  fragments: Fragment[];
  isVoid: true;
}

/** Block types of the API description that the converter does not model (kept as they are). */
export const OTHER_BLOCK_TYPES = [
  'prompt',
  'swagger',
  'openapi-operation',
  'openapi-schemas',
  'openapi-webhook',
  'integration',
  'stepper',
  'stepper-step',
  'if',
  'columns',
  'column',
  'updates',
  'update',
] as const;
export interface OtherBlock {
  object: 'block';
  type: (typeof OTHER_BLOCK_TYPES)[number];
  key: string;
  data: Record<string, unknown>;
  nodes?: Block[];
  fragments?: Fragment[];
  meta?: Record<string, unknown>;
  isVoid?: boolean;
}

export type Block =
  | Paragraph
  | Heading
  | ListOrdered
  | ListUnordered
  | ListTasks
  | ListItem
  | Divider
  | Blockquote
  | Hint
  | Code
  | CodeLine
  | MathBlock
  | Images
  | Image
  | FileBlock
  | Embed
  | Tabs
  | TabsItem
  | Expandable
  | Table
  | ContentRefBlock
  | ReusableContent
  | Drawing
  | OtherBlock;
export type BlockType = Block['type'];

/** A page body or reusable content. */
export interface JSONDocument {
  object: 'document';
  data: { schemaVersion?: number; [field: string]: unknown };
  nodes: Block[];
  meta?: { token?: string };
}

/** Any node of a document. */
export type DocumentNode = Block | Inline | Text | Fragment;

// ---------------------------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------------------------

const KEY_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Encodes bytes as a base-62 string of `length` characters; a string stands for its bytes as
 * latin1 (one byte per character, as `crypto.hash(…, 'binary')` gives a digest without a Buffer).
 */
export function base62(bytes: Uint8Array | string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    const at = i % bytes.length;
    out += KEY_ALPHABET[(typeof bytes === 'string' ? bytes.charCodeAt(at) : (bytes[at] ?? 0)) % 62];
  }
  return out;
}

/** A new random node key (12 base-62 characters). */
export function newKey(): string {
  return base62(randomBytes(12), 12);
}

// ---------------------------------------------------------------------------------------------
// Builders
// ---------------------------------------------------------------------------------------------

/** A mark of one of the plain types, or a color mark. */
export function mark(type: PlainMark['type']): PlainMark;
export function mark(type: 'color', colors: { text: TextColor; background: TextColor }): ColorMark;
export function mark(type: MarkType, colors?: { text: TextColor; background: TextColor }): Mark {
  return type === 'color'
    ? { object: 'mark', type, data: colors ?? { text: 'default', background: 'default' } }
    : { object: 'mark', type };
}

/** Sorts marks into their canonical order (see `MARK_TYPES`). */
export function sortMarks(marks: Mark[]): Mark[] {
  return [...marks].sort((a, b) => MARK_TYPES.indexOf(a.type) - MARK_TYPES.indexOf(b.type));
}

/** A leaf: `text` with marks given as types (or marks), in canonical order. */
export function leaf(text: string, ...marks: Array<PlainMark['type'] | Mark>): Leaf {
  // Keys in sorted order, as stored documents have them (`canonicalJson` then copies nothing).
  return { marks: sortMarks(marks.map((m) => (typeof m === 'string' ? mark(m) : m))), object: 'leaf', text };
}

/** A text node of leaves; a string is one unmarked leaf. */
export function text(...leaves: Array<Leaf | string>): Text {
  return { object: 'text', key: newKey(), leaves: leaves.map((l) => (typeof l === 'string' ? leaf(l) : l)) };
}

const inlineContent = (children: Array<InlineContent | string>): InlineContent[] =>
  children.map((c) => (typeof c === 'string' ? text(c) : c));

/** A paragraph; strings become unmarked texts. */
export function paragraph(...children: Array<InlineContent | string>): Paragraph {
  return { object: 'block', type: 'paragraph', key: newKey(), data: {}, nodes: inlineContent(children) };
}

/** A heading of level 1 to 3; `id` is a custom anchor. `meta.id` is filled by `withMetaIds`. */
export function heading(level: 1 | 2 | 3, content: Array<InlineContent | string> | string, id?: string): Heading {
  return {
    object: 'block',
    type: `heading-${level}`,
    key: newKey(),
    data: id ? { id } : {},
    nodes: inlineContent(typeof content === 'string' ? [content] : content),
    meta: { id: id ?? '' },
  };
}

/** A list item; a string is one paragraph. */
export function listItem(children: Array<Block | string> | string, checked?: boolean): ListItem {
  const nodes = (typeof children === 'string' ? [children] : children).map((c) =>
    typeof c === 'string' ? paragraph(c) : c,
  );
  return { object: 'block', type: 'list-item', key: newKey(), data: checked === undefined ? {} : { checked }, nodes };
}

/** An ordered list (optionally starting at `start`). */
export function listOrdered(items: Array<ListItem | string>, start?: number): ListOrdered {
  return {
    object: 'block',
    type: 'list-ordered',
    key: newKey(),
    data: start === undefined ? {} : { start },
    nodes: items.map((i) => (typeof i === 'string' ? listItem(i) : i)),
  };
}

/** A bulleted list. */
export function listUnordered(items: Array<ListItem | string>): ListUnordered {
  return {
    object: 'block',
    type: 'list-unordered',
    key: newKey(),
    data: {},
    nodes: items.map((i) => (typeof i === 'string' ? listItem(i) : i)),
  };
}

/** A task list: each item is `[text, checked]` or a list item. */
export function listTasks(items: Array<ListItem | [string, boolean]>): ListTasks {
  return {
    object: 'block',
    type: 'list-tasks',
    key: newKey(),
    data: {},
    nodes: items.map((i) => (Array.isArray(i) ? listItem(i[0], i[1]) : i)),
  };
}

/** A horizontal divider. */
export function divider(): Divider {
  return { object: 'block', type: 'divider', key: newKey(), data: {}, isVoid: true };
}

/** A quote. */
export function blockquote(children: Array<Block | string>): Blockquote {
  return {
    object: 'block',
    type: 'blockquote',
    key: newKey(),
    data: {},
    nodes: children.map((c) => (typeof c === 'string' ? paragraph(c) : c)),
  };
}

/** A hint of a style; strings become paragraphs. */
export function hint(style: HintStyle, children: Array<Block | string>, icon?: string): Hint {
  return {
    object: 'block',
    type: 'hint',
    key: newKey(),
    data: icon ? { style, icon } : { style },
    nodes: children.map((c) => (typeof c === 'string' ? paragraph(c) : c)),
  };
}

/** A code block of `source` (one code line per line; at least one). */
export function code(source: string, data: CodeData = {}): Code {
  const nodes: CodeLine[] = source
    .split('\n')
    .map((line) => ({ object: 'block', type: 'code-line', key: newKey(), data: {}, nodes: [text(line)] }));
  return { object: 'block', type: 'code', key: newKey(), data, nodes };
}

/** A math block. */
export function mathBlock(formula: string): MathBlock {
  return { object: 'block', type: 'math', key: newKey(), data: { formula }, isVoid: true };
}

/** A caption fragment (empty list when there is no caption). */
export function caption(content: Array<InlineContent | string> | string | undefined): Array<Fragment<Paragraph>> {
  if (content === undefined) return [];
  return [
    {
      object: 'fragment',
      key: newKey(),
      fragment: 'caption',
      nodes: [paragraph(...(typeof content === 'string' ? [content] : content))],
    },
  ];
}

/** One image, for `images`. */
export function image(
  ref: ContentRefUrl | ContentRefFile,
  options: { alt?: string; caption?: string | Array<InlineContent | string> } = {},
): Image {
  return {
    object: 'block',
    type: 'image',
    key: newKey(),
    data: options.alt === undefined ? { ref } : { ref, alt: options.alt },
    fragments: caption(options.caption),
    isVoid: true,
  };
}

/** An images block. */
export function images(items: Image[], data: Images['data'] = {}): Images {
  return { object: 'block', type: 'images', key: newKey(), data, nodes: items, isVoid: false };
}

/** A file block with an optional caption. */
export function fileBlock(ref: ContentRefFile, captionText?: string | Array<InlineContent | string>): FileBlock {
  return { object: 'block', type: 'file', key: newKey(), data: { ref }, fragments: caption(captionText), isVoid: true };
}

/** An embed with an optional caption. */
export function embed(url: string, captionText?: string | Array<InlineContent | string>): Embed {
  return {
    object: 'block',
    type: 'embed',
    key: newKey(),
    data: { url },
    fragments: caption(captionText),
    isVoid: true,
  };
}

/** A tab; `meta.id` is filled by `withMetaIds`. */
export function tabsItem(title: string, children: Array<Block | string>, icon?: string): TabsItem {
  const nodes = children.map((c) => (typeof c === 'string' ? paragraph(c) : c));
  return {
    object: 'block',
    type: 'tabs-item',
    key: newKey(),
    data: icon ? { title, icon } : { title },
    nodes,
    meta: { id: '' },
  };
}

/** A tabs block. */
export function tabs(items: TabsItem[]): Tabs {
  return { object: 'block', type: 'tabs', key: newKey(), data: {}, nodes: items };
}

/** An expandable block (`<details>`); `meta.id` is filled by `withMetaIds`. */
export function expandable(
  title: string | Array<InlineContent | string>,
  body: Array<Block | string>,
  defaultExpanded?: boolean,
): Expandable {
  return {
    object: 'block',
    type: 'expandable',
    key: newKey(),
    data: defaultExpanded ? { defaultExpanded } : {},
    fragments: [
      {
        object: 'fragment',
        key: newKey(),
        fragment: 'expandable-title',
        type: 'expandable-title',
        nodes: [paragraph(...(typeof title === 'string' ? [title] : title))],
      },
      {
        object: 'fragment',
        key: newKey(),
        fragment: 'expandable-body',
        type: 'expandable-body',
        nodes: body.map((c) => (typeof c === 'string' ? paragraph(c) : c)),
      },
    ],
    meta: { id: '' },
    isVoid: true,
  };
}

/** A drawing block of an SVG file. */
export function drawing(ref: ContentRefFile): Drawing {
  return { object: 'block', type: 'drawing', key: newKey(), data: { ref }, isVoid: true };
}

/** A content-ref (page link card) block. */
export function contentRefBlock(ref: ContentRef): ContentRefBlock {
  return { object: 'block', type: 'content-ref', key: newKey(), data: { ref }, isVoid: true };
}

/** A reusable-content (include) block. */
export function reusableContent(reusableContentId: string): ReusableContent {
  return {
    object: 'block',
    type: 'reusable-content',
    key: newKey(),
    data: { ref: { kind: 'reusable-content', reusableContent: reusableContentId } },
    isVoid: true,
  };
}

/** A link inline around texts (strings become unmarked texts). */
export function link(ref: ContentRef, ...children: Array<Text | string>): LinkInline {
  return {
    object: 'inline',
    type: 'link',
    key: newKey(),
    data: { ref },
    nodes: children.map((c) => (typeof c === 'string' ? text(c) : c)),
  };
}

/** An emoji inline; `code` is the emoji's code points in hex joined by `-` (`1f389`). */
export function emoji(code: string): EmojiInline {
  return { object: 'inline', type: 'emoji', key: newKey(), data: { code }, isVoid: true };
}

/** An inline formula. */
export function inlineMath(formula: string): MathInline {
  return { object: 'inline', type: 'inline-math', key: newKey(), data: { formula }, isVoid: true };
}

/** A mention of a page, user, space… */
export function mention(ref: ContentRef): MentionInline {
  return { object: 'inline', type: 'mention', key: newKey(), data: { ref }, isVoid: true };
}

/** An expression inline (`space.vars.product`). */
export function expression(value: string): ExpressionInline {
  return { object: 'inline', type: 'expression', key: newKey(), data: { expression: value }, isVoid: true };
}

/** An icon inline by name (`check`), optionally in a color. */
export function icon(name: string, color?: TextColor): IconInline {
  return {
    object: 'inline',
    type: 'icon',
    key: newKey(),
    data: color ? { icon: name, color } : { icon: name },
    isVoid: true,
  };
}

/** A button inline to a reference or doing an action; primary unless `options.kind` says otherwise. */
export function button(
  label: string,
  target: ContentRef | DocumentAction,
  options: { kind?: ButtonData['kind']; size?: ButtonData['size']; icon?: string } = {},
): ButtonInline {
  const base = {
    label,
    kind: options.kind ?? 'primary',
    ...(options.size ? { size: options.size } : {}),
    ...(options.icon ? { icon: options.icon } : {}),
  };
  const data: ButtonData = 'action' in target ? { ...base, action: target } : { ...base, ref: target };
  return { object: 'inline', type: 'button', key: newKey(), data, isVoid: true };
}

/** An inline image. */
export function inlineImage(
  ref: ContentRefUrl | ContentRefFile,
  options: Omit<InlineImage['data'], 'ref'> = {},
): InlineImage {
  return { object: 'inline', type: 'inline-image', key: newKey(), data: { ref, ...options }, isVoid: true };
}

/**
 * A grid table of text columns: `header` gives the column titles, `rows` the cells (a string
 * is one paragraph). IDs of columns, records and cell fragments are new random keys.
 */
export function table(
  header: string[],
  rows: Array<Array<string | Paragraph[]>>,
  alignments: Array<'left' | 'center' | 'right'> = [],
): Table {
  const columns = header.map(() => newKey());
  const definition: Record<string, TableDefinition> = {};
  header.forEach((title, i) => {
    const id = columns[i] as string;
    definition[id] = { id, title, type: 'text', textAlignment: alignments[i] ?? 'left' };
  });
  const records: Record<string, TableRecord> = {};
  const fragments: Fragment[] = [];
  rows.forEach((row, r) => {
    const values: Record<string, TableValue> = {};
    columns.forEach((column, c) => {
      const cell = row[c] ?? '';
      const id = newKey();
      values[column] = id;
      fragments.push({
        object: 'fragment',
        key: newKey(),
        fragment: id,
        nodes: typeof cell === 'string' ? [paragraph(cell)] : cell,
      });
    });
    records[newKey()] = { orderIndex: orderIndex(r), values };
  });
  return {
    object: 'block',
    type: 'table',
    key: newKey(),
    data: { view: { type: 'grid', columns, hideHeader: false }, records, definition },
    fragments,
    isVoid: true,
  };
}

/** The `orderIndex` of the record at `position` (strings that sort like the positions). */
export function orderIndex(position: number): string {
  return `a${position.toString(36).padStart(4, '0')}`;
}

/** A document of blocks, with `meta.id` of headings, tabs and expandables filled in. */
export function documentOf(nodes: Block[]): JSONDocument {
  return withMetaIds({ object: 'document', data: {}, nodes });
}

/**
 * Fills `meta.id` (the URL anchor) of headings (their `data.id`, or else a slug of their text,
 * made unique with `-2`, `-3`…), tabs and expandables (their key). Returns the same document.
 */
export function withMetaIds(document: JSONDocument): JSONDocument {
  const used = new Map<string, number>();
  const visit = (blocks: Block[]): void => {
    for (const block of blocks) {
      if (block.type === 'heading-1' || block.type === 'heading-2' || block.type === 'heading-3') {
        const base = block.data.id ?? (slugify(inlinePlainText(block.nodes)) || 'heading');
        const seen = used.get(base) ?? 0;
        used.set(base, seen + 1);
        block.meta = { id: seen ? `${base}-${seen + 1}` : base };
      } else if (block.type === 'tabs-item' || block.type === 'expandable') {
        block.meta = { id: block.key };
      }
      // Filtered only when it holds blocks: a paragraph's texts need no copy.
      if ('nodes' in block && block.nodes && block.nodes.some(isBlock)) visit(block.nodes.filter(isBlock));
      if ('fragments' in block && block.fragments) for (const fragment of block.fragments) visit(fragment.nodes);
    }
  };
  visit(document.nodes);
  return document;
}

/** Whether a node is a block. */
export function isBlock(node: DocumentNode): node is Block {
  return node.object === 'block';
}

/** The characters of texts and inlines (emoji as their character, formulas as written). */
export function inlinePlainText(nodes: ReadonlyArray<InlineContent | Text>): string {
  let out = '';
  for (const node of nodes) {
    if (node.object === 'text') out += node.leaves.map((l) => l.text).join('');
    else if (node.type === 'emoji') out += emojiChar(node.data.code);
    else if (node.type === 'inline-math') out += node.data.formula;
    else if ('nodes' in node && node.nodes) out += inlinePlainText(node.nodes);
  }
  return out;
}

/** The character(s) of an emoji code (`1f389` → 🎉); the code itself if it is not hex code points. */
export function emojiChar(code: string): string {
  const points = code.split('-').map((p) => Number.parseInt(p, 16));
  return points.every((p) => Number.isInteger(p) && p >= 0 && p <= 0x10ffff) ? String.fromCodePoint(...points) : code;
}

/** A URL anchor for a title: lower case, letters and digits joined by `-`. */
export function slugify(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9.+_]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

// The model is recursive: children are validated through these (their types are not inferred).
const lazyFlow: z.ZodType = z.lazy(() => flowBlockSchema);
const lazyAnyBlock: z.ZodType = z.lazy(() => anyBlockSchema);
const lazyParagraph: z.ZodType = z.lazy(() => paragraphSchema);
const lazyInlineContent: z.ZodType = z.lazy(() => inlineContentSchema);
const lazyOtherInline: z.ZodType = z.lazy(() => otherInline);
const lazyInlineImage: z.ZodType = z.lazy(() => inlineImageSchema);
const lazyExpression: z.ZodType = z.lazy(() => expressionSchema);
const key = z.string().min(1, 'must be a non-empty string').optional();
const textColor = z.enum(TEXT_COLORS);
const plainMark = z.object({
  object: z.literal('mark').default('mark'),
  type: z.enum(['bold', 'italic', 'code', 'keyboard', 'strikethrough', 'superscript', 'subscript']),
});
const colorMark = z.object({
  object: z.literal('mark').default('mark'),
  type: z.literal('color'),
  data: z.object({ text: textColor, background: textColor }),
});
const markSchema = z.discriminatedUnion('type', [plainMark, colorMark]);
const leafSchema = z.object({
  object: z.literal('leaf').default('leaf'),
  text: z.string(),
  marks: z.array(markSchema).default([]),
});
const textSchema = z.object({ object: z.literal('text'), key, leaves: z.array(leafSchema) });

const space = z.string().optional();
const refFile = z.object({ kind: z.literal('file'), file: z.string().min(1), space });
const refUrl = z.object({ kind: z.literal('url'), url: z.string().min(1) });
const contentRefSchema = z.discriminatedUnion('kind', [
  refFile,
  refUrl,
  z.object({ kind: z.literal('page'), page: z.string().min(1), space }),
  z.object({ kind: z.literal('anchor'), anchor: z.string().min(1), space, page: z.string().optional() }),
  z.object({ kind: z.literal('user'), user: z.string().min(1) }),
  z.object({ kind: z.literal('collection'), collection: z.string().min(1) }),
  z.object({ kind: z.literal('space'), space: z.string().min(1) }),
  z.object({ kind: z.literal('reusable-content'), reusableContent: z.string().min(1), space }),
  z.object({ kind: z.literal('tag'), tag: z.string().min(1), space }),
  z.object({ kind: z.literal('openapi'), spec: z.string().min(1) }),
]);
const imageRef = z.discriminatedUnion('kind', [refFile, refUrl]);
const record = z.record(z.string(), z.unknown());
const emptyData = z.object({}).default({});
const voidFlag = z.literal(true);
const nonVoid = z.literal(false).optional();
const metaId = z.object({ id: z.string() });
const alignment = z.enum(['start', 'center', 'end']).optional();
const length = z.union([z.number(), z.object({ unit: z.string(), value: z.number() })]);

/** A block schema of a type. */
const block = <T extends string, S extends z.core.$ZodLooseShape>(type: T, shape: S) =>
  z.object({ object: z.literal('block'), type: z.literal(type), key, ...shape });
const fragment = (nodes: z.ZodType) =>
  z.object({
    object: z.literal('fragment'),
    key,
    fragment: z.string().min(1),
    type: z.string().optional(),
    nodes: z.array(nodes),
  });
const inline = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.object({ object: z.literal('inline'), type: z.literal(type), key, data, isVoid: voidFlag });
const linkInline = z.object({
  object: z.literal('inline'),
  type: z.literal('link'),
  key,
  data: z.object({ ref: contentRefSchema }),
  isVoid: nonVoid,
  nodes: z.array(z.union([textSchema, lazyInlineImage, lazyOtherInline])),
});
const otherInline = z.object({
  object: z.literal('inline'),
  type: z.enum(OTHER_INLINE_TYPES),
  key,
  data: record.default({}),
  isVoid: z.boolean().optional(),
  nodes: z.array(lazyInlineContent).optional(),
  fragments: z.array(fragment(lazyAnyBlock)).optional(),
});
const expressionSchema = inline('expression', z.object({ expression: z.string() }));
const inlineImageSchema = inline(
  'inline-image',
  z.object({
    ref: imageRef,
    refDark: imageRef.optional(),
    caption: z.string().optional(),
    alt: z.string().optional(),
    size: z.enum(['original', 'line']).optional(),
  }),
);
const documentAction = z.discriminatedUnion('action', [
  z.object({ action: z.literal('search'), query: z.string().optional() }),
  z.object({ action: z.literal('ask'), query: z.string().optional() }),
  z.object({ action: z.literal('select'), slug: z.string() }),
]);
const buttonBase = {
  label: z.string(),
  kind: z.enum(['primary', 'secondary']),
  size: z.enum(['small', 'medium', 'large']).optional(),
  icon: z.string().min(1).max(50).optional(),
};
const inlineSchema = z.discriminatedUnion('type', [
  linkInline,
  inline('emoji', z.object({ code: z.string().min(1) })),
  inline('inline-math', z.object({ formula: z.string() })),
  inline('mention', z.object({ ref: contentRefSchema })),
  expressionSchema,
  // The name is written in a class attribute (`<i class="fa-NAME">`): one word.
  inline(
    'icon',
    z.object({ icon: z.string().regex(/^\S+$/, 'must be an icon name, without spaces'), color: textColor.optional() }),
  ),
  inline(
    'button',
    z.union([z.object({ ...buttonBase, ref: contentRefSchema }), z.object({ ...buttonBase, action: documentAction })]),
  ),
  inlineImageSchema,
  otherInline,
]);
const inlineContentSchema = z.discriminatedUnion('object', [textSchema, inlineSchema]);

const captionFragments = () => z.array(fragment(lazyParagraph)).default([]);

const paragraphSchema = block('paragraph', {
  data: z.object({ align: alignment }).default({}),
  isVoid: nonVoid,
  nodes: z.array(lazyInlineContent),
});
const headingShape = {
  data: z
    .object({
      id: z
        .string()
        .regex(/^[-a-z0-9.+_]+$/, 'must be lower-case letters, digits and - . + _')
        .optional(),
      align: alignment,
    })
    .default({}),
  meta: metaId.optional(),
  isVoid: nonVoid,
  nodes: z.array(lazyInlineContent),
};
const containerNodes = {
  isVoid: nonVoid,
  nodes: z.array(lazyFlow),
};
const listItemSchema = block('list-item', {
  data: z.object({ checked: z.boolean().optional() }).default({}),
  ...containerNodes,
});
const listNodes = {
  isVoid: nonVoid,
  nodes: z.array(listItemSchema),
};
const codeLineSchema = block('code-line', {
  data: z.object({ highlighted: z.boolean().optional() }).default({}),
  isVoid: nonVoid,
  nodes: z.array(z.union([textSchema, lazyExpression, lazyOtherInline])),
});
const imageSchema = block('image', {
  data: z.object({
    ref: imageRef,
    refDark: imageRef.optional(),
    width: length.optional(),
    height: length.optional(),
    alt: z.string().optional(),
  }),
  fragments: captionFragments(),
  isVoid: voidFlag,
});
const tabsItemSchema = block('tabs-item', {
  data: z
    .object({ title: z.string().optional(), icon: z.string().optional(), slug: z.string().optional() })
    .default({}),
  meta: metaId.optional(),
  ...containerNodes,
});
const tableDefinition = z.looseObject({
  id: z.string().min(1),
  title: z.string(),
  type: z.enum(['text', 'number', 'checkbox', 'files', 'users', 'rating', 'select', 'content-ref', 'image']),
  textAlignment: z.enum(['left', 'center', 'right']).optional(),
});
const tableSchema = block('table', {
  data: z.object({
    view: z.discriminatedUnion('type', [
      z.object({
        type: z.literal('grid'),
        columns: z.array(z.string()),
        hideHeader: z.boolean(),
        columnWidths: z.record(z.string(), z.number()).optional(),
        stickyHeader: z.boolean().optional(),
        stickyFirstColumn: z.boolean().optional(),
        useNewSizing: z.boolean().optional(),
      }),
      z.object({
        type: z.literal('cards'),
        cardSize: z.enum(['medium', 'large']),
        columns: z.array(z.string()),
        targetDefinition: z.string().optional(),
        coverDefinition: z.string().optional(),
        coverDefinitionDark: z.string().optional(),
        hideColumnTitle: z.boolean().optional(),
        wrap: z.boolean().optional(),
      }),
    ]),
    records: z.record(z.string(), z.object({ orderIndex: z.string(), values: z.record(z.string(), z.unknown()) })),
    definition: z.record(z.string(), tableDefinition),
    cellMerges: z
      .array(
        z.object({
          anchor: z.object({ record: z.string(), column: z.string() }),
          rowSpan: z.int().min(1).max(50),
          colSpan: z.int().min(1).max(50),
        }),
      )
      .optional(),
    fullWidth: z.boolean().optional(),
    search: z.boolean().optional(),
  }),
  fragments: z.array(fragment(lazyFlow)),
  isVoid: voidFlag,
});
const otherBlock = z.object({
  object: z.literal('block'),
  type: z.enum(OTHER_BLOCK_TYPES),
  key,
  data: record.default({}),
  meta: record.optional(),
  isVoid: z.boolean().optional(),
  nodes: z.array(lazyAnyBlock).optional(),
  fragments: z.array(fragment(lazyAnyBlock)).optional(),
});

/** Blocks that may stand in flow content (any block but the child-only ones). */
const flowBlockSchema = z.discriminatedUnion('type', [
  paragraphSchema,
  block('heading-1', headingShape),
  block('heading-2', headingShape),
  block('heading-3', headingShape),
  block('list-ordered', { data: z.object({ start: z.number().optional() }).default({}), ...listNodes }),
  block('list-unordered', { data: emptyData, ...listNodes }),
  block('list-tasks', { data: emptyData, ...listNodes }),
  block('divider', { data: emptyData, isVoid: voidFlag }),
  block('blockquote', { data: emptyData, ...containerNodes }),
  block('hint', {
    data: z.object({ style: z.enum(['info', 'warning', 'danger', 'success']), icon: z.string().optional() }),
    ...containerNodes,
  }),
  block('code', {
    data: z
      .object({
        syntax: z.string().optional(),
        title: z.string().optional(),
        overflow: z.enum(['scroll', 'wrap']).optional(),
        lineNumbers: z.boolean().optional(),
        fullWidth: z.boolean().optional(),
        expandable: z.boolean().optional(),
        collapsedLineCount: z.int().min(1).optional(),
      })
      .default({}),
    isVoid: nonVoid,
    nodes: z.array(codeLineSchema),
  }),
  block('math', { data: z.object({ formula: z.string() }), isVoid: voidFlag }),
  block('images', {
    data: z
      .object({
        align: z.enum(['center', 'left', 'right']).optional(),
        fullWidth: z.boolean().optional(),
        withFrame: z.boolean().optional(),
      })
      .default({}),
    isVoid: z.literal(false).default(false),
    nodes: z.array(imageSchema),
  }),
  block('file', {
    data: z.object({ ref: refFile }),
    fragments: captionFragments(),
    isVoid: voidFlag,
  }),
  block('embed', {
    data: z.object({ url: z.string().min(1), fullWidth: z.boolean().optional() }),
    fragments: captionFragments(),
    isVoid: voidFlag,
  }),
  block('tabs', {
    data: z.object({ fullWidth: z.boolean().optional() }).default({}),
    isVoid: nonVoid,
    nodes: z.array(tabsItemSchema),
  }),
  block('expandable', {
    data: z.object({ defaultExpanded: z.boolean().optional() }).default({}),
    meta: metaId.optional(),
    fragments: z.tuple([fragment(lazyParagraph), fragment(lazyFlow)]),
    isVoid: voidFlag,
  }),
  tableSchema,
  block('content-ref', { data: z.object({ ref: contentRefSchema }), isVoid: voidFlag }),
  block('reusable-content', {
    data: z.object({
      ref: z.object({ kind: z.literal('reusable-content'), reusableContent: z.string().min(1), space }),
    }),
    meta: z.object({ token: z.string().optional() }).optional(),
    isVoid: voidFlag,
  }),
  block('drawing', { data: z.object({ ref: refFile.optional() }).default({}), isVoid: voidFlag }),
  otherBlock,
]);
/** Any block, child-only ones included (for blocks this module does not model). */
const anyBlockSchema = z.union([flowBlockSchema, listItemSchema, codeLineSchema, imageSchema, tabsItemSchema]);

const rawDocumentSchema = z.object({
  object: z.literal('document'),
  data: z.looseObject({ schemaVersion: z.int().optional() }).default({}),
  nodes: z.array(lazyFlow),
  meta: z.object({ token: z.string().optional() }).optional(),
});

/**
 * Validates a JSON document from API input. Leaves may leave out `object` and `marks`, blocks
 * an empty `data`; missing keys are filled with new random keys and `meta.id` of headings, tabs
 * and expandables is (re)computed. Which flow blocks a container holds is not checked, but lists
 * hold list items, code holds code lines, images hold images and tabs hold tabs items; the
 * child-only blocks stand nowhere else. Use `describeDocumentError` for a message naming the node.
 */
export const documentSchema: z.ZodType<JSONDocument> = rawDocumentSchema.transform((input) =>
  withMetaIds(fillKeys(input as unknown as JSONDocument)),
);

/** Gives a key to every block, inline, text and fragment without one. */
function fillKeys(document: JSONDocument): JSONDocument {
  const visit = (node: DocumentNode): void => {
    if (!node.key) node.key = newKey();
    if ('nodes' in node && node.nodes) for (const child of node.nodes as DocumentNode[]) visit(child);
    if ('fragments' in node && node.fragments) for (const child of node.fragments) visit(child);
  };
  for (const node of document.nodes) visit(node);
  return document;
}

/**
 * Budgets of a document given as JSON (a page's `document`, a description), checked before it
 * is validated. The markdown converter keeps its documents within `nodes` and `depth` too.
 */
export const DOCUMENT_LIMITS = {
  /** Largest document, in bytes of JSON. */
  bytes: 4 * 1024 * 1024,
  /** Most nodes (blocks, inlines, texts, fragments). */
  nodes: 100_000,
  /** Deepest nesting of nodes in nodes (a list item in a list in a quote…). */
  depth: 64,
} as const;

/**
 * Content over one of its budgets: names the budget (`documentNodes`…), the value and the maximum.
 * How a caller answers it (an HTTP status, a user error) is the caller's choice.
 */
export class ContentLimitError extends Error {
  override readonly name: string = 'ContentLimitError';
  constructor(
    readonly limit: string,
    readonly value: number,
    readonly max: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Refuses a document over `DOCUMENT_LIMITS` (nodes and depth; and bytes unless `bytes: false`,
 * for documents the platform built itself). Counts without recursion and stops at the first
 * budget passed, so a hostile input costs no more than the budget.
 */
export function checkDocumentLimits(input: unknown, { bytes = true } = {}): void {
  const childrenOf = (node: unknown): unknown[] => {
    if (node === null || typeof node !== 'object') return [];
    const { nodes, fragments } = node as { nodes?: unknown; fragments?: unknown };
    return [...(Array.isArray(nodes) ? nodes : []), ...(Array.isArray(fragments) ? fragments : [])];
  };
  let count = 0;
  const stack: Array<{ node: unknown; depth: number }> = childrenOf(input).map((node) => ({ node, depth: 1 }));
  while (stack.length) {
    const { node, depth } = stack.pop()!;
    count += 1;
    if (count > DOCUMENT_LIMITS.nodes) {
      throw new ContentLimitError(
        'documentNodes',
        count,
        DOCUMENT_LIMITS.nodes,
        `the document has more than ${DOCUMENT_LIMITS.nodes} nodes, the limit is ${DOCUMENT_LIMITS.nodes}`,
      );
    }
    if (depth > DOCUMENT_LIMITS.depth) {
      throw new ContentLimitError(
        'documentDepth',
        depth,
        DOCUMENT_LIMITS.depth,
        `the document nests nodes ${depth} levels deep, the limit is ${DOCUMENT_LIMITS.depth}`,
      );
    }
    for (const child of childrenOf(node)) stack.push({ node: child, depth: depth + 1 });
  }
  if (!bytes) return;
  const size = Buffer.byteLength(JSON.stringify(input) ?? '');
  if (size > DOCUMENT_LIMITS.bytes) {
    throw new ContentLimitError(
      'documentBytes',
      size,
      DOCUMENT_LIMITS.bytes,
      `the document has ${size} bytes of JSON, the limit is ${DOCUMENT_LIMITS.bytes}`,
    );
  }
}

/** The error of a document that `documentSchema` rejected, with a message naming the node. */
export class DocumentValidationError extends Error {
  override readonly name = 'DocumentValidationError';
}

/**
 * Describes the first issue of a rejected document as `<path>: <reason>`, where the path
 * names each node on the way with its type: `nodes[2](hint).nodes[0](paragraph).data.align`.
 */
export function describeDocumentError(error: z.ZodError, input: unknown): string {
  const issue = error.issues[0];
  if (!issue) return 'Invalid document';
  let path = '';
  let at: unknown = input;
  for (const segment of issue.path) {
    at =
      at !== null && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[segment as PropertyKey] : undefined;
    if (typeof segment === 'number') {
      path += `[${segment}]`;
      const type =
        at !== null && typeof at === 'object'
          ? ((at as { type?: unknown; fragment?: unknown }).type ?? (at as { fragment?: unknown }).fragment)
          : undefined;
      if (typeof type === 'string') path += `(${type})`;
    } else {
      path += `${path ? '.' : ''}${String(segment)}`;
    }
  }
  const more =
    error.issues.length > 1 ? ` (and ${error.issues.length - 1} more issue${error.issues.length > 2 ? 's' : ''})` : '';
  return `Invalid document at ${path || '(root)'}: ${issue.message}${more}`;
}

/** Validates a JSON document (see `documentSchema`); throws `DocumentValidationError`. */
export function parseDocument(input: unknown): JSONDocument {
  const parsed = documentSchema.safeParse(input);
  if (!parsed.success) throw new DocumentValidationError(describeDocumentError(parsed.error, input));
  return parsed.data;
}

/**
 * Validates a JSON document a caller sent, within `DOCUMENT_LIMITS`: the budgets are checked
 * before the validation, so a hostile input costs no more than they allow. Throws
 * `ContentLimitError` or `DocumentValidationError`.
 */
export function parseDocumentInput(input: unknown): JSONDocument {
  checkDocumentLimits(input);
  return parseDocument(input);
}
