import type { FieldNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';
import { onlyKeys } from '../../policy/cost.js';

/**
 * True when the current field's selection asks only for key fields (`id`, `platformId`,
 * `__typename`), looking through fragments. A link resolver then returns a stub built from the
 * key instead of fetching the object.
 */
export function selectsOnlyKeys(info: GraphQLResolveInfo, keyFields?: ReadonlySet<string>): boolean {
  return info.fieldNodes.every((node) => onlyKeys(node.selectionSet, info.fragments, keyFields));
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
