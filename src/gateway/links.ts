import type { FieldNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';

/** Fields of a node that need nothing but its key. */
const KEY_FIELDS = new Set(['id', 'platformId', '__typename']);

/**
 * True when the current field's selection asks only for key fields (`id`, `platformId`,
 * `__typename`), looking through fragments. A link resolver then returns a stub built from the
 * key instead of fetching the object.
 */
export function selectsOnlyKeys(info: GraphQLResolveInfo, keyFields: ReadonlySet<string> = KEY_FIELDS): boolean {
  return info.fieldNodes.every((node) => onlyKeys(node.selectionSet, info, keyFields, new Set()));
}

function onlyKeys(
  selectionSet: SelectionSetNode | undefined,
  info: GraphQLResolveInfo,
  keyFields: ReadonlySet<string>,
  seen: Set<string>,
): boolean {
  if (!selectionSet) return true;
  return selectionSet.selections.every((selection) => {
    switch (selection.kind) {
      case 'Field':
        return keyFields.has((selection as FieldNode).name.value);
      case 'InlineFragment':
        return onlyKeys(selection.selectionSet, info, keyFields, seen);
      case 'FragmentSpread': {
        const name = selection.name.value;
        if (seen.has(name)) return true;
        seen.add(name);
        const fragment = info.fragments[name];
        return fragment ? onlyKeys(fragment.selectionSet, info, keyFields, seen) : false;
      }
      default:
        return false;
    }
  });
}
