// GitHub's static query limits, computed on a validated document before anything executes:
// pagination boundaries on every connection, the 500,000-node limit and the rate-limit cost.
// Source: docs.github.com "Rate limits and node limits for the GraphQL API".
//   - A connection is a field whose type's name ends in `Connection`.
//   - Node count: each connection contributes its `first`/`last` times the page sizes of the
//     connections it sits inside; siblings add up (50 repos × 10 issues → 50 + 500 = 550).
//   - Cost: each connection needs one request per parent item (1 at the top, 50 under a
//     `first: 50` parent, …); the sum is divided by 100 and rounded, with a minimum of 1.
import {
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getVariableValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isCompositeType,
  isObjectType,
  Kind,
  OperationTypeNode,
  typeFromAST,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { GithubGraphqlError } from './errors.js';

export const maxPageSize = 100;
export const maxNodeCount = 500_000;

export interface QueryAnalysis {
  /** Rate-limit points one run of the query spends. */
  cost: number;
  /** Connection requests before the division by 100 (the cost's raw sum). */
  requestCount: number;
  /** The most nodes the query may return, against the 500,000 limit. */
  nodeCount: number;
  /** `rateLimit(dryRun: true)` was asked for: compute, spend nothing. */
  dryRun: boolean;
  /** The operation to execute, when the document names one that exists. */
  operation: OperationDefinitionNode | null;
  /** Variables coerced against the operation's definitions (empty when coercion failed). */
  variables: Record<string, unknown>;
  /** GitHub's errors for the query; non-empty means GitHub would refuse to run it. */
  errors: GithubGraphqlError[];
}

interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  requestCount: number;
  nodeCount: number;
  dryRun: boolean;
  errors: GithubGraphqlError[];
}

interface FieldGroup {
  parentType: GraphQLCompositeType;
  field: GraphQLField<unknown, unknown>;
  nodes: FieldNode[];
  responseKey: string;
}

/** The limits GitHub checks before running `document` (already validated against `schema`). */
export function analyzeQuery(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> = {},
  operationName?: string | null,
): QueryAnalysis {
  const analysis: QueryAnalysis = {
    cost: 1,
    requestCount: 0,
    nodeCount: 0,
    dryRun: false,
    operation: null,
    variables: {},
    errors: [],
  };
  const operation = selectOperation(document, operationName ?? null);
  if ('error' in operation) return { ...analysis, errors: [operation.error] };
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
  if (coerced.errors) {
    return {
      ...analysis,
      operation,
      errors: coerced.errors.map((error) => variableError(schema, operation, error.message)),
    };
  }
  const rootType =
    operation.operation === OperationTypeNode.QUERY
      ? schema.getQueryType()
      : operation.operation === OperationTypeNode.MUTATION
        ? schema.getMutationType()
        : schema.getSubscriptionType();
  if (!rootType)
    return { ...analysis, operation, errors: [{ message: `Schema is not configured for ${operation.operation}s` }] };

  const walk: Walk = {
    schema,
    fragments: new Map(
      document.definitions.flatMap((definition) =>
        definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition]] : [],
      ),
    ),
    variables: coerced.coerced,
    requestCount: 0,
    nodeCount: 0,
    dryRun: false,
    errors: [],
  };
  walkSelectionSet(walk, operation.selectionSet, rootType, 1, []);
  if (walk.errors.length === 0 && walk.nodeCount > maxNodeCount) {
    walk.errors.push({
      type: 'MAX_NODE_LIMIT_EXCEEDED',
      message: `This query requests up to ${walk.nodeCount.toLocaleString('en-US')} possible nodes which exceeds the maximum limit of ${maxNodeCount.toLocaleString('en-US')}.`,
    });
  }
  return {
    cost: Math.max(1, Math.round(walk.requestCount / 100)),
    requestCount: walk.requestCount,
    nodeCount: walk.nodeCount,
    dryRun: walk.dryRun,
    operation,
    variables: coerced.coerced,
    errors: walk.errors,
  };
}

function selectOperation(
  document: DocumentNode,
  operationName: string | null,
): OperationDefinitionNode | { error: GithubGraphqlError } {
  const operations = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  if (operationName !== null) {
    const named = operations.find((operation) => operation.name?.value === operationName);
    return named ?? { error: { message: `No operation named "${operationName}"` } };
  }
  const [only, ...others] = operations;
  if (!only) return { error: { message: 'No operations in query document' } };
  if (others.length > 0) return { error: { message: 'An operation name is required' } };
  return only;
}

/** graphql-ruby's wording for a variable that does not coerce ("Variable $first of type Int was provided invalid value"). */
function variableError(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  graphqlJsMessage: string,
): GithubGraphqlError {
  const name = /Variable "\$([^"]+)"/.exec(graphqlJsMessage)?.[1] ?? '?';
  const definition = operation.variableDefinitions?.find((candidate) => candidate.variable.name.value === name);
  const typeName = definition ? (typeFromAST(schema, definition.type)?.toString() ?? '?') : '?';
  const explanation = graphqlJsMessage.includes('was not provided')
    ? 'Expected value to not be null'
    : graphqlJsMessage.replace(/^Variable "\$[^"]+" got invalid value [^;]*; /, '');
  const error: GithubGraphqlError = {
    extensions: { value: null, problems: [{ path: [], explanation }] },
    message: `Variable $${name} of type ${typeName} was provided invalid value`,
  };
  if (definition?.loc)
    error.locations = [{ line: definition.loc.startToken.line, column: definition.loc.startToken.column }];
  return error;
}

