/**
 * The demo documentation of three Acme spaces, as authored (see types.ts): the seeding engine
 * turns each into three revisions of the space with the same title in `SPACES` (demo-data.ts).
 */
import { API_REFERENCE } from './api-reference.js';
import { GETTING_STARTED } from './getting-started.js';
import { HANDBOOK } from './handbook.js';
import type { DemoSpaceContent } from './types.js';

export const DEMO_CONTENT: DemoSpaceContent[] = [GETTING_STARTED, API_REFERENCE, HANDBOOK];
