// GitHub's GraphQL error shapes. GitHub runs graphql-ruby, whose static-validation and parse errors
// read differently from graphql-js's; clients match on `type`, `extensions.code` and the message, so
// the simulator translates graphql-js's errors into GitHub's words and keys.
import {
  GraphQLError,
  Kind,
  Lexer,
  Source,
  TokenKind,
  validate,
  visit,
  type ASTNode,
  type DocumentNode,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';

export interface ErrorLocation {
  line: number;
  column: number;
}

/** One entry of a response's `errors`, keys in the order GitHub writes them. */
export interface GithubGraphqlError {
  /** GitHub's error class for execution and limit errors: NOT_FOUND, RATE_LIMITED, MAX_NODE_LIMIT_EXCEEDED, … */
  type?: string;
  path?: (string | number)[];
  extensions?: Record<string, unknown>;
  locations?: ErrorLocation[];
  message: string;
}

/** GitHub's error classes the simulator raises during execution (they travel in `extensions.type`). */
export type GithubErrorType = 'NOT_FOUND' | 'INVALID_CURSOR_ARGUMENTS' | 'UNPROCESSABLE' | 'SIMULATOR_UNSUPPORTED';

/** An execution error carrying GitHub's `type`; `formatExecutionError` lifts it to the top level. */
export function githubError(type: GithubErrorType, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { type } });
}

/** A graphql-js execution error as GitHub writes it: `type` at the top level, never in `extensions`. */
export function formatExecutionError(error: GraphQLError): GithubGraphqlError {
  const { type, ...extensions } = error.extensions as { type?: unknown } & Record<string, unknown>;
  const formatted: GithubGraphqlError = { message: error.message };
  if (typeof type === 'string') formatted.type = type;
  if (error.path) formatted.path = [...error.path];
  if (Object.keys(extensions).length > 0) formatted.extensions = extensions;
  if (error.locations) formatted.locations = error.locations.map(({ line, column }) => ({ line, column }));
  // Rebuild in GitHub's key order (type, path, extensions, locations, message).
  return orderKeys(formatted);
}

function orderKeys(error: GithubGraphqlError): GithubGraphqlError {
  return {
    ...(error.type !== undefined ? { type: error.type } : {}),
    ...(error.path !== undefined ? { path: error.path } : {}),
    ...(error.extensions !== undefined ? { extensions: error.extensions } : {}),
    ...(error.locations !== undefined ? { locations: error.locations } : {}),
    message: error.message,
  };
}

// graphql-ruby's token names, as its parse errors print them ("Parse error on \"}\" (RCURLY) at [1, 10]").
const rubyTokenNames: Partial<Record<string, string>> = {
  [TokenKind.BRACE_L]: 'LCURLY',
  [TokenKind.BRACE_R]: 'RCURLY',
  [TokenKind.PAREN_L]: 'LPAREN',
  [TokenKind.PAREN_R]: 'RPAREN',
  [TokenKind.BRACKET_L]: 'LBRACKET',
  [TokenKind.BRACKET_R]: 'RBRACKET',
  [TokenKind.COLON]: 'COLON',
  [TokenKind.DOLLAR]: 'VAR_SIGN',
  [TokenKind.BANG]: 'BANG',
  [TokenKind.EQUALS]: 'EQUALS',
  [TokenKind.AT]: 'DIR_SIGN',
  [TokenKind.SPREAD]: 'ELLIPSIS',
  [TokenKind.PIPE]: 'PIPE',
  [TokenKind.AMP]: 'AMP',
  [TokenKind.INT]: 'INT',
  [TokenKind.FLOAT]: 'FLOAT',
  [TokenKind.STRING]: 'STRING',
  [TokenKind.BLOCK_STRING]: 'STRING',
};
const rubyKeywords = new Set([
  'query',
  'mutation',
  'subscription',
  'fragment',
  'on',
  'true',
  'false',
  'null',
  'type',
  'schema',
]);

/** A graphql-js syntax error in graphql-ruby's words, e.g. `Parse error on "}" (RCURLY) at [1, 10]`. */
export function formatSyntaxError(error: GraphQLError, query: string): GithubGraphqlError {
  const location = error.locations?.[0];
  const position = error.positions?.[0];
  if (!location || position === undefined) return { message: error.message };
  const locations = [{ line: location.line, column: location.column }];
  const token = tokenAt(query, position);
  if (!token) return { locations, message: 'Unexpected end of document' };
  return {
    locations,
    message: `Parse error on ${JSON.stringify(token.text)} (${token.name}) at [${location.line}, ${location.column}]`,
  };
}

function tokenAt(query: string, position: number): { text: string; name: string } | null {
  const lexer = new Lexer(new Source(query));
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      if (token.end <= position) continue;
      const text = query.slice(token.start, token.end);
      if (token.kind === TokenKind.NAME)
        return { text, name: rubyKeywords.has(text) ? text.toUpperCase() : 'IDENTIFIER' };
      return { text: token.value ?? text, name: rubyTokenNames[token.kind] ?? 'UNKNOWN_CHAR' };
    }
    return null;
  } catch {
    // The lexer itself failed at this position: an unknown character.
    return { text: query.charAt(position), name: 'UNKNOWN_CHAR' };
  }
}

/**
 * Validation errors in GitHub's shape. graphql-js does not say which rule raised an error, so the
 * failing document is validated again rule by rule (only on this error path) to name each one.
 */
