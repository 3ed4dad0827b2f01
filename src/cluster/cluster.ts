import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { demoAdminToken, superviseEmbeddedPlatform, superviseGateway, type Supervisor } from '../supervisor.js';
import { balancerConfig, startBalancer, type Balancer, type ServerState } from './haproxy.js';
import { assertFree, freePort } from './ports.js';
import { localReceiverUrl, withReceiver } from '../gateway/live/events-path.js';
import { startRedisServer, type RedisServer } from './redis-server.js';

/** Options of `startCluster`. */
export interface ClusterOptions {
  /** Settings of the cluster and of its gateways (`PORT` is the balancer's). */
  config: Config;
  /** Where the cluster keeps its runtime files (HAProxy's configuration and socket). */
  dir: string;
  /** Lines about restarts and what the cluster does. */
  log: (line: string) => void;
  /** More environment for the gateways (tests: a poll interval, a log level). */
  env?: NodeJS.ProcessEnv;
}

/** One gateway of the cluster. */
export interface Replica {
  /** Its name in HAProxy's backend (`gateway1`). */
  name: string;
  /** Its own port on 127.0.0.1 (kept across its restarts). */
  port: number;
  supervisor: Supervisor;
}

export interface Cluster {
  /** The balancer's origin: `http://127.0.0.1:<PORT>`. */
  url: string;
  upstreamUrl: string;
  redisUrl: string;
  /** The redis-server the cluster started (none with `REDIS_URL`). */
  redis: RedisServer | undefined;
  /** The embedded platform's process (none with `UPSTREAM_URL`). */
  platform: Supervisor | undefined;
  /** Where the embedded platform wrote the demo users' tokens. */
  demoTokensFile: string | undefined;
  replicas: Replica[];
  balancer: Balancer;
  /** Waits until HAProxy has `names` (every replica by default) in rotation. */
  inRotation(names?: string[], timeoutMs?: number): Promise<void>;
  /** Stops one replica gracefully, starts it again on its port, and waits until HAProxy has it back. */
  restart(replica: Replica): Promise<void>;
  /** Stops the balancer, the gateways (gracefully), the platform and the redis-server it started. */
  stop(): Promise<void>;
}

/**
 * Replicas of the gateway behind HAProxy on loopback, as a deployment runs them: a redis-server
 * (unless `REDIS_URL`), the embedded platform (unless `UPSTREAM_URL`), `CLUSTER_REPLICAS`
 * gateways (each its own process, restarted when it ends, on the port it first got) and HAProxy
 * on `PORT`, configured from `deploy/haproxy.cfg`: health checks on `/ready`, retries and
 * redispatch.
 */
