import { documentHash } from '../policy/manifest.js';
import { EXAMPLE_OPERATIONS } from './operations.js';

/** The built-in manifest: every example operation under the sha256 of its text. */
export function exampleManifest(): Map<string, string> {
  return new Map(EXAMPLE_OPERATIONS.map(({ document }) => [documentHash(document), document]));
}