function walkSelectionSet(
  walk: Walk,
  selectionSet: SelectionSetNode,
  parentType: GraphQLCompositeType,
  multiplier: number,
  path: string[],
): void {
  for (const group of collectFields(walk, selectionSet, parentType).values()) {
    walkField(walk, group, multiplier, [...path, group.responseKey]);
  }
}

function walkField(walk: Walk, group: FieldGroup, multiplier: number, path: string[]): void {
  const [firstNode] = group.nodes;
  if (!firstNode) return;
  const args = getArgumentValues(group.field, firstNode, walk.variables);
  const namedType = getNamedType(group.field.type);
  if (group.field.name === 'rateLimit' && args['dryRun'] === true) walk.dryRun = true;
  if (!isCompositeType(namedType)) return;
  const selectionSet: SelectionSetNode = {
    kind: Kind.SELECTION_SET,
    selections: group.nodes.flatMap((node) => node.selectionSet?.selections ?? []),
  };
  if (!isConnection(namedType)) {
    walkSelectionSet(walk, selectionSet, namedType, multiplier, path);
    return;
  }
  // One request per parent item fetches this connection's page.
  walk.requestCount += multiplier;
  const children = collectFields(walk, selectionSet, namedType);
  const selectsItems = [...children.values()].some(
    (child) => child.field.name === 'nodes' || child.field.name === 'edges',
  );
  const pageSize = pageSizeOf(walk, group, firstNode, args, path, selectsItems);
  walk.nodeCount += multiplier * pageSize;
  for (const child of children.values()) walkField(walk, child, multiplier * pageSize, [...path, child.responseKey]);
}

/**
 * The page size a connection asks for, recording GitHub's errors when it is missing or out of range.
 * A connection that selects neither `nodes` nor `edges` (only `totalCount`, `pageInfo`) may omit
 * `first`/`last` on GitHub — `issues(states: OPEN) { totalCount }` is common and accepted.
 */
function pageSizeOf(
  walk: Walk,
  group: FieldGroup,
  node: FieldNode,
  args: Record<string, unknown>,
  path: string[],
  selectsItems: boolean,
): number {
  const name = group.field.name;
  const locations = node.loc ? [{ line: node.loc.startToken.line, column: node.loc.startToken.column }] : undefined;
  const located = (error: Omit<GithubGraphqlError, 'locations' | 'path'>): GithubGraphqlError => ({
    ...(error.type !== undefined ? { type: error.type } : {}),
    path,
    ...(locations ? { locations } : {}),
    message: error.message,
  });
  const bounds = (['first', 'last'] as const).flatMap((argument) => {
    const value = args[argument];
    return typeof value === 'number' ? [{ argument, value }] : [];
  });
  if (bounds.length === 0) {
    if (selectsItems) {
      walk.errors.push(
        located({
          type: 'MISSING_PAGINATION_BOUNDARIES',
          message: `You must provide a \`first\` or \`last\` value to properly paginate the \`${name}\` connection.`,
        }),
      );
    }
    return 0;
  }
  for (const { argument, value } of bounds) {
    if (value > maxPageSize) {
      walk.errors.push(
        located({
          type: 'EXCESSIVE_PAGINATION',
          message: `Requesting ${value} records on the \`${name}\` connection exceeds the \`${argument}\` limit of ${maxPageSize} records.`,
        }),
      );
    } else if (value < 1) {
      // GitHub documents the range as 1–100; the simulator holds clients to it.
      walk.errors.push(
        located({
          message: `\`${argument}\` on the \`${name}\` connection must be between 1 and ${maxPageSize}, got ${value}.`,
        }),
      );
    }
  }
  return bounds[0]?.value ?? 0;
}

function isConnection(type: GraphQLCompositeType): boolean {
  return isObjectType(type) && type.name.endsWith('Connection');
}

/** Fields of a selection set grouped by parent type and response key, through fragments, honouring @skip/@include. */
function collectFields(
  walk: Walk,
  selectionSet: SelectionSetNode,
  parentType: GraphQLCompositeType,
  groups = new Map<string, FieldGroup>(),
  visited = new Set<string>(),
): Map<string, FieldGroup> {
  for (const selection of selectionSet.selections) {
    if (!included(walk, selection)) continue;
    switch (selection.kind) {
      case Kind.FIELD: {
        const fieldName = selection.name.value;
        if (fieldName.startsWith('__')) break;
        const field = 'getFields' in parentType ? parentType.getFields()[fieldName] : undefined;
        if (!field) break;
        const responseKey = selection.alias?.value ?? fieldName;
        const key = `${parentType.name}.${responseKey}`;
        const group = groups.get(key);
        if (group) group.nodes.push(selection);
        else groups.set(key, { parentType, field, nodes: [selection], responseKey });
        break;
      }
      case Kind.INLINE_FRAGMENT: {
        const type = selection.typeCondition ? walk.schema.getType(selection.typeCondition.name.value) : parentType;
        if (type && isCompositeType(type)) collectFields(walk, selection.selectionSet, type, groups, visited);
        break;
      }
      case Kind.FRAGMENT_SPREAD: {
        const name = selection.name.value;
        const fragment = walk.fragments.get(name);
        if (!fragment || visited.has(name)) break;
        const type = walk.schema.getType(fragment.typeCondition.name.value);
        if (type && isCompositeType(type))
          collectFields(walk, fragment.selectionSet, type, groups, new Set([...visited, name]));
        break;
      }
    }
  }
  return groups;
}

function included(walk: Walk, selection: SelectionSetNode['selections'][number]): boolean {
  const skip = getDirectiveValues(GraphQLSkipDirective, selection, walk.variables);
  if (skip?.['if'] === true) return false;
  const include = getDirectiveValues(GraphQLIncludeDirective, selection, walk.variables);
  return include?.['if'] !== false;
}
