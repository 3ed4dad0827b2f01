/**
 * Tag blocks of GitBook's markdown that the document model keeps with their own shape: steppers,
 * columns, updates, conditions, prompts and OpenAPI operation and schema blocks. Each reads its
 * attributes into the `data` the API description gives it, and writes them back the way it was
 * written (`{% stepper %}{% step %}…`).
 */
import type { Block, OtherBlock } from '../model.js';
import { booleanAttr } from './tags.js';

/** Tag name → block type, for the tags kept as blocks. */
export const KEPT_TAGS: Readonly<Record<string, OtherBlock['type']>> = {
  stepper: 'stepper',
  step: 'stepper-step',
  columns: 'columns',
  column: 'column',
  updates: 'updates',
  update: 'update',
  if: 'if',
  prompt: 'prompt',
  'openapi-operation': 'openapi-operation',
  'openapi-schemas': 'openapi-schemas',
};

/** Block type → tag name. */
const TAGS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(KEPT_TAGS).map(([tag, type]) => [type, tag]),
);

/** The tag a kept block is written with, if it is one. */
export const tagOfType = (type: string): string | undefined => TAGS[type];

/** The expression of an `{% if … %}` tag, as written. */
export function conditionOf(raw: string): string {
  return raw
    .replace(/^\{%-?\s*if\s+/, '')
    .replace(/\s*-?%\}$/, '')
    .trim();
}

const VOID_TYPES = new Set(['openapi-operation', 'openapi-schemas']);

/** A day (`2026-01-31`) or a date-time as a timestamp; undefined when it is neither. */
function timestamp(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00.000Z` : value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The data of a kept block from the attributes of its tag (`raw`: the tag as written). */
export function keptData(
  name: string,
  attrs: Record<string, string>,
  raw: string,
): Record<string, unknown> | undefined {
  switch (name) {
    case 'stepper':
      return {};
    case 'step':
      return attrs.icon ? { icon: attrs.icon } : {};
    case 'columns':
      return booleanAttr(attrs.fullWidth) ? { fullWidth: true } : {};
    case 'column': {
      const data: Record<string, unknown> = {};
      const width = Number(attrs.width);
      if (attrs.width !== undefined && Number.isFinite(width)) data.width = width;
      if (
        attrs.verticalAlignment === 'top' ||
        attrs.verticalAlignment === 'middle' ||
        attrs.verticalAlignment === 'bottom'
      )
        data.verticalAlignment = attrs.verticalAlignment;
      return data;
    }
    case 'updates':
      return { format: attrs.format === 'numeric' || attrs.format === 'short' ? attrs.format : 'full' };
    case 'update': {
      const date = timestamp(attrs.date);
      if (!date) return undefined;
      const tags = (attrs.tags ?? '')
        .split(',')
        .map((tag) => tag.trim())
        .filter(Boolean);
      return tags.length ? { date, tags: tags.map((tag) => ({ kind: 'tag', tag })) } : { date };
    }
    case 'if':
      return { expression: conditionOf(raw) };
    case 'prompt': {
      if (attrs.description === undefined) return undefined;
      const data: Record<string, unknown> = { description: attrs.description };
      if (attrs.icon) data.icon = attrs.icon;
      const open = booleanAttr(attrs.openInAIProviders);
      if (open !== undefined) data.openInAIProviders = open;
      if (attrs.defaultExpanded === 'hidden' || attrs.defaultExpanded === 'partial' || attrs.defaultExpanded === 'full')
        data.defaultExpanded = attrs.defaultExpanded;
      return data;
    }
    case 'openapi-operation':
      if (!attrs.spec || !attrs.path || !attrs.method) return undefined;
      return { ref: { kind: 'openapi', spec: attrs.spec }, path: attrs.path, method: attrs.method };
    case 'openapi-schemas': {
      if (!attrs.spec) return undefined;
      const data: Record<string, unknown> = {
        ref: { kind: 'openapi', spec: attrs.spec },
        schemas: (attrs.schemas ?? '')
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
      };
      const grouped = booleanAttr(attrs.grouped);
      if (grouped !== undefined) data.grouped = grouped;
      if (attrs.title) data.title = attrs.title;
      return data;
    }
    default:
      return undefined;
  }
}

/**
 * The kept block of a tag with its content, or undefined when the tag lacks what its block needs
 * (then it stays literal text). A prompt holds exactly one code block; OpenAPI blocks hold none.
 */
export function keptBlock(
  name: string,
  attrs: Record<string, string>,
  raw: string,
  children: Block[],
): OtherBlock | undefined {
  const type = KEPT_TAGS[name];
  const data = keptData(name, attrs, raw);
  if (!type || !data) return undefined;
  if (VOID_TYPES.has(type)) return { object: 'block', type, key: '', data, isVoid: true };
  if (type === 'prompt') {
    const code = children.filter((child) => child.type === 'code');
    if (code.length !== 1) return undefined;
    return { object: 'block', type, key: '', data, nodes: code, isVoid: false };
  }
  return { object: 'block', type, key: '', data, nodes: children, isVoid: false };
}

/** The attributes a kept block is written with, or for `if` its whole opening tag. */
export function keptTag(
  block: OtherBlock,
): { name: string; attrs: Record<string, string | number | boolean | undefined>; open?: string } | undefined {
  const name = TAGS[block.type];
  if (!name) return undefined;
  const data = block.data as Record<string, unknown>;
  switch (block.type) {
    case 'if':
      return { name, attrs: {}, open: `{% if ${String(data.expression ?? '')} %}` };
    case 'update': {
      const date = typeof data.date === 'string' ? data.date : '';
      const day = /T00:00:00(\.000)?Z$/.test(date) ? date.slice(0, 10) : date;
      const tags = Array.isArray(data.tags)
        ? (data.tags as Array<{ tag?: string }>)
            .map((tag) => tag.tag)
            .filter(Boolean)
            .join(',')
        : undefined;
      return { name, attrs: { date: day, tags: tags || undefined } };
    }
    case 'openapi-operation':
      return {
        name,
        attrs: {
          spec: (data.ref as { spec?: string } | undefined)?.spec,
          path: data.path as string,
          method: data.method as string,
        },
      };
    case 'openapi-schemas':
      return {
        name,
        attrs: {
          spec: (data.ref as { spec?: string } | undefined)?.spec,
          schemas: Array.isArray(data.schemas) ? (data.schemas as string[]).join(',') : undefined,
          grouped: typeof data.grouped === 'boolean' ? data.grouped : undefined,
          title: typeof data.title === 'string' ? data.title : undefined,
        },
      };
    default:
      return {
        name,
        attrs: Object.fromEntries(
          Object.entries(data).filter((entry): entry is [string, string | number | boolean] =>
            ['string', 'number', 'boolean'].includes(typeof entry[1]),
          ),
        ),
      };
  }
}
