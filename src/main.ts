import { enableCompileCache } from 'node:module';
import { fileURLToPath } from 'node:url';
import { freePort } from './cluster/ports.js';
import { loadConfigOrExit } from './config.js';
import { localReceiverUrl, withReceiver } from './gateway/live/events-path.js';
import { superviseEmbeddedPlatform, superviseGateway, type ReadyMessage } from './supervisor.js';

// The gateway and the platform load a few hundred modules at each start: compiled by V8 once and
// kept beside the build (dist/.compile-cache, dropped with it), later starts read them compiled.
// The processes started below inherit it through NODE_COMPILE_CACHE. From the sources (tsx), not.
if (import.meta.url.endsWith('.js')) {
  const { directory } = enableCompileCache(
    process.env.NODE_COMPILE_CACHE ?? fileURLToPath(new URL('.compile-cache', import.meta.url)),
  );
  if (directory) process.env.NODE_COMPILE_CACHE = directory;
}

/**
 * `npm start`: a small supervisor that does no request work. It runs the gateway
 * (`src/gateway/main.ts`, heap `GATEWAY_HEAP_MB`) and, unless `UPSTREAM_URL` is set, the embedded
 * platform (`src/platform/main.ts`, heap `PLATFORM_HEAP_MB`), each in a process of its own, each
 * restarted with backoff when it dies (the gateway on the port it first got, the platform too). It
 * tells the gateway over IPC where the platform is and how its process is doing (for `/ready`), and
 * prints the start-up lines once. On SIGINT or SIGTERM the gateway drains, then the platform stops;
 * when this process dies, both see their IPC channel close and end.
 */
const config = loadConfigOrExit();
const quiet = config.LOG_LEVEL === 'silent';
// Restarts are errors: shown at every level but fatal and silent.
const logRestart = quiet || config.LOG_LEVEL === 'fatal' ? () => {} : (line: string) => console.error(line);

/** The embedded platform's last ready message: its URL and the demo users' tokens. */
let platformReady: ReadyMessage | undefined;

/**
 * Where the embedded platform delivers its events to the gateway: the gateway's own port, chosen
 * before either starts (the platform accepts that one URL on loopback, `PLATFORM_EVENT_RECEIVERS`).
 */
const gatewayPort = config.PORT || (config.UPSTREAM_URL ? 0 : await freePort(config.HOST));
const receiverUrl = localReceiverUrl(config.HOST, gatewayPort);

const gateway = superviseGateway(config, {
  port: gatewayPort,
  ...(config.UPSTREAM_URL
    ? {}
    : { env: { ...process.env, UPSTREAM_EVENTS_URL: config.UPSTREAM_EVENTS_URL ?? receiverUrl } }),
  log: logRestart,
  // A gateway process (the first, or one restarted) asks where the platform is once it started loading.
  onMessage: (message) => {
    if (message.type === 'waiting') tellGateway();
  },
});
const platform = config.UPSTREAM_URL
  ? undefined
  : superviseEmbeddedPlatform(
      config,
      logRestart,
      {
        onReady: (ready) => {
          platformReady = ready;
          // The first time, the gateway's start waits for it; later, a new platform process serves.
          tellGateway();
        },
        onStatus: (status) => gateway.send({ type: 'upstream-status', process: status }),
      },
      withReceiver(process.env, receiverUrl),
    );

/** Tells the gateway's process where the embedded platform is, once it is known. */
function tellGateway(): void {
  if (!platform || !platformReady) return;
  const { url, demoTokens } = platformReady;
  gateway.send({ type: 'upstream', url, ...(demoTokens ? { demoTokens } : {}), process: platform.status() });
}

let stopping = false;
let exitCode = 0;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // A second signal while stopping (Ctrl+C again) ends the gateway at once.
    if (stopping) {
      exitCode = 1;
      void gateway.stop(0);
      return;
    }
    stopping = true;
    void stopAll();
  });
}

/** The gateway first (it drains for up to `SHUTDOWN_TIMEOUT_MS`), then the platform it uses. */
async function stopAll(): Promise<never> {
  // A signal to the whole process group (a terminal's Ctrl-C, `kill -- -<pgid>`, a service manager)
  // reaches the children too: one that ends of itself now is not restarted.
  platform?.endRestarts();
  await gateway.stop();
  await platform?.stop();
  process.exit(exitCode);
}

// Both start at once: the gateway's process loads its modules (about half a second) while the
// platform's opens its database, each on a core; the gateway listens once it knows the platform.
const started = await Promise.all([gateway.start(), platform?.start()]).catch(async (error: unknown) => {
  // A stop under way ends the process.
  if (stopping) return new Promise<never>(() => {});
  // A gateway that could not start (a busy PORT) said why in its own words; so did the platform.
  const { redactSecrets } = await import('./gateway/errors.js');
  console.error(redactSecrets((error as Error).message));
  await Promise.all([gateway.stop(), platform?.stop()]);
  process.exit(1);
});
const [gatewayReady] = started;

if (!quiet) {
  // The port the gateway got (PORT=0 asks the system for a free one).
  console.log(`GraphQL gateway: ${gatewayReady.url}/graphql (GraphiQL in a browser; process ${gateway.status().pid})`);
  console.log(
    `Upstream REST API: ${platformReady ? `${platformReady.url} (embedded platform, process ${platform!.status().pid})` : withoutSecrets(config.UPSTREAM_URL!)}`,
  );
  // The tokens stay in their file: a start's output ends up in terminals' scrollback and logs.
  if (platformReady?.demoTokensFile)
    console.log(`Demo tokens (the first is an admin of every demo organization): ${platformReady.demoTokensFile}`);
}

/** A URL as it may be printed: no user info, query or fragment, where credentials go. */
function withoutSecrets(url: string): string {
  const { protocol, host, pathname } = new URL(url);
  return `${protocol}//${host}${pathname}`;
}