export async function startCluster({ config, dir, log, env = {} }: ClusterOptions): Promise<Cluster> {
  mkdirSync(dir, { recursive: true });
  const started: Array<{ stop(): Promise<void> }> = [];
  const replicaPorts = portsOfReplicas(config);
  // Checked before anything starts: a port taken is named with the setting that chose it (HAProxy's
  // own words, once the rest started, are four lines of alerts).
  // The balancer binds HOST; the replicas and Redis, loopback.
  if (config.PORT !== 0) await assertFree(config.PORT, 'PORT', config.HOST);
  for (const [index, port] of replicaPorts.entries())
    if (port !== 0) await assertFree(port, index === 0 ? 'CLUSTER_BASE_PORT' : `CLUSTER_BASE_PORT + ${index}`);
  if (!config.REDIS_URL && config.REDIS_PORT !== 0) await assertFree(config.REDIS_PORT, 'REDIS_PORT');
  try {
    const redis = config.REDIS_URL ? undefined : await startRedisServer(config.REDIS_PORT || (await freePort()));
    if (redis) started.push(redis);
    const redisUrl = config.REDIS_URL ?? redis!.url;
    let upstreamUrl = config.UPSTREAM_URL;
    let platform: Supervisor | undefined;
    let demoTokensFile: string | undefined;
    // The embedded platform delivers its events to the balancer, which hands them to any replica.
    const receiverUrl = config.PORT === 0 ? undefined : localReceiverUrl(config.HOST, config.PORT);
    let eventsToken: string | undefined;
    if (!upstreamUrl) {
      platform = superviseEmbeddedPlatform(
        config,
        log,
        {},
        receiverUrl ? withReceiver(process.env, receiverUrl) : process.env,
      );
      started.push(platform);
      const ready = await platform.start();
      upstreamUrl = ready.url;
      demoTokensFile = ready.demoTokensFile;
      eventsToken = demoAdminToken(ready.demoTokens);
    }
    const gatewayEnv: NodeJS.ProcessEnv = {
      ...process.env,
      // Operation logs of every replica would interleave on one terminal: warnings and errors only, unless set.
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      // Each replica registers with the demo admin's token (the same installations: the same secrets).
      ...(receiverUrl && eventsToken
        ? {
            UPSTREAM_EVENTS_URL: process.env.UPSTREAM_EVENTS_URL ?? receiverUrl,
            UPSTREAM_EVENTS_TOKEN: process.env.UPSTREAM_EVENTS_TOKEN ?? eventsToken,
          }
        : {}),
      ...env,
      HOST: '127.0.0.1',
      UPSTREAM_URL: upstreamUrl,
      REDIS_URL: redisUrl,
      // HAProxy appends each client's address to X-Forwarded-For (`option forwardfor`).
      TRUSTED_PROXIES: '1',
    };
    // Each replica serves its metrics on its own port, where operators scrape it; HAProxy refuses
    // `/metrics` on the public one (deploy/haproxy.cfg).
    delete gatewayEnv.METRICS_PORT;
    const starts = await Promise.allSettled(
      replicaPorts.map((port, i) => startReplica(`gateway${i + 1}`, port, gatewayEnv, config, log)),
    );
    // Those that started are stopped with the rest when one did not.
    const replicas = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
    started.push(...replicas.map((replica) => replica.supervisor));
    const failed = starts.find((start) => start.status === 'rejected');
    if (failed) throw failed.reason;
    const socket = join(dir, 'haproxy.sock');
    const configFile = join(dir, 'haproxy.cfg');
    const template = readFileSync(new URL('../../deploy/haproxy.cfg', import.meta.url), 'utf8');
    writeFileSync(
      configFile,
      balancerConfig(template, { host: config.HOST, port: config.PORT, servers: replicas, socket }),
    );
    const balancer = await startBalancer(configFile, socket);
    started.unshift(balancer);

    const inRotation = async (names = replicas.map((replica) => replica.name), timeoutMs = 20_000) => {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const states = await balancer.servers();
        if (names.every((name) => states.find((state) => state.name === name)?.status === 'UP')) return;
        if (Date.now() > end)
          throw new Error(`HAProxy has not put ${names.join(', ')} in rotation: ${describe(states)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await inRotation();
    return {
      url: `http://${config.HOST}:${config.PORT}`,
      upstreamUrl,
      redisUrl,
      redis,
      platform,
      demoTokensFile,
      replicas,
      balancer,
      inRotation,
      async restart(replica) {
        await replica.supervisor.stop();
        await replica.supervisor.start();
        await inRotation([replica.name]);
      },
      stop: () => stopAll(started),
    };
  } catch (error) {
    await stopAll(started);
    throw error;
  }
}

/** Stops what was started, the balancer first and the gateways before what they use. */
async function stopAll(started: Array<{ stop(): Promise<void> }>): Promise<void> {
  const [balancer, ...rest] = started;
  await balancer?.stop();
  // Gateways (last started) before the platform and Redis they use.
  for (const part of rest.reverse()) await part.stop();
}

/**
 * The replicas' ports: from `CLUSTER_BASE_PORT` on, one each, or 0 each (a free one each picks). A range past
 * the last port, or over the balancer's or Redis's, is refused with the settings that made it.
 */
export function portsOfReplicas(config: Config): number[] {
  const base = config.CLUSTER_BASE_PORT;
  const count = config.CLUSTER_REPLICAS;
  if (base === 0) return Array.from({ length: count }, () => 0);
  const last = base + count - 1;
  if (last > 65_535)
    throw new Error(
      `CLUSTER_BASE_PORT ${base} leaves room for ${65_536 - base} of the ${count} replicas (CLUSTER_REPLICAS): the last port is 65535`,
    );
  const ports = Array.from({ length: count }, (_, i) => base + i);
  const clashes = [
    ['PORT', config.PORT],
    ...(config.REDIS_URL ? [] : [['REDIS_PORT', config.REDIS_PORT] as const]),
  ].filter(([, port]) => ports.includes(port as number));
  if (clashes.length > 0)
    throw new Error(
      `${clashes.map(([name, port]) => `${name} ${port}`).join(' and ')} falls in the replicas' ports ${base}-${last} (CLUSTER_BASE_PORT, CLUSTER_REPLICAS)`,
    );
  return ports;
}

/** Starts one gateway (`src/gateway/main.ts`) on `port` (0: a free one), which it keeps across restarts. */
async function startReplica(
  name: string,
  port: number,
  env: NodeJS.ProcessEnv,
  config: Config,
  log: (line: string) => void,
) {
  const supervisor = superviseGateway(config, { name: `gateway ${name}`, port, env, log });
  const ready = await supervisor.start();
  return { name, port: Number(new URL(ready.url).port), supervisor };
}

function describe(states: ServerState[]): string {
  return states.map((state) => `${state.name} ${state.status}`).join(', ');
}
