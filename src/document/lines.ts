/**
 * Documents as plain lines, both ways: a document of one paragraph per line of a text, and the
 * text of a document one line per block. The simple form of a document for callers that take or
 * show plain text (the gateway's `DocumentInput.text` and `Document.text`). It reads documents
 * as untyped JSON, so it needs neither the model's schema nor a valid document.
 */

type TextNode = {
  object?: string;
  type?: string;
  text?: unknown;
  leaves?: TextNode[];
  nodes?: TextNode[];
  fragments?: TextNode[];
};

/** Whether a value of an untyped document can be read as a node: JSON from elsewhere may hold anything. */
const isNode = (value: unknown): value is TextNode => value !== null && typeof value === 'object';

/** The text of inline content: its leaves, concatenated. */
function inlineText(node: TextNode): string {
  if (!isNode(node)) return '';
  if (Array.isArray(node.leaves))
    return node.leaves.map((leaf) => (isNode(leaf) && typeof leaf.text === 'string' ? leaf.text : '')).join('');
  return Array.isArray(node.nodes) ? node.nodes.map(inlineText).join('') : '';
}

/**
 * Plain text of a rich-text document: the text of each block that holds text (its leaves and
 * inlines joined), one line per block (so that the text given to `documentFromLines` comes back as
 * it was written), each line of a code block on its own; captions, tab and expandable contents
 * included, void blocks without text left out.
 */
export function documentLines(document: unknown): string {
  const blocks: string[] = [];
  const block = (node: TextNode) => {
    if (!isNode(node)) return;
    const children = Array.isArray(node.nodes) ? node.nodes : [];
    if (node.type === 'code') {
      blocks.push(children.map(inlineText).join('\n'));
    } else if (children.some((child) => isNode(child) && (child.object === 'text' || child.object === 'inline'))) {
      const text = children.map(inlineText).join('');
      if (text.trim() !== '') blocks.push(text);
    } else {
      children.forEach(block);
    }
    if (Array.isArray(node.fragments)) node.fragments.forEach(block);
  };
  const nodes = (document as { nodes?: unknown } | null | undefined)?.nodes;
  if (Array.isArray(nodes)) (nodes as TextNode[]).forEach(block);
  return blocks.join('\n');
}

/** A document of one paragraph per line of `text`. */
export function documentFromLines(text: string) {
  return {
    object: 'document' as const,
    data: { schemaVersion: 1 },
    nodes: text.split('\n').map((line, index) => ({
      object: 'block',
      type: 'paragraph',
      key: `p${index}`,
      isVoid: false,
      data: { align: 'start' },
      nodes: [{ object: 'text', leaves: [{ text: line, marks: [] }] }],
    })),
  };
}
