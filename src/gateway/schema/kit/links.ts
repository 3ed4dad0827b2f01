import type { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';

/** Fields of a node that need nothing but its key. */
const KEY_FIELDS = new Set(['id', 'platformId', '__typename']);

/**
 * True when the current field's selection asks only for key fields (`id`, `platformId`,
 * `__typename`), looking through fragments. A link resolver then returns a stub built from the
 * key instead of fetching the object.
 */
export function selectsOnlyKeys(info: GraphQLResolveInfo, keyFields: ReadonlySet<string> = KEY_FIELDS): boolean {
  return info.fieldNodes.every((node) => onlyKeys(node.selectionSet, info.fragments, keyFields));
}

/** True when `selectionSet` selects nothing but key fields, looking through fragments. */
export function onlyKeys(
  selectionSet: SelectionSetNode | undefined,
  fragments: Record<string, FragmentDefinitionNode>,
  keyFields: ReadonlySet<string> = KEY_FIELDS,
  seen: Set<string> = new Set(),
): boolean {
  if (!selectionSet) return true;
  return selectionSet.selections.every((selection) => {
    switch (selection.kind) {
      case 'Field':
        return keyFields.has((selection as FieldNode).name.value);
      case 'InlineFragment':
        return onlyKeys(selection.selectionSet, fragments, keyFields, seen);
      case 'FragmentSpread': {
        const name = selection.name.value;
        if (seen.has(name)) return true;
        seen.add(name);
        const fragment = fragments[name];
        return fragment ? onlyKeys(fragment.selectionSet, fragments, keyFields, seen) : false;
      }
      default:
        return false;
    }
  });
}

/** The field nodes of the current field's selection, at its top level, looking through fragments. */
export function selectedFieldNodes(info: GraphQLResolveInfo): FieldNode[] {
  const found: FieldNode[] = [];
  const seen = new Set<string>();
  const visit = (selectionSet: SelectionSetNode | undefined) => {
    for (const selection of selectionSet?.selections ?? []) {
      if (selection.kind === 'Field') found.push(selection);
      else if (selection.kind === 'InlineFragment') visit(selection.selectionSet);
      else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        visit(info.fragments[selection.name.value]?.selectionSet);
      }
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet);
  return found;
}

/** Names of the fields the current field's selection asks for, at its top level. */
export function selectedFieldNames(info: GraphQLResolveInfo): Set<string> {
  return new Set(selectedFieldNodes(info).map((field) => field.name.value));
}

/** The field nodes named `name` in the current field's selection, at its top level. */
export function selectedFields(info: GraphQLResolveInfo, name: string): FieldNode[] {
  return selectedFieldNodes(info).filter((field) => field.name.value === name);
}
