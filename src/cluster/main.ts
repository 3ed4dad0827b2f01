import { join } from 'node:path';
import { loadConfigOrExit } from '../config.js';
import { redactSecrets } from '../gateway/errors.js';
import { startCluster } from './cluster.js';

/**
 * `npm run cluster`: replicas of the gateway behind HAProxy on `PORT`, sharing a redis-server,
 * in front of the embedded platform (or `UPSTREAM_URL`), all on loopback. Ctrl+C stops it all.
 */
const config = loadConfigOrExit();

const cluster = await startCluster({
  config,
  dir: join(config.DATA_DIR, 'cluster'),
  log: (line) => console.error(line),
}).catch((error: unknown) => {
  console.error(`Cannot start the cluster: ${redactSecrets((error as Error).message)}`);
  process.exit(1);
});

console.log(`GraphQL gateway cluster: ${cluster.url}/graphql (HAProxy, ${cluster.replicas.length} replicas)`);
for (const replica of cluster.replicas)
  console.log(`  ${replica.name}: http://127.0.0.1:${replica.port} (process ${replica.supervisor.status().pid})`);
console.log(`  Redis: ${redactSecrets(cluster.redisUrl)}${cluster.redis ? ' (started here, in memory)' : ''}`);
console.log(
  `  Upstream REST API: ${redactSecrets(cluster.upstreamUrl)}${cluster.platform ? ' (embedded platform)' : ''}`,
);
if (cluster.demoTokensFile) console.log(`  Demo tokens: ${cluster.demoTokensFile}`);
console.log('Ctrl+C stops it all.');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log('Stopping the balancer, then each gateway (gracefully), the platform and Redis…');
    void cluster.stop().then(() => process.exit(0));
  });
}
