/**
 * The OpenAPI description of the `/api` query routes, derived from the route table
 * (shared/query-routes.ts): paths, parameters and answer schemas. A route or parameter is
 * added there, not here.
 */
import {
  ATTR_FILTER_PARAMS,
  type JsonSchema,
  type ParamSpec,
  type PathParamSpec,
  QUERY_ROUTE_LIST,
  type QueryRoute,
} from "../../shared/query-routes.js";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const hexPattern = (bytes: number) => `^[0-9a-fA-F]{${bytes * 2}}$`;

/** The JSON Schema of a query parameter's raw text, by its kind. */
function parameterSchema(spec: ParamSpec): JsonSchema {
  switch (spec.kind) {
    case "text":
    case "enumList":
    case "groupBy":
    case "groupByList":
      return { type: "string" };
    case "enum":
      return { type: "string", enum: spec.values ?? [] };
    case "hexId":
      return { type: "string", pattern: hexPattern(spec.bytes ?? 16) };
    case "duration":
      return { type: "string", pattern: "^[0-9]+(ms|s|m|h|d|w)$" };
    case "positiveInteger":
      return { type: "integer", minimum: 1 };
    case "milliseconds":
      return { type: "number", minimum: 0 };
    case "minutes":
      return {
        type: "number",
        exclusiveMinimum: true,
        minimum: 0,
        maximum: 1440,
        ...(spec.schemaDefault ? { default: spec.default } : {}),
      };
    case "instant":
      return { type: "string", format: "date-time" };
  }
}

function queryParameter(name: string, spec: ParamSpec) {
  return {
    name,
    in: "query",
    required: spec.required === true,
    schema: parameterSchema(spec),
    description: spec.description,
  };
}

function pathParameter(name: string, spec: PathParamSpec) {
  return {
    name,
    in: "path",
    required: true,
    schema: { type: "string", pattern: hexPattern(spec.bytes) },
    description: `${spec.bytes * 2} hex characters`,
  };
}

/** Path parameters, then the query parameters in the table's order, then the attribute filters. */
function parameters(route: QueryRoute): unknown[] {
  const attrFilter = (filter: { name: string; description: string }) =>
    queryParameter(filter.name, { kind: "text", description: filter.description });
  return [
    ...Object.entries(route.pathParams).map(([name, spec]) => pathParameter(name, spec)),
    ...Object.entries(route.params).map(([name, spec]) => queryParameter(name, spec)),
    ...(route.attr ? [attrFilter(ATTR_FILTER_PARAMS.attr)] : []),
    ...(route.attrContains ? [attrFilter(ATTR_FILTER_PARAMS.attrContains)] : []),
  ];
}

function error(description: string) {
  return { description, content: { "application/json": { schema: ref("Error") } } };
}

function responses(route: QueryRoute) {
  return {
    "200": { description: route.summary, content: { "application/json": { schema: route.answer } } },
    "400": error("A bad or unknown parameter; the message names it and the allowed values"),
    ...(route.notFound
      ? { "404": error(route.notFound === true ? "No such trace or span in the store" : route.notFound) }
      : {}),
    "405": error("Method other than GET"),
  };
}

/** Path items for `paths`, one per path of each route (aliases included), in the table's order. */
export function queryPaths(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const [, route] of QUERY_ROUTE_LIST) {
    for (const { path, operationId, summary } of route.paths) {
      paths[path] = {
        get: {
          operationId,
          tags: ["query"],
          summary: summary ?? route.summary,
          parameters: parameters(route),
          responses: responses(route),
        },
      };
    }
  }
  return paths;
}
