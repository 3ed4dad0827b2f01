/**
 * Change requests in the graph: the `ChangeRequest` node, its lists and lookups (`change-request.ts`),
 * its reviews (`reviews.ts`), the mutations that open and change it (`mutations.ts`, with `target.ts`
 * for what they share), its content edits (`content.ts`), and merging it or updating it from the
 * live content (`merge.ts`).
 */
import './reviews.js';
import './mutations.js';
import './content.js';
import './merge.js';
import './agent-conversations.js';

export { ChangeRequestConnection, ChangeRequestNode, ChangeRequestStatusEnum, listRequests } from './change-request.js';
