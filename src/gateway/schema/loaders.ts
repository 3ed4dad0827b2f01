import type { GatewayContext } from '../context.js';

interface Clearable {
  getDataloader(ctx: GatewayContext): { clearAll(): unknown };
}

const loadables: Clearable[] = [];

/** Registers a loadable node so its per-request loader is cleared after every write. */
export function registerLoadable<T extends Clearable>(ref: T): T {
  loadables.push(ref);
  return ref;
}

/** Forgets everything the loaders of one request hold. */
export function clearLoaders(ctx: GatewayContext): void {
  for (const ref of loadables) ref.getDataloader(ctx).clearAll();
}