export function formatValidationErrors(
  schema: GraphQLSchema,
  document: DocumentNode,
  rules: readonly ValidationRule[],
): GithubGraphqlError[] {
  const paths = staticPaths(document);
  const formatted: GithubGraphqlError[] = [];
  const missingArguments = new Map<ASTNode, { error: GithubGraphqlError; names: string[] }>();
  for (const rule of rules) {
    for (const error of validate(schema, document, [rule])) {
      const node = error.nodes?.[0];
      const base: GithubGraphqlError = { message: error.message };
      const path = node ? paths.get(node) : undefined;
      if (path) base.path = path;
      if (error.locations) base.locations = error.locations.map(({ line, column }) => ({ line, column }));
      if (rule.name === 'ProvidedRequiredArgumentsRule' && node) {
        // graphql-ruby reports all missing arguments of a field in one error.
        const name = /argument "([^"]+)"/.exec(error.message)?.[1] ?? '?';
        const existing = missingArguments.get(node);
        if (existing) {
          existing.names.push(name);
          continue;
        }
        missingArguments.set(node, { error: base, names: [name] });
        formatted.push(base);
        continue;
      }
      formatted.push(translate(rule.name, error, base));
    }
  }
  for (const [node, { error, names }] of missingArguments) {
    const isDirective = node.kind === Kind.DIRECTIVE;
    const name = node.kind === Kind.FIELD || node.kind === Kind.DIRECTIVE ? node.name.value : '?';
    const className = isDirective ? 'Directive' : 'Field';
    error.extensions = { code: 'missingRequiredArguments', className, name, arguments: names.join(', ') };
    error.message = `${className} '${name}' is missing required arguments: ${names.join(', ')}`;
  }
  return formatted.map((error) => orderKeys(error));
}

function translate(ruleName: string, error: GraphQLError, base: GithubGraphqlError): GithubGraphqlError {
  const quoted = [...error.message.matchAll(/"([^"]*)"/g)].map((match) => match[1] ?? '');
  switch (ruleName) {
    case 'FieldsOnCorrectTypeRule': {
      const [fieldName = '?', typeName = '?'] = quoted;
      return {
        ...base,
        extensions: { code: 'undefinedField', typeName, fieldName },
        message: `Field '${fieldName}' doesn't exist on type '${typeName}'`,
      };
    }
    case 'KnownArgumentNamesRule': {
      // graphql-js: Unknown argument "foo" on field "Query.repository". (or on directive "@skip")
      const [argumentName = '?', owner = '?'] = quoted;
      const isDirective = owner.startsWith('@');
      const name = isDirective ? owner.slice(1) : (owner.split('.').pop() ?? owner);
      const typeName = isDirective ? 'Directive' : 'Field';
      return {
        ...base,
        extensions: { code: 'argumentNotAccepted', name, typeName, argumentName },
        message: `${typeName} '${name}' doesn't accept argument '${argumentName}'`,
      };
    }
    case 'ScalarLeafsRule': {
      const [fieldName = '?', typeName = '?'] = quoted;
      if (error.message.includes('must have a selection of subfields')) {
        return {
          ...base,
          extensions: { code: 'selectionMismatch', nodeName: `field '${fieldName}'`, typeName },
          message: `Field must have selections (field '${fieldName}' returns ${typeName} but has no selections. Did you mean '${fieldName} { ... }'?)`,
        };
      }
      return {
        ...base,
        extensions: { code: 'selectionMismatch', nodeName: `field '${fieldName}'`, typeName },
        message: `Selections can't be made on scalars (field '${fieldName}' returns ${typeName} but has selections)`,
      };
    }
    case 'NoUnusedVariablesRule': {
      const [variable = '?', operation] = quoted;
      const name = variable.replace(/^\$/, '');
      return {
        ...base,
        extensions: { code: 'variableNotUsed', variableName: name },
        message: `Variable $${name} is declared by ${operation ?? 'anonymous query'} but not used`,
      };
    }
    case 'NoUndefinedVariablesRule': {
      const [variable = '?', operation] = quoted;
      const name = variable.replace(/^\$/, '');
      return {
        ...base,
        extensions: { code: 'variableNotDefined', variableName: name },
        message: `Variable $${name} is used by ${operation ?? 'anonymous query'} but not declared`,
      };
    }
    case 'KnownTypeNamesRule': {
      const [typeName = '?'] = quoted;
      return {
        ...base,
        extensions: { code: 'undefinedType', typeName },
        message: `No such type ${typeName}, so it can't be a fragment condition`,
      };
    }
    default:
      // The remaining rules keep graphql-js's wording; their shape (path, locations, message) is GitHub's.
      return base;
  }
}

/**
 * graphql-ruby's static-validation `path` of every node: the operation ("query", "query Name"),
 * then field response keys, "... on Type" for inline fragments and argument names.
 */
function staticPaths(document: DocumentNode): Map<ASTNode, string[]> {
  const paths = new Map<ASTNode, string[]>();
  const stack: string[] = [];
  const pushed: boolean[] = [];
  visit(document, {
    enter(node) {
      const segment = segmentOf(node);
      if (segment !== null) stack.push(segment);
      pushed.push(segment !== null);
      paths.set(node, [...stack]);
    },
    leave() {
      if (pushed.pop()) stack.pop();
    },
  });
  return paths;
}

function segmentOf(node: ASTNode): string | null {
  if (node.kind === Kind.OPERATION_DEFINITION)
    return node.name ? `${node.operation} ${node.name.value}` : node.operation;
  if (node.kind === Kind.FRAGMENT_DEFINITION) return `fragment ${node.name.value}`;
  if (node.kind === Kind.FIELD) return node.alias?.value ?? node.name.value;
  if (node.kind === Kind.INLINE_FRAGMENT) return node.typeCondition ? `... on ${node.typeCondition.name.value}` : '...';
  if (node.kind === Kind.FRAGMENT_SPREAD) return `... ${node.name.value}`;
  if (node.kind === Kind.ARGUMENT) return node.name.value;
  return null;
}
