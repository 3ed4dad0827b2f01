/**
 * Where the platform delivers its integration events to the gateway (`usePlatformEvents`): a module
 * of its own, so that `npm start`'s supervisor, which loads none of the gateway, names the same path.
 */
export const PLATFORM_EVENTS_PATH = '/platform-events';

/**
 * The receiver's URL for a platform on this machine, the gateway (or its balancer) listening on
 * `host`:`port`: a wildcard interface is reached on loopback, any other host as it is named (so
 * `localhost` resolves as it did for the listening socket).
 */
export function localReceiverUrl(host: string, port: number): string {
  const reached = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  // An IPv6 address in brackets, its zone (`%eth0`) written as a URL writes it.
  const named = reached.includes(':') ? `[${reached.replace('%', '%25')}]` : reached;
  return `http://${named}:${port}${PLATFORM_EVENTS_PATH}`;
}

/** `env` with `receiverUrl` added to the receivers the embedded platform delivers to on loopback (`PLATFORM_EVENT_RECEIVERS`). */
export function withReceiver(env: NodeJS.ProcessEnv, receiverUrl: string): NodeJS.ProcessEnv {
  const receivers = [env.PLATFORM_EVENT_RECEIVERS, receiverUrl].filter(Boolean).join(',');
  return { ...env, PLATFORM_EVENT_RECEIVERS: receivers };
}
