import { describe, expect, it } from 'vitest';
import { markdownToDocument } from '../../src/document/markdown.js';

describe('expandables in markdown', () => {
  it('reads <summary> whether or not a blank line separates it from <details>', () => {
    for (const markdown of [
      '<details>\n<summary>More</summary>\n\nHidden text.\n\n</details>\n',
      '<details>\n\n<summary>More</summary>\n\nHidden text.\n\n</details>\n',
      '<details open>\n\n<summary>More</summary>\n\nHidden text.\n\n</details>\n',
    ]) {
      const [block] = markdownToDocument(markdown).document.nodes as any[];
      expect(block.type, markdown).toBe('expandable');
      expect(JSON.stringify(block.fragments[0])).toContain('More');
      expect(JSON.stringify(block.fragments[1])).toContain('Hidden text.');
    }
  });
});
