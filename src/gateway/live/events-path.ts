/**
 * Where the platform delivers its integration events to the gateway (`usePlatformEvents`): a module
 * of its own, so that `npm start`'s supervisor, which loads none of the gateway, names the same path.
 */
export const PLATFORM_EVENTS_PATH = '/platform-events';
