import type * as t from 'io-ts';

/**
 * The paths of every free-text field a codec describes: dotted, `[]` for the
 * items of an array, `{}` for the values of a record. A string literal or a
 * `keyof` (an enumerated value, `won`) is not free text and not listed; a
 * refinement or a brand is its base codec. Unions and intersections merge
 * their members' fields (`nullable(x)` is `x`'s).
 */
export const textFieldsOf = (codec: t.Mixed, path = ''): Set<string> => {
  const fields = new Set<string>();
  const visit = (type: t.Mixed, at: string): void => {
    const node = type as unknown as { readonly _tag?: string; readonly props?: Record<string, t.Mixed>; readonly types?: readonly t.Mixed[]; readonly type?: t.Mixed; readonly codomain?: t.Mixed };
    switch (node._tag) {
      case 'StringType':
        fields.add(at);
        return;
      case 'InterfaceType':
      case 'PartialType':
      case 'StrictType':
        for (const [name, prop] of Object.entries(node.props ?? {})) visit(prop, at === '' ? name : `${at}.${name}`);
        return;
      case 'IntersectionType':
      case 'UnionType':
        for (const member of node.types ?? []) visit(member, at);
        return;
      case 'ArrayType':
      case 'ReadonlyArrayType':
        visit(node.type!, `${at}[]`);
        return;
      case 'DictionaryType':
        visit(node.codomain!, `${at}{}`);
        return;
      case 'RefinementType':
      case 'ReadonlyType':
      case 'ExactType':
        visit(node.type!, at);
        return;
      case 'LiteralType':
      case 'KeyofType':
      case 'NumberType':
      case 'BooleanType':
      case 'NullType':
      case 'UndefinedType':
        return;
      default:
        throw new Error(`cannot list the fields of ${type.name} (${node._tag ?? 'no tag'}) at ${at || '(root)'}`);
    }
  };
  visit(codec, path);
  return fields;
};
