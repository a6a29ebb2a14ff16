import { expect } from "chai";
import { openApiDocument } from "../../../daemon/http/openapi.js";
import { QUERY_ROUTE_LIST } from "../../../shared/query-routes.js";

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  schema: Record<string, unknown>;
  description: string;
}
interface Operation {
  operationId: string;
  summary: string;
  parameters: Parameter[];
  responses: Record<string, { content: { "application/json": { schema: unknown } } }>;
}

const document = openApiDocument() as {
  paths: Record<string, { get?: Operation }>;
  components: { schemas: Record<string, unknown> };
};

function operation(path: string): Operation {
  const get = document.paths[path]?.get;
  if (!get) throw new Error(`${path} is not described`);
  return get;
}

function refs(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(refs);
  if (node === null || typeof node !== "object") return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === "$ref" && typeof value === "string" ? [value] : refs(value),
  );
}

describe("OpenAPI document from the route table", () => {
  it("describes every path of every route, with the route's operation and summary", () => {
    const described = Object.keys(document.paths).filter((path) => path.startsWith("/api/") && path !== "/api/health");
    const tabled = QUERY_ROUTE_LIST.flatMap(([, route]) => route.paths.map((p) => p.path));
    expect(described).to.deep.equal(tabled);
    for (const [method, route] of QUERY_ROUTE_LIST) {
      for (const { path, operationId, summary } of route.paths) {
        const op = operation(path);
        expect(op.operationId, method).to.equal(operationId);
        expect(op.summary, path).to.equal(summary ?? route.summary);
      }
    }
  });

  it("lists every parameter of every route, in the table's order, with its description and requiredness", () => {
    for (const [, route] of QUERY_ROUTE_LIST) {
      for (const { path } of route.paths) {
        const parameters = operation(path).parameters;
        const expected = [
          ...Object.keys(route.pathParams).map((name) => ({ name, in: "path", required: true })),
          ...Object.entries(route.params).map(([name, spec]) => ({
            name,
            in: "query",
            required: spec.required === true,
            description: spec.description,
          })),
          ...(route.attr ? [{ name: "attr.KEY", in: "query", required: false }] : []),
          ...(route.attrContains ? [{ name: "attrContains.KEY", in: "query", required: false }] : []),
        ];
        expect(
          parameters.map((p) => p.name),
          path,
        ).to.deep.equal(expected.map((p) => p.name));
        expected.forEach((want, i) => {
          expect(parameters[i], `${path} ${want.name}`).to.deep.include(want);
        });
        for (const [name, spec] of Object.entries(route.params)) {
          const schema = parameters.find((p) => p.name === name)?.schema;
          if (spec.kind === "enum") expect(schema?.enum, `${path} ${name}`).to.deep.equal(spec.values);
          if (spec.kind === "hexId") expect(schema?.pattern, `${path} ${name}`).to.include(`{${spec.bytes! * 2}}`);
        }
      }
    }
  });

  it("answers each route with its table schema, and 404 only where the route has one", () => {
    for (const [, route] of QUERY_ROUTE_LIST) {
      for (const { path } of route.paths) {
        const { responses } = operation(path);
        expect(responses["200"]?.content["application/json"].schema, path).to.deep.equal(route.answer);
        expect(Object.keys(responses), path).to.deep.equal(
          route.notFound ? ["200", "400", "404", "405"] : ["200", "400", "405"],
        );
      }
    }
  });

  it("refers only to schemas the document defines", () => {
    const defined = Object.keys(document.components.schemas).map((name) => `#/components/schemas/${name}`);
    const used = QUERY_ROUTE_LIST.flatMap(([, route]) => refs(route.answer));
    expect(used).to.not.be.empty;
    for (const target of used) expect(defined, target).to.include(target);
  });
});
