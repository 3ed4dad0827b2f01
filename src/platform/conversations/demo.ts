/**
 * The id of the demo cluster of installer errors, which a demo change request names (the demo's conversations
 * and the clusters they name are data: `demo-content/conversations.json`; the seed checks that it names this one).
 */
export const DEMO_CLUSTER_ID = 'cluster-install-errors';
