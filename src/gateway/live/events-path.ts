/**
 * Where the platform delivers its integration events to the gateway (`usePlatformEvents`): a module
 * of its own, so that `npm start`'s supervisor, which loads none of the gateway, names the same path.
 */
export const PLATFORM_EVENTS_PATH = '/platform-events';

/**
 * The receiver's URL for a platform on this machine, the gateway (or its balancer) listening on
 * `host`:`port`: a wildcard or loopback interface is reached on loopback.
 */
export function localReceiverUrl(host: string, port: number): string {
  const reached =
    host === '0.0.0.0' || host === 'localhost' || host.startsWith('127.')
      ? '127.0.0.1'
      : host === '::' || host.includes(':')
        ? `[${host === '::' ? '::1' : host}]`
        : host;
  return `http://${reached}:${port}${PLATFORM_EVENTS_PATH}`;
}
