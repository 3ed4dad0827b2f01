/**
 * The demo documentation, as authored (see types.ts): the seeding engine turns each space's
 * content into the revisions of the space with the same title in `SPACES` (demo-data.ts).
 */
import { API_REFERENCE } from './api-reference.js';
import { GETTING_STARTED } from './getting-started.js';
import { HANDBOOK } from './handbook.js';
import { SITE_SPACES_CONTENT } from './site-spaces.js';
import type { DemoSpaceContent } from './types.js';

/** Three Acme spaces of real documentation: ten pages or more each, files, reusable content, three revisions. */
export const DEMO_CONTENT: DemoSpaceContent[] = [GETTING_STARTED, API_REFERENCE, HANDBOOK];

/** Every demo space with content: those three, and a few pages in each other space a demo site publishes. */
export const SEEDED_CONTENT: DemoSpaceContent[] = [...DEMO_CONTENT, ...SITE_SPACES_CONTENT];
