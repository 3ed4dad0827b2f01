import { z } from 'zod';
import { decodeKnownGlobalId, platformKey, splitKey } from './kit/ids.js';
import { inputField, type InputField } from './kit/mutations.js';

/**
 * Inputs naming a resource of an organization (a SAML provider, a font, a translation, an
 * OpenAPI spec) whose global ID carries the organization: the resource's global ID alone, or its
 * platform id (or slug) with `organizationId`.
 */

type Optional = z.ZodOptional<z.ZodNullable<z.ZodString>>;

/** The input fields `organizationId` and `<idField>` of a resource of type `typename`. */
export function organizationTarget<K extends string>(
  typename: string,
  idField: K,
  idDescription = `The ${typename}: its global ID, or its platform id with \`organizationId\`.`,
) {
  const fields = {
    organizationId: inputField(
      'ID',
      `Platform id or global ID of the organization; required when \`${idField}\` is not a global ID.`,
      z.string().trim().min(1).nullish(),
    ),
    [idField]: inputField('ID', idDescription, z.string().trim().min(1, `must be the id of a ${typename}`)),
  } as { organizationId: InputField<Optional> } & { [P in K]: InputField<z.ZodString> };

  /** Zod transform step: the organization and the resource's own id, or the faulty field reported. */
  function resolve<T extends { organizationId?: string | null | undefined } & { [P in K]: string }>(
    value: T,
    ctx: z.RefinementCtx,
  ): Omit<T, 'organizationId' | K> & { organizationId: string } & { [P in K]: string } {
    const given = value[idField] as string;
    let org: string | undefined;
    let key: string;
    try {
      org = value.organizationId ? platformKey(value.organizationId, 'Organization') : undefined;
    } catch (error) {
      ctx.addIssue({ code: 'custom', path: ['organizationId'], message: (error as Error).message });
      return z.NEVER;
    }
    try {
      key = platformKey(given, typename);
      if (key !== given && decodeKnownGlobalId(given)) {
        const [organizationId, id] = splitKey(key, 2, typename) as [string, string];
        if (org !== undefined && org !== organizationId) {
          ctx.addIssue({
            code: 'custom',
            path: ['organizationId'],
            message: `is not the organization of the ${typename}`,
          });
          return z.NEVER;
        }
        return { ...value, organizationId, [idField]: id };
      }
    } catch (error) {
      ctx.addIssue({ code: 'custom', path: [idField], message: (error as Error).message });
      return z.NEVER;
    }
    if (org === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['organizationId'],
        message: `is required when ${idField} is not a global ID`,
      });
      return z.NEVER;
    }
    return { ...value, organizationId: org };
  }

  return { fields, resolve };
}
