import { builder } from './builder.js';

/**
 * Declares an object of permission flags: a `Boolean!` field per entry of `flags` (flag name →
 * description), false when the platform leaves the flag out (or, for an optional one, answers null).
 */
export function permissionsType<P extends Partial<Record<string, boolean | null>>>(
  name: string,
  description: string,
  flags: { [K in keyof P & string]?: string },
) {
  return builder.objectRef<P>(name).implement({
    description,
    fields: (t) =>
      Object.fromEntries(
        Object.entries(flags).map(([flag, flagDescription]) => [
          flag,
          t.boolean({ description: flagDescription as string, resolve: (p) => p[flag] ?? false }),
        ]),
      ),
  });
}
